//! A policy checked against the request it governs. Its defaults and rules name fields by path
//! below the request's `spec`; a path the request does not have, or a rule that cannot apply to
//! its field's type (a `min` on a string, `canAdd` on a single value), would never refuse
//! anything, so an administrator who mistypes `hostNetwrk` would believe a lock holds that does
//! not. The request's shape comes from the types' OpenAPI schemas, so it cannot drift from them.

use crate::domain::policy::{PolicyKind, Rule};
use crate::model::training::distributed::DistributedSpec;
use crate::model::training::request::TrainingSpec;
use crate::model::validation::FieldError;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

/// The type of one field of the request, as far as a policy cares.
#[derive(Debug, Clone, PartialEq)]
enum Field {
    Object(BTreeMap<String, Value>),
    Array(Value),
    Text(Option<Vec<Value>>),
    Integer,
    Number,
    Boolean,
    /// A field whose schema says nothing of its type (free-form JSON).
    Any,
}

impl Field {
    fn describe(&self) -> String {
        match self {
            Field::Object(_) => "an object".into(),
            Field::Array(_) => "a list".into(),
            Field::Text(Some(values)) => format!("one of {}", listed(values)),
            Field::Text(None) => "a string".into(),
            Field::Integer => "a whole number".into(),
            Field::Number => "a number".into(),
            Field::Boolean => "true or false".into(),
            Field::Any => "any value".into(),
        }
    }

    fn admits(&self, value: &Value) -> bool {
        match (self, value) {
            (_, Value::Null) | (Field::Any, _) => true,
            (Field::Object(_), Value::Object(_)) | (Field::Array(_), Value::Array(_)) => true,
            (Field::Text(Some(values)), v) => values.contains(v),
            (Field::Text(None), Value::String(_)) | (Field::Boolean, Value::Bool(_)) => true,
            (Field::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
            (Field::Number, Value::Number(_)) => true,
            _ => false,
        }
    }
}

fn listed(values: &[Value]) -> String {
    let names: Vec<String> = values.iter().map(ToString::to_string).collect();
    names.join(", ")
}

/// The schema of one kind of request's `spec`, with the schemas it refers to.
pub struct RequestSchema {
    root: Value,
    components: BTreeMap<String, Value>,
    /// How messages name the spec: "a training's spec".
    noun: &'static str,
}

impl RequestSchema {
    /// The spec a policy of `kind` governs.
    pub fn for_kind(kind: PolicyKind) -> RequestSchema {
        match kind {
            PolicyKind::Distributed => Self::of::<DistributedSpec>("a distributed training's spec"),
            PolicyKind::Trainings => Self::of::<TrainingSpec>("a training's spec"),
        }
    }

    fn of<T: ToSchema>(noun: &'static str) -> RequestSchema {
        let mut schemas: Vec<(String, RefOr<Schema>)> = Vec::new();
        T::schemas(&mut schemas);
        let json = |s: &RefOr<Schema>| serde_json::to_value(s).unwrap_or(Value::Null);
        RequestSchema {
            root: json(&T::schema()),
            components: schemas.iter().map(|(n, s)| (n.clone(), json(s))).collect(),
            noun,
        }
    }

