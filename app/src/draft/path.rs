//! Where a field lives in the request's JSON, named through the request types themselves.
//!
//! A form field is never spelled as a JSON key: [`key!`](crate::key) takes a request type and one
//! of its Rust fields, proves at compile time that the field exists, and turns its name into the
//! key serde writes (every request type is `rename_all = "camelCase"`; a unit test holds every
//! key the form uses against the types' own serialization). Renaming a field in the request
//! types therefore breaks the form's build instead of silently posting a key the API ignores.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One step into a JSON document: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// A path from the request's root, e.g. `spec.tolerations[0].value`: the same text the request
/// validator reports errors under, so a field finds its own messages by comparing paths.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Path(Vec<Step>);

impl Path {
    /// The request itself.
    pub fn root() -> Path {
        Path::default()
    }

    /// This path, one key further.
    pub fn key(&self, key: impl Into<String>) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Key(key.into()));
        Path(steps)
    }

    /// This path, one array element further.
    pub fn index(&self, i: usize) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Index(i));
        Path(steps)
    }

    pub fn steps(&self) -> &[Step] {
        &self.0
    }

    /// The last key, if the path ends in one.
    pub fn last_key(&self) -> Option<&str> {
        match self.0.last() {
            Some(Step::Key(k)) => Some(k),
            _ => None,
        }
    }

    /// The path with `.` between every step (`spec.tolerations.0.value`): brackets cannot appear
    /// inside the bracketed name an HTML form posts a field under.
    pub fn dotted(&self) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Step::Key(k) => k.clone(),
                Step::Index(i) => i.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".")
    }

    /// Reads [`Path::dotted`] back. Every all-digit step is an index: no request key is a number.
    pub fn from_dotted(text: &str) -> Path {
        Path(
            text.split('.')
                .filter(|s| !s.is_empty())
                .map(|s| match s.parse() {
                    Ok(i) => Step::Index(i),
                    Err(_) => Step::Key(s.to_owned()),
                })
                .collect(),
        )
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if n == 0 => f.write_str(k)?,
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// The JSON key serde writes for a Rust field of a `rename_all = "camelCase"` type. A raw
/// identifier (`r#type`) is written without its prefix, as serde does.
pub fn camel(field: &str) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    let mut key = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            // Rust field names are ASCII; `to_uppercase` would ship Unicode case tables in every page.
            key.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            key.push(c);
        }
    }
    key
}

/// The JSON key of `Type.field`, checked against the type: `key!(Compute.gpu_devices_request)`
/// is `"gpuDevicesRequest"`, and does not compile if `Compute` has no such field.
#[macro_export]
macro_rules! key {
    ($ty:ident . $field:ident) => {{
        let _field_exists = |v: &$ty| {
            let _ = &v.$field;
        };
        $crate::draft::path::camel(stringify!($field))
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_reads_as_the_validator_writes_it() {
        let path = Path::root()
            .key("spec")
            .key("tolerations")
            .index(0)
            .key("value");
        assert_eq!(path.to_string(), "spec.tolerations[0].value");
        assert_eq!(path.dotted(), "spec.tolerations.0.value");
        assert_eq!(Path::from_dotted(&path.dotted()), path);
    }

    #[test]
    fn rust_field_names_become_serde_camel_case_keys() {
        assert_eq!(camel("gpu_devices_request"), "gpuDevicesRequest");
        assert_eq!(camel("image"), "image");
        assert_eq!(camel("r#type"), "type");
        assert_eq!(camel("s3"), "s3");
    }
}
