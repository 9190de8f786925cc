//! Every repository path a document names exists: the backticked paths in README.md, docs/*.md,
//! testbed/README.md and tests/oidc/README.md, and the targets of their relative links.

use anyhow::{Context, ensure};
use regex::Regex;
use std::path::{Path, PathBuf};

/// The top-level folders a backticked path may start with to be taken for a repository path.
const TOP_LEVEL: &[&str] = &[
    "app/",
    "core/",
    "server/",
    "style/",
    "public/",
    "migrations/",
    "tests/",
    "testbed/",
    "deploy/",
    "docs/",
    "scripts/",
    ".ci/",
];

/// The documents checked, relative to the workspace root.
fn documents(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut docs = vec![
        PathBuf::from("README.md"),
        PathBuf::from("testbed/README.md"),
        PathBuf::from("tests/oidc/README.md"),
    ];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .context("docs/ exists")?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    in_docs.sort();
    docs.extend(in_docs);
    Ok(docs)
}

/// The text outside fenced code blocks: commands and pictures there are not references.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A path without what may follow it: `:line`, `::item` or `#anchor`.
fn strip_suffix(path: &str) -> &str {
    path.split([':', '#']).next().unwrap_or(path)
}

/// Whether `path` is a pattern or a placeholder rather than one file.
fn is_pattern(path: &str) -> bool {
    path.contains(['<', '>', '*', '{', '}', '$', '?', '[']) || path.contains("...")
}

/// The first word of a span, unless the span is a YAML `key: value` (such as the testbed's
/// annotation `testbed/log-lines: "..."`), whose key is no path.
fn first_word(span: &str) -> Option<&str> {
    let mut words = span.split_whitespace();
    let first = words.next()?;
    match words.next() {
        Some(_) if first.ends_with(':') => None,
        _ => Some(first),
    }
}

/// The repository paths in backticks: the span itself, or the first word of a command.
fn backticked_paths(prose: &str) -> Vec<String> {
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(first_word)
        .filter(|word| TOP_LEVEL.iter().any(|top| word.starts_with(top)))
        .map(strip_suffix)
        .filter(|path| !is_pattern(path))
        .map(str::to_owned)
        .collect()
}

/// The targets of relative links `[text](target)`, resolved against the document's folder.
fn linked_paths(prose: &str, doc: &Path) -> Vec<String> {
    let link = Regex::new(r"\]\(([^)\s]+)\)").expect("the pattern compiles");
    let folder = doc.parent().unwrap_or(Path::new(""));
    link.captures_iter(prose)
        .map(|c| c[1].to_owned())
        .filter(|target| !target.starts_with('#') && !target.contains("://"))
        .filter(|target| !target.starts_with("mailto:"))
        .map(|target| {
            let target = target.split('#').next().unwrap_or(&target).to_owned();
            normalise(&folder.join(target))
        })
        .collect()
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalise(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

pub fn every_path_a_document_names_exists() -> anyhow::Result<()> {
    let root = tephra_tests::workspace::root();
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in documents(&root)? {
        let text = std::fs::read_to_string(root.join(&doc))
            .with_context(|| format!("cannot read {}", doc.display()))?;
        let prose = prose(&text);
        let mut paths = backticked_paths(&prose);
        paths.extend(linked_paths(&prose, &doc));
        paths.sort();
        paths.dedup();
        for path in paths {
            checked += 1;
            if !root.join(&path).exists() {
                missing.push(format!("{}: {path}", doc.display()));
            }
        }
    }
    ensure!(checked > 0, "the documents name no paths at all");
    ensure!(
        missing.is_empty(),
        "documents name paths that do not exist:\n{}",
        missing.join("\n")
    );
    Ok(())
}
