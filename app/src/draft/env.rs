//! An environment variable's value: typed, or taken from a key of a secret.

use super::{Draft, Path};
use crate::key;
use serde_json::{Map, Value};
use tephra_core::model::training::request::{EnvironmentVariable, SecretKeyRef};

impl Draft {
    /// Whether the variable in row `row` takes its value from a secret.
    pub fn from_secret(&self, row: &Path) -> bool {
        self.get(&row.key(key!(EnvironmentVariable.secret)))
            .is_some()
    }

    /// Takes the variable in row `row` from a secret (blank, so the validator names what is
    /// missing) or makes it typed again (empty). A row that is not there is not made.
    pub fn set_from_secret(&mut self, row: &Path, on: bool) {
        let value = row.key(key!(EnvironmentVariable.value));
        let secret = row.key(key!(EnvironmentVariable.secret));
        if on {
            let blank: Map<String, Value> = [key!(SecretKeyRef.name), key!(SecretKeyRef.key)]
                .into_iter()
                .map(|k| (k, Value::String(String::new())))
                .collect();
            self.set(&value, None);
            self.set(&secret, Some(Value::Object(blank)));
        } else {
            self.set(&secret, None);
            self.set(&value, Some(Value::String(String::new())));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draft::fields::spec;
    use serde_json::json;
    use tephra_core::model::training::request::TrainingSpec;

    #[test]
    fn a_variable_moves_between_typed_and_secret() {
        let mut draft = Draft::new("default");
        let list = spec().key(key!(TrainingSpec.environment_variables));
        draft.push_row(&list, json!({"name": "TOKEN", "value": "x"}));
        let row = list.index(0);
        draft.set_from_secret(&row, true);
        assert!(draft.from_secret(&row));
        assert_eq!(draft.get(&row.key("value")), None);
        draft.set_from_secret(&row, false);
        assert!(!draft.from_secret(&row));
        assert_eq!(draft.text(&row.key("value")), "");
        // A row that is not there stays absent.
        draft.set_from_secret(&list.index(5), true);
        assert_eq!(draft.rows(&list), 1);
    }
}
