//! No source file of core, app or server is over 400 lines, test code aside: a longer file holds
//! more than one concern and is split into modules named for what they hold. (Functions have
//! their own limit, clippy's `too_many_lines` in clippy.toml.)

use anyhow::{Context, ensure};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 400;

/// The crates' sources, relative to the workspace root.
const SOURCES: &[&str] = &["app/src", "core/src", "server/src"];

/// Test code, which may be as long as its cases: `tests.rs`, `doc_tests.rs`, anything under a
/// `tests/` folder. `path` is relative to the workspace root, whose own folders do not count.
fn is_test_code(path: &Path) -> bool {
    let in_tests = path
        .parent()
        .is_some_and(|folder| folder.components().any(|part| part.as_os_str() == "tests"));
    let name = path.file_name().and_then(|name| name.to_str());
    in_tests || matches!(name, Some("tests.rs" | "doc_tests.rs"))
}

/// Every `.rs` file under `folder`, recursively.
fn rust_files(folder: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries =
        std::fs::read_dir(folder).with_context(|| format!("cannot list {}", folder.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

pub fn no_source_file_is_over_400_lines() -> anyhow::Result<()> {
    let root = tephra_tests::workspace::root();
    let mut files = Vec::new();
    for source in SOURCES {
        rust_files(&root.join(source), &mut files)?;
    }
    files.sort();
    let mut checked = 0;
    let mut too_long = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap_or(&file);
        if is_test_code(relative) {
            continue;
        }
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", relative.display()))?;
        checked += 1;
        let lines = text.lines().count();
        if lines > MAX_LINES {
            too_long.push(format!("{}: {lines} lines", relative.display()));
        }
    }
    ensure!(checked > 0, "no source files found under {SOURCES:?}");
    ensure!(
        too_long.is_empty(),
        "source files over {MAX_LINES} lines (split each into modules by concern; inline tests \
         go in a tests.rs of their own):\n{}",
        too_long.join("\n")
    );
    Ok(())
}
