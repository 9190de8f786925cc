//! How a form input's text becomes a JSON value, and back.
//!
//! The conversion never fails: what does not fit the field's type is written as the typed text,
//! so the strict request parser (the API's own) names the field and says what it wants.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a field's text maps to its JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// Trimmed text; blank is absent.
    Text,
    /// Trimmed text, always written: a blank one is named by the validator ("is required").
    Required,
    /// Text as typed, spaces and blank included: values of variables and annotations may mean
    /// their spaces, and an empty value is a value.
    Verbatim,
    /// A number when the text is one; blank is absent; anything else stays text.
    Number,
    /// Comma-separated items as an array of strings; none is absent.
    List,
    /// A checkbox whose unchecked state is the API's default: `true` or absent.
    Flag,
    /// A checkbox the API reads either way: `true` or `false`.
    Bool,
    /// A choice of `true`, `false` or blank (absent, the default).
    Choice,
}

impl Kind {
    /// The JSON value `text` is for this kind of field; `None` is absent.
    pub fn value(self, text: &str) -> Option<Value> {
        let trimmed = text.trim();
        match self {
            Kind::Verbatim => Some(Value::String(text.to_owned())),
            Kind::Required => Some(Value::String(trimmed.to_owned())),
            _ if trimmed.is_empty() => match self {
                Kind::Bool => Some(Value::Bool(false)),
                _ => None,
            },
            Kind::Text => Some(Value::String(trimmed.to_owned())),
            Kind::Number => Some(number(trimmed)),
            Kind::List => {
                let items: Vec<Value> = trimmed
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| Value::String(s.to_owned()))
                    .collect();
                (!items.is_empty()).then_some(Value::Array(items))
            }
            Kind::Flag => (trimmed == "true").then_some(Value::Bool(true)),
            Kind::Bool | Kind::Choice => Some(match trimmed {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                other => Value::String(other.to_owned()),
            }),
        }
    }

    /// What an unchecked checkbox of this kind writes.
    pub fn unchecked(self) -> Option<Value> {
        self.value("")
    }

    /// The one-letter code a field's posted name carries, so a form posted without JavaScript
    /// converts each value as the field would have.
    pub fn code(self) -> char {
        match self {
            Kind::Text => 't',
            Kind::Required => 'r',
            Kind::Verbatim => 'v',
            Kind::Number => 'n',
            Kind::List => 'l',
            Kind::Flag => 'f',
            Kind::Bool => 'b',
            Kind::Choice => 'c',
        }
    }

    pub fn from_code(code: char) -> Option<Kind> {
        [
            Kind::Text,
            Kind::Required,
            Kind::Verbatim,
            Kind::Number,
            Kind::List,
            Kind::Flag,
            Kind::Bool,
            Kind::Choice,
        ]
        .into_iter()
        .find(|k| k.code() == code)
    }
}

fn number(text: &str) -> Value {
    if let Ok(n) = text.parse::<i64>() {
        return Value::from(n);
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => Value::from(f),
        _ => Value::String(text.to_owned()),
    }
}

/// A stored value as the text an input shows.
pub fn shown(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| shown(Some(v)))
            .filter(|item| !item.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        // A list item in Run:ai's object form (an image pull secret) shows as its name; an
        // excluded one is left out, as the request leaves it out.
        Some(Value::Object(item)) if item.get("exclude") != Some(&Value::Bool(true)) => {
            shown(item.get("name"))
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_numbers_and_anything_else_stays_text_for_the_parser_to_name() {
        assert_eq!(Kind::Number.value("2"), Some(json!(2)));
        assert_eq!(Kind::Number.value(" 0.5 "), Some(json!(0.5)));
        assert_eq!(Kind::Number.value("two"), Some(json!("two")));
        assert_eq!(Kind::Number.value("inf"), Some(json!("inf")));
        assert_eq!(Kind::Number.value("  "), None);
    }

    #[test]
    fn blank_is_absent_except_where_blank_means_something() {
        assert_eq!(Kind::Text.value(" "), None);
        assert_eq!(Kind::Required.value(" "), Some(json!("")));
        assert_eq!(Kind::Verbatim.value(" a "), Some(json!(" a ")));
        assert_eq!(Kind::Bool.value(""), Some(json!(false)));
        assert_eq!(Kind::Flag.value(""), None);
        assert_eq!(Kind::Choice.value(""), None);
    }

    #[test]
    fn lists_and_choices() {
        assert_eq!(
            Kind::List.value("SYS_PTRACE, NET_ADMIN,"),
            Some(json!(["SYS_PTRACE", "NET_ADMIN"]))
        );
        assert_eq!(Kind::Choice.value("false"), Some(json!(false)));
        assert_eq!(Kind::Choice.value("maybe"), Some(json!("maybe")));
        assert_eq!(shown(Some(&json!(["a", "b"]))), "a, b");
        assert_eq!(
            shown(Some(
                &json!(["a", { "name": "b" }, { "name": "c", "exclude": true }])
            )),
            "a, b"
        );
    }

    #[test]
    fn every_kind_has_its_own_code() {
        for kind in "trvnlfbc".chars().filter_map(Kind::from_code) {
            assert_eq!(Kind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(Kind::from_code('x'), None);
    }
}
