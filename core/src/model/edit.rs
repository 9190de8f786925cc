//! Changes to a live training, after seeds/001: what Volcano lets change on a running Job (the
//! workers' count, the gang, the priority class). Anything else is "clone and resubmit".

use crate::model::validation::FieldError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The fields an edit may set, in Run:ai's names.
pub const EDITABLE: [&str; 3] = ["numWorkers", "minReplicas", "priorityClass"];

/// An edit as the API and the detail page send it: each field left out stays as it is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    /// Distributed trainings: how many workers run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_workers: Option<i64>,
    /// Distributed trainings: how many workers the gang needs to start (with the master).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i64>,
    /// Run:ai's priority class name (`train`, `build`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class: Option<String>,
}

impl Edit {
    /// Reads an edit, naming every field that cannot change on a live training.
    pub fn parse(body: &Value) -> Result<Edit, Vec<FieldError>> {
        let Some(object) = body.as_object() else {
            return Err(vec![FieldError {
                path: String::new(),
                message: format!("must be an object with any of {}", EDITABLE.join(", ")),
            }]);
        };
        let fixed: Vec<FieldError> = object
            .keys()
            .filter(|key| !EDITABLE.contains(&key.as_str()))
            .map(|key| FieldError {
                path: key.clone(),
                message: format!(
                    "cannot change on a live training: only {} can; clone the training and \
                     submit the copy to change anything else",
                    EDITABLE.join(", ")
                ),
            })
            .collect();
        if !fixed.is_empty() {
            return Err(fixed);
        }
        let mut errors = Vec::new();
        let edit = Edit {
            num_workers: field(object, "numWorkers", WHOLE, Value::as_i64, &mut errors),
            min_replicas: field(object, "minReplicas", WHOLE, Value::as_i64, &mut errors),
            priority_class: field(
                object,
                "priorityClass",
                "a priority class name",
                |v| v.as_str().map(str::to_owned),
                &mut errors,
            ),
        };
        if errors.is_empty() {
            Ok(edit)
        } else {
            Err(errors)
        }
    }

    pub fn is_empty(&self) -> bool {
        self == &Edit::default()
    }

    /// The stored request with this edit applied; it is validated like any request before it
    /// is stored.
    pub fn apply(&self, distributed: bool, request: &Value) -> Result<Value, Vec<FieldError>> {
        let mut errors = Vec::new();
        if !distributed {
            for (field, set) in [
                ("numWorkers", self.num_workers.is_some()),
                ("minReplicas", self.min_replicas.is_some()),
            ] {
                if set {
                    errors.push(FieldError {
                        path: field.into(),
                        message: "only distributed trainings have workers to scale; clone the \
                                  training and change its pods in the copy"
                            .into(),
                    });
                }
            }
        }
        if self.is_empty() {
            errors.push(FieldError {
                path: String::new(),
                message: format!("changes nothing: set any of {}", EDITABLE.join(", ")),
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut edited = request.clone();
        let Some(spec) = edited.get_mut("spec").and_then(Value::as_object_mut) else {
            return Err(vec![FieldError {
                path: "spec".into(),
                message: "the stored request has no spec to edit".into(),
            }]);
        };
        set(spec, "numWorkers", self.num_workers.map(Value::from));
        set(spec, "minReplicas", self.min_replicas.map(Value::from));
        set(
            spec,
            "priorityClass",
            self.priority_class.clone().map(Value::from),
        );
        Ok(edited)
    }
}

const WHOLE: &str = "a whole number";

/// The value of `key`, if given; one of another type is named with what it must be.
fn field<T>(
    object: &Map<String, Value>,
    key: &str,
    wanted: &str,
    read: fn(&Value) -> Option<T>,
    errors: &mut Vec<FieldError>,
) -> Option<T> {
    let value = object.get(key).filter(|v| !v.is_null())?;
    let read = read(value);
    if read.is_none() {
        errors.push(FieldError {
            path: key.into(),
            message: format!("must be {wanted} (got {value})"),
        });
    }
    read
}

fn set(spec: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        spec.insert(key.into(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_editable_fields_are_read_and_the_rest_named() {
        let edit = Edit::parse(&json!({ "numWorkers": 3, "priorityClass": "build" })).unwrap();
        assert_eq!(edit.num_workers, Some(3));
        let refused = Edit::parse(&json!({ "image": "x", "numWorkers": 3 })).unwrap_err();
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].path, "image");
        assert!(
            refused[0]
                .message
                .starts_with("cannot change on a live training")
        );
        let refused = Edit::parse(&json!({ "numWorkers": "three" })).unwrap_err();
        assert_eq!(refused[0].path, "numWorkers");
        assert_eq!(refused[0].message, "must be a whole number (got \"three\")");
        assert!(Edit::parse(&json!([1])).is_err());
    }

    #[test]
    fn an_edit_sets_its_fields_in_the_stored_request() {
        let stored = json!({ "name": "ddp", "projectId": "p",
            "spec": { "image": "x", "numWorkers": 2, "distributedFramework": "PyTorch" } });
        let edit = Edit {
            num_workers: Some(4),
            min_replicas: Some(2),
            ..Edit::default()
        };
        let edited = edit.apply(true, &stored).unwrap();
        assert_eq!(edited["spec"]["numWorkers"], 4);
        assert_eq!(edited["spec"]["minReplicas"], 2);
        assert_eq!(edited["spec"]["image"], "x");
    }

    #[test]
    fn a_training_has_no_workers_to_scale_and_an_empty_edit_changes_nothing() {
        let stored = json!({ "name": "t", "projectId": "p", "spec": { "image": "x" } });
        let refused = Edit {
            num_workers: Some(2),
            ..Edit::default()
        }
        .apply(false, &stored)
        .unwrap_err();
        assert_eq!(refused[0].path, "numWorkers");
        let refused = Edit::default().apply(true, &stored).unwrap_err();
        assert!(refused[0].message.starts_with("changes nothing"));
        let priority = Edit {
            priority_class: Some("build".into()),
            ..Edit::default()
        };
        assert_eq!(
            priority.apply(false, &stored).unwrap()["spec"]["priorityClass"],
            "build"
        );
    }
}