    /// Follows references and unions (`Option<T>` is `T` or null; `flatten` is `allOf`) to the
    /// field's type.
    fn field(&self, schema: &Value) -> Field {
        if let Some(name) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
        {
            return self
                .components
                .get(name)
                .map_or(Field::Any, |s| self.field(s));
        }
        let mut properties = BTreeMap::new();
        for union in ["allOf", "oneOf", "anyOf"] {
            for member in schema
                .get(union)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match self.field(member) {
                    Field::Object(p) => properties.extend(p),
                    Field::Any => {}
                    other if properties.is_empty() => return other,
                    _ => {}
                }
            }
        }
        if let Some(Value::Object(own)) = schema.get("properties") {
            properties.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if !properties.is_empty() {
            return Field::Object(properties);
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let enumerated = schema.get("enum").and_then(Value::as_array).cloned();
        match types.iter().find(|t| **t != "null").copied() {
            Some("array") => Field::Array(schema.get("items").cloned().unwrap_or(Value::Null)),
            Some("string") => Field::Text(enumerated),
            Some("integer") => Field::Integer,
            Some("number") => Field::Number,
            Some("boolean") => Field::Boolean,
            Some("object") => Field::Object(BTreeMap::new()),
            _ if enumerated.is_some() => Field::Text(enumerated),
            _ => Field::Any,
        }
    }

    /// The field at dotted `path` below the spec; a list's entries' fields are named through it
    /// (`storage.hostPath.readOnly`), as policies name them.
    fn at(&self, path: &str) -> Option<Field> {
        let mut field = self.field(&self.root);
        for key in path.split('.') {
            if let Field::Array(items) = &field {
                field = self.field(items);
            }
            field = match &field {
                Field::Object(props) if props.is_empty() => Field::Any,
                Field::Object(props) => self.field(props.get(key)?),
                Field::Any => Field::Any,
                _ => return None,
            };
        }
        Some(field)
    }

    /// Every default and rule of a policy body whose path the request lacks or whose value
    /// does not fit the field there, by the path in the body.
    pub fn refusals(&self, defaults: &Value, rules: &[(String, Rule)]) -> Vec<FieldError> {
        let mut errors = Vec::new();
        if let Value::Object(map) = defaults {
            self.check_defaults(map, "", "policy.defaults", &mut errors);
        }
        for (path, rule) in rules {
            self.check_rule(path, rule, &mut errors);
        }
        errors
    }

    fn unknown(&self, at: String, path: &str) -> FieldError {
        FieldError {
            path: at,
            message: format!("{path} is not a field of {}", self.noun),
        }
    }

    fn check_defaults(
        &self,
        map: &Map<String, Value>,
        prefix: &str,
        at_prefix: &str,
        errors: &mut Vec<FieldError>,
    ) {
        for (key, value) in map {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            let at = format!("{at_prefix}.{key}");
            let Some(field) = self.at(&path) else {
                errors.push(self.unknown(at, &path));
                continue;
            };
            self.check_value(&field, value, &path, at, errors);
        }
    }

    fn check_value(
        &self,
        field: &Field,
        value: &Value,
        path: &str,
        at: String,
        errors: &mut Vec<FieldError>,
    ) {
        if !field.admits(value) {
            errors.push(FieldError {
                path: at,
                message: format!(
                    "must be {} here, as {path} is in the request",
                    field.describe()
                ),
            });
            return;
        }
        match (field, value) {
            (Field::Object(props), Value::Object(map)) if !props.is_empty() => {
                self.check_defaults(map, path, &at, errors)
            }
            (Field::Array(items), Value::Array(entries)) => {
                let item = self.field(items);
                for (i, entry) in entries.iter().enumerate() {
                    self.check_value(&item, entry, path, format!("{at}[{i}]"), errors);
                }
            }
            _ => {}
        }
    }

    fn check_rule(&self, path: &str, rule: &Rule, errors: &mut Vec<FieldError>) {
        let at = |keyword: &str| format!("policy.rules.{path}.{keyword}");
        let Some(field) = self.at(path) else {
            errors.push(self.unknown(format!("policy.rules.{path}"), path));
            return;
        };
        let numeric = matches!(field, Field::Integer | Field::Number | Field::Any);
        for (keyword, set) in [("min", rule.min), ("max", rule.max), ("step", rule.step)] {
            if set.is_some() && !numeric {
                errors.push(FieldError {
                    path: at(keyword),
                    message: format!(
                        "applies to numbers only, and {path} is {}",
                        field.describe()
                    ),
                });
            }
        }
        if rule.can_add.is_some() && !matches!(field, Field::Array(_) | Field::Any) {
            errors.push(FieldError {
                path: at("canAdd"),
                message: format!("applies to lists only, and {path} is {}", field.describe()),
            });
        }
        if rule.registries.is_some() && !path.ends_with("image") {
            errors.push(FieldError {
                path: at("registries"),
                message: format!("applies to an image only, and {path} is not one"),
            });
        }
        let entry = match &field {
            Field::Array(items) => self.field(items),
            other => other.clone(),
        };
        for (i, option) in rule.options.iter().flatten().enumerate() {
            let value = option.get("value").unwrap_or(option);
            if !entry.admits(value) {
                errors.push(FieldError {
                    path: format!("{}[{i}]", at("options")),
                    message: format!(
                        "{value} cannot be a value of {path}, which is {}",
                        entry.describe()
                    ),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::policy::{Policy, PolicyKind, node_protection};
    use serde_json::json;

    fn refused(kind: PolicyKind, body: Value) -> Vec<(String, String)> {
        let policy = Policy::parse("p", &body).expect("parses");
        RequestSchema::for_kind(kind)
            .refusals(&policy.defaults, &policy.rules)
            .into_iter()
            .map(|e| (e.path, e.message))
            .collect()
    }

    #[test]
    fn the_request_shape_is_read_from_its_types() {
        let trainings = RequestSchema::for_kind(PolicyKind::Trainings);
        assert_eq!(trainings.at("security.hostNetwork"), Some(Field::Boolean));
        assert_eq!(trainings.at("security.runAsUid"), Some(Field::Integer));
        assert_eq!(trainings.at("image"), Some(Field::Text(None)));
        assert!(matches!(
            trainings.at("storage.hostPath"),
            Some(Field::Array(_))
        ));
        assert_eq!(
            trainings.at("storage.hostPath.readOnly"),
            Some(Field::Boolean)
        );
        assert_eq!(trainings.at("security.hostNetwrk"), None);
        let distributed = RequestSchema::for_kind(PolicyKind::Distributed);
        assert_eq!(distributed.at("numWorkers"), Some(Field::Integer));
        assert_eq!(
            distributed.at("master.security.hostIpc"),
            Some(Field::Boolean)
        );
        assert_eq!(distributed.at("security.hostIpc"), Some(Field::Boolean));
        assert_eq!(trainings.at("numWorkers"), None);
    }

    #[test]
    fn node_protection_and_run_ai_policies_fit_both_kinds() {
        for kind in PolicyKind::ALL {
            assert_eq!(refused(kind, node_protection()), vec![], "{kind}");
            let body = json!({
                "defaults": { "image": "python:3.12", "compute": { "cpuCoreRequest": 1 },
                              "storage": { "hostPath": [{ "name": "d", "path": "/data",
                                                          "mountPath": "/d", "readOnly": true }] } },
                "rules": { "compute": { "gpuDevicesRequest": { "min": 0, "max": 8 } },
                           "image": { "registries": ["registry.example.org/"] },
                           "imagePullPolicy": { "options": [{ "value": "Always", "displayed": "always" }] } }
            });
            assert_eq!(refused(kind, body), vec![], "{kind}");
        }
    }

    #[test]
    fn a_path_the_request_lacks_or_a_rule_that_cannot_apply_is_named() {
        let body = json!({
            "defaults": { "security": { "hostNetwrk": true, "runAsUid": "root" },
                          "storage": { "hostPath": [{ "path": 7 }] } },
            "rules": { "image": { "min": 1 }, "security": { "hostNetwork": { "canAdd": false },
                                                            "hostIpc": { "options": ["yes"] } },
                       "tolerations": { "registries": ["r/"] }, "gpus": { "max": 2 } }
        });
        let mut paths: Vec<String> = refused(PolicyKind::Trainings, body)
            .into_iter()
            .map(|e| e.0)
            .collect();
        paths.sort();
        assert_eq!(
            paths,
            [
                "policy.defaults.security.hostNetwrk",
                "policy.defaults.security.runAsUid",
                "policy.defaults.storage.hostPath[0].path",
                "policy.rules.gpus",
                "policy.rules.image.min",
                "policy.rules.security.hostIpc.options[0]",
                "policy.rules.security.hostNetwork.canAdd",
                "policy.rules.tolerations.registries",
            ]
        );
    }
}
