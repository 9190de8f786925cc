//! Generates the stylesheet: `style/base.css` followed by the utility classes (Tailwind-compatible,
//! via encre-css) that appear anywhere in `app/src`. The result is embedded in the binary, so the CSS
//! always matches the markup it was built with.

use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest_dir
        .parent()
        .expect("server/ lives in the workspace root");
    let app_src = root.join("app/src");
    let base = root.join("style/base.css");

    let mut sources = Vec::new();
    collect_rust_files(&app_src, &mut sources);
    sources.sort();

    let mut markup = String::new();
    for path in &sources {
        println!("cargo:rerun-if-changed={}", path.display());
        markup.push_str(&fs::read_to_string(path).expect("readable source file"));
        markup.push('\n');
    }
    println!("cargo:rerun-if-changed={}", app_src.display());
    println!("cargo:rerun-if-changed={}", base.display());

    let utilities = encre_css::generate([markup.as_str()], &encre_css::Config::default());
    let base_css = fs::read_to_string(&base).expect("style/base.css exists");
    let out = PathBuf::from(env::var("OUT_DIR").expect("set by cargo")).join("tephra.css");
    fs::write(out, format!("{base_css}\n{utilities}\n")).expect("writable OUT_DIR");
}

fn collect_rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable app/src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
