//! docs/CONFIGURATION.md tables every option of `tephra serve` and `tephra render`; these tests
//! compare the tables with clap's definitions, so the document cannot drift from the code.

use super::Cli;
use clap::{Arg, Command, CommandFactory};
use std::collections::{BTreeMap, BTreeSet};

/// The header of the `tephra serve` table.
const SERVE_HEADER: &str = "| flag | variable | default | meaning |";
/// The header of the `tephra render` table.
const RENDER_HEADER: &str = "| flag | default | meaning |";

/// One row of a table: its flags, variables and default, as the document writes them.
#[derive(Debug)]
struct Row {
    flags: Vec<String>,
    envs: Vec<String>,
    default: String,
}

fn document() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/CONFIGURATION.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The text between backticks in `cell`, in order.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect()
}

/// The rows of the table under `header`; `with_env` says whether it has a variable column.
fn table(doc: &str, header: &str, with_env: bool) -> Vec<Row> {
    let rows: Vec<Row> = doc
        .lines()
        .skip_while(|l| l.trim() != header)
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let flags = code_spans(cells[0])
                .into_iter()
                .filter(|s| s.starts_with("--"))
                .collect();
            let (envs, default) = if with_env {
                (code_spans(cells[1]), cells[2].to_owned())
            } else {
                (Vec::new(), cells[1].to_owned())
            };
            Row {
                flags,
                envs,
                default,
            }
        })
        .collect();
    assert!(
        !rows.is_empty(),
        "docs/CONFIGURATION.md has no table headed {header:?}"
    );
    rows
}

/// The named options of a subcommand (clap's own `--help` and `--version` left out), by long flag.
fn options(cli: &Command, name: &str) -> BTreeMap<String, Arg> {
    let sub = cli
        .find_subcommand(name)
        .unwrap_or_else(|| panic!("tephra has a `{name}` subcommand"));
    sub.get_arguments()
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
        .filter_map(|a| a.get_long().map(|l| (format!("--{l}"), a.clone())))
        .collect()
}

/// What is in one set and not the other, as a message naming each, or `None` when they agree.
fn difference(what: &str, doc: &BTreeSet<String>, code: &BTreeSet<String>) -> Option<String> {
    let missing: Vec<_> = code.difference(doc).collect();
    let absent: Vec<_> = doc.difference(code).collect();
    (!missing.is_empty() || !absent.is_empty()).then(|| {
        format!(
            "{what}: missing from docs/CONFIGURATION.md: {missing:?}; documented but not in the \
             code: {absent:?}"
        )
    })
}

/// The default as `--help` shows it, if the option has one and takes a value.
fn default_of(arg: &Arg) -> Option<String> {
    if !arg.get_action().takes_values() {
        return None;
    }
    let values: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    (!values.is_empty()).then(|| values.join(","))
}

/// Each documented default is clap's (`` `value` `` somewhere in the default cell).
fn defaults_agree(rows: &[Row], options: &BTreeMap<String, Arg>) -> Vec<String> {
    let mut wrong = Vec::new();
    for row in rows {
        for flag in &row.flags {
            let Some(default) = options.get(flag).and_then(default_of) else {
                continue;
            };
            if !code_spans(&row.default).contains(&default) {
                wrong.push(format!(
                    "{flag}: the default is `{default}`, the document says {:?}",
                    row.default
                ));
            }
        }
    }
    wrong
}

#[test]
fn every_serve_option_is_documented_with_its_variable_and_default() {
    let cli = Cli::command();
    let options = options(&cli, "serve");
    let rows = table(&document(), SERVE_HEADER, true);
    let mut problems = Vec::new();

    let doc_flags: BTreeSet<String> = rows.iter().flat_map(|r| r.flags.clone()).collect();
    let code_flags: BTreeSet<String> = options.keys().cloned().collect();
    problems.extend(difference("tephra serve flags", &doc_flags, &code_flags));

    let doc_envs: BTreeSet<String> = rows.iter().flat_map(|r| r.envs.clone()).collect();
    let code_envs: BTreeSet<String> = options
        .values()
        .filter_map(|a| a.get_env().map(|e| e.to_string_lossy().into_owned()))
        .collect();
    problems.extend(difference("tephra serve variables", &doc_envs, &code_envs));

    // Each row pairs its flags with its variables, in order.
    for row in &rows {
        if row.flags.len() != row.envs.len() {
            problems.push(format!(
                "the row of {:?} names {} flags and {} variables",
                row.flags,
                row.flags.len(),
                row.envs.len()
            ));
            continue;
        }
        for (flag, env) in row.flags.iter().zip(&row.envs) {
            let Some(arg) = options.get(flag) else {
                continue;
            };
            let actual = arg.get_env().map(|e| e.to_string_lossy().into_owned());
            if actual.as_deref() != Some(env.as_str()) {
                problems.push(format!(
                    "{flag}: the document gives the variable {env}, the code {actual:?}"
                ));
            }
        }
    }
    problems.extend(defaults_agree(&rows, &options));

    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_render_option_is_documented_with_its_default() {
    let cli = Cli::command();
    let options = options(&cli, "render");
    let rows = table(&document(), RENDER_HEADER, false);
    let mut problems = Vec::new();

    let doc_flags: BTreeSet<String> = rows.iter().flat_map(|r| r.flags.clone()).collect();
    let code_flags: BTreeSet<String> = options.keys().cloned().collect();
    problems.extend(difference("tephra render flags", &doc_flags, &code_flags));
    problems.extend(defaults_agree(&rows, &options));

    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
