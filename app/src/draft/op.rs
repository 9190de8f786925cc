//! What a button of the form asks besides its fields: add a row to a list, remove one, take a
//! variable from a secret or type it, add the volume kind chosen, show the preview or hide it.
//!
//! A button posts its operation as `draft[~op]` (see [`super::posted`]), so the same edit works
//! with scripts, where the page asks the server to draw the form again, and without, where the
//! server sends the browser back to the form with the edit made. The text is the button's value
//! and comes from the browser: it is parsed here once and never trusted beyond the draft, which
//! the browser writes anyway.

use super::Draft;
use super::path::Path;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Appends `row` to the list at `list`.
    Add { list: Path, row: Value },
    /// Removes row `index` of the list at `list`.
    Remove { list: Path, index: usize },
    /// A variable's value taken from a secret (`on`) or typed.
    FromSecret { row: Path, on: bool },
    /// Adds a volume of the kind chosen beside the button (`draft[~volume]`).
    AddVolume,
    /// Opens or closes the preview.
    Preview(bool),
}

impl Op {
    /// Reads a button's value; `None` for anything else.
    pub fn parse(text: &str) -> Option<Op> {
        let mut words = text.splitn(3, ' ');
        let op = match (words.next()?, words.next(), words.next()) {
            ("add", Some(list), Some(row)) => Op::Add {
                list: Path::from_dotted(list),
                row: serde_json::from_str(row).ok().filter(Value::is_object)?,
            },
            ("remove", Some(list), Some(index)) => Op::Remove {
                list: Path::from_dotted(list),
                index: index.parse().ok()?,
            },
            ("secret", Some(row), Some(on)) => Op::FromSecret {
                row: Path::from_dotted(row),
                on: switch(on)?,
            },
            ("volume", None, None) => Op::AddVolume,
            ("preview", Some(on), None) => Op::Preview(switch(on)?),
            _ => return None,
        };
        Some(op)
    }

    /// The value of the button that asks for it.
    pub fn code(&self) -> String {
        let word = |on: bool| if on { "on" } else { "off" };
        match self {
            Op::Add { list, row } => format!("add {} {row}", list.dotted()),
            Op::Remove { list, index } => format!("remove {} {index}", list.dotted()),
            Op::FromSecret { row, on } => format!("secret {} {}", row.dotted(), word(*on)),
            Op::AddVolume => "volume".to_owned(),
            Op::Preview(on) => format!("preview {}", word(*on)),
        }
    }

    /// Makes the edit. `Preview` and `AddVolume` are the caller's: one changes how the form is
    /// shown, the other reads the kind chosen.
    pub fn apply(&self, draft: &mut Draft) {
        match self {
            Op::Add { list, row } => draft.push_row(list, row.clone()),
            Op::Remove { list, index } => draft.remove_row(list, *index),
            Op::FromSecret { row, on } => draft.set_from_secret(row, *on),
            Op::AddVolume | Op::Preview(_) => {}
        }
    }
}

fn switch(word: &str) -> Option<bool> {
    match word {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_operation_reads_back_as_written() {
        let list = Path::root().key("spec").key("tolerations");
        for op in [
            Op::Add {
                list: list.clone(),
                row: json!({"key": "a b", "operator": ""}),
            },
            Op::Remove {
                list: list.clone(),
                index: 3,
            },
            Op::FromSecret {
                row: list.index(0),
                on: true,
            },
            Op::AddVolume,
            Op::Preview(false),
        ] {
            assert_eq!(Op::parse(&op.code()), Some(op));
        }
    }

    #[test]
    fn anything_else_is_no_operation() {
        for text in [
            "",
            "add spec.tolerations",
            "add spec.tolerations [1]",
            "add spec.tolerations {",
            "remove spec.tolerations x",
            "remove spec.tolerations -1",
            "secret spec.environmentVariables.0 maybe",
            "preview",
            "volume now",
            "drop table",
        ] {
            assert_eq!(Op::parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn adding_and_removing_rows_edits_the_draft() {
        let mut draft = Draft::new("default");
        let list = Path::root().key("spec").key("tolerations");
        let add = Op::parse(&format!("add {} {{\"key\":\"\"}}", list.dotted())).unwrap();
        add.apply(&mut draft);
        add.apply(&mut draft);
        assert_eq!(draft.rows(&list), 2);
        Op::Remove {
            list: list.clone(),
            index: 0,
        }
        .apply(&mut draft);
        assert_eq!(draft.rows(&list), 1);
    }
}
