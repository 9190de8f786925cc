//! Every utility class used in `app/src` has a rule in the generated stylesheet. A class that
//! encre-css does not know (a typo, or Tailwind syntax it lacks) would otherwise silently do
//! nothing in the browser.

use server::http::stylesheet::CSS;
use std::path::{Path, PathBuf};

/// Class lists in the app's source: `class="…"`, `attr:class="…"`, `class=format!("…", …)` and
/// `const …CLASS: &str = "…"`.
fn class_lists(source: &str) -> Vec<String> {
    let mut lists = Vec::new();
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' || (i > 0 && bytes[i - 1] == b'\\') {
            i += 1;
            continue;
        }
        let Some(len) = source[i + 1..].find('"') else {
            break;
        };
        let literal = &source[i + 1..i + 1 + len];
        let before = source[..i].trim_end();
        let is_class = before.ends_with("class=")
            || before.ends_with("class=format!(")
            || is_class_const(before);
        if is_class {
            // `{NAME}` in a format string is a class constant, checked where it is declared.
            let words: Vec<&str> = literal
                .split_whitespace()
                .filter(|w| !(w.starts_with('{') && w.ends_with('}')))
                .collect();
            lists.push(words.join(" "));
        }
        i += len + 2;
    }
    lists
}

fn is_class_const(before: &str) -> bool {
    let Some(decl) = before.strip_suffix("&str =") else {
        return false;
    };
    let decl = decl.trim_end().trim_end_matches(':');
    decl.rsplit(|c: char| c.is_whitespace())
        .next()
        .is_some_and(|name| name.ends_with("CLASS"))
}

/// The selector encre-css writes for a class: everything but letters, digits, `-` and `_`
/// is escaped with a backslash.
fn selector(class: &str) -> String {
    let mut s = String::from(".");
    for c in class.chars() {
        if !(c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

fn has_rule(css: &str, class: &str) -> bool {
    let selector = selector(class);
    css.match_indices(&selector).any(|(at, _)| {
        css[at + selector.len()..]
            .chars()
            .next()
            .is_some_and(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '\\'))
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_class_used_in_the_app_has_a_rule() {
    let app_src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/src");
    let mut files = Vec::new();
    rust_files(&app_src, &mut files);
    let mut checked = 0;
    let mut missing = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for list in class_lists(&source) {
            for class in list.split_whitespace() {
                checked += 1;
                if !has_rule(CSS, class) {
                    missing.push(format!("{class} (in {})", file.display()));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "the scanner found only {checked} classes; is it still reading app/src?"
    );
    assert!(
        missing.is_empty(),
        "classes without a CSS rule:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scanner_finds_every_way_the_app_writes_classes() {
    let source = r#"
        const TONE_CLASS: &str = "bg-red-50 text-red-800";
        const OTHER_BADGE_CLASS: &str =
            "ring-1";
        view! { <div class="flex gap-2"><A attr:class="px-3 md:px-4"/><span class=format!("py-0.5 {}", x)/></div> }
        let label = "not a class";
    "#;
    let lists = class_lists(source);
    assert_eq!(
        lists,
        [
            "bg-red-50 text-red-800",
            "ring-1",
            "flex gap-2",
            "px-3 md:px-4",
            "py-0.5"
        ]
    );
}

#[test]
fn unknown_classes_are_reported() {
    assert!(has_rule(CSS, "flex"));
    assert!(has_rule(CSS, "py-1.5"));
    assert!(has_rule(CSS, "dark:bg-slate-900"));
    assert!(
        !has_rule(CSS, "flexx"),
        "a typo must not match a longer or shorter class"
    );
    assert!(!has_rule(CSS, "bg-slate-1000"));
}

#[test]
fn dark_mode_follows_the_system() {
    assert!(
        CSS.contains("prefers-color-scheme: dark") || CSS.contains("prefers-color-scheme:dark"),
        "dark: variants use the media query"
    );
}
