//! Where the build put things.

use std::path::PathBuf;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lives in the workspace root")
        .to_path_buf()
}

/// Cargo's target directory (`CARGO_TARGET_DIR` when set, as CI does to reuse builds).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root().join(dir)
            }
        }
        None => root().join("target"),
    }
}

/// Where screenshots and other artifacts of test runs go: `target/<kind>` in the checkout, even
/// when cargo builds elsewhere, so they sit next to the code that produced them.
pub fn artifacts_dir(kind: &str) -> PathBuf {
    let dir = root().join("target").join(kind);
    std::fs::create_dir_all(&dir).expect("the target directory is writable");
    dir
}
