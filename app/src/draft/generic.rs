//! A generic job in the form (T9k's GenericJob): the form's one spec is shared by every replica
//! type, and each type's row sets its name, replicas, restart policy and, where it differs, its
//! own command. In the draft a row's `spec` holds only what differs from the shared spec (a
//! `null` where the type lacks a shared key), so a stored generic job cloned into the form comes
//! back exactly.

use super::{Draft, fields};
use crate::key;
use serde_json::{Map, Value, json};
use tephra_core::model::training::generic::{GenericSpec, ReplicaSpec};
use tephra_core::model::training::request::{TrainingRequest, TrainingSpec};
use tephra_core::model::validation::FieldError;

/// The spec keys of a generic job beside the shared spec.
pub fn generic_keys() -> [String; 5] {
    [
        key!(GenericSpec.replica_specs),
        key!(GenericSpec.success_rules),
        key!(GenericSpec.failure_rules),
        key!(GenericSpec.run_mode),
        key!(GenericSpec.clean_up_policy),
    ]
}

/// `ReplicaSpec.kind` is written `type` (a Rust keyword); checked by a test below.
pub const TYPE_KEY: &str = "type";

fn own_spec_key() -> String {
    key!(ReplicaSpec.spec)
}

impl Draft {
    pub fn is_generic(&self) -> bool {
        self.get(&fields::spec().key(key!(GenericSpec.replica_specs)))
            .is_some()
    }

    /// Makes the request a generic job (one `worker` type, the spec shared) or a training.
    /// Distributed fields, completions and parallelism mean nothing to a generic job.
    pub fn set_generic(&mut self, on: bool) {
        if on == self.is_generic() {
            return;
        }
        let spec = fields::spec();
        if on {
            self.set_distributed(false);
            for key in [
                key!(TrainingSpec.completions),
                key!(TrainingSpec.parallelism),
            ] {
                self.set(&spec.key(key), None);
            }
            let row = json!({ TYPE_KEY: "worker", key!(ReplicaSpec.replicas): 1 });
            self.set(
                &spec.key(key!(GenericSpec.replica_specs)),
                Some(json!([row])),
            );
        } else {
            for key in generic_keys() {
                self.set(&spec.key(key), None);
            }
        }
    }

    /// The generic request: each replica type gets the shared spec with its own differences.
    pub(super) fn generic_request(&self) -> Value {
        let mut request = self.0.clone();
        let generic = generic_keys();
        let Some(Value::Object(spec)) = request.get_mut(&key!(TrainingRequest.spec)) else {
            return request;
        };
        let shared: Map<String, Value> = spec
            .iter()
            .filter(|(k, _)| !generic.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(Value::Array(rows)) = spec.get_mut(&generic[0]) {
            for row in rows.iter_mut().filter_map(Value::as_object_mut) {
                let mut own = shared.clone();
                if let Some(Value::Object(diff)) = row.get(&own_spec_key()) {
                    for (k, v) in diff {
                        match v {
                            Value::Null => own.remove(k),
                            v => own.insert(k.clone(), v.clone()),
                        };
                    }
                }
                row.insert(own_spec_key(), Value::Object(own));
            }
        }
        spec.retain(|k, _| generic.contains(k));
        request
    }

    /// A stored generic job as the form edits it: the first type's spec is shared, and each row
    /// keeps what its type has differently. `None` for any other request.
    pub(super) fn from_stored_generic(request: &Value) -> Option<Draft> {
        let spec_key = key!(TrainingRequest.spec);
        let rows = request
            .get(&spec_key)?
            .get(key!(GenericSpec.replica_specs))?
            .as_array()?;
        let shared = rows
            .first()
            .and_then(|r| r.get(own_spec_key()))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut draft = request.clone();
        let spec = draft.get_mut(&spec_key)?.as_object_mut()?;
        let rows = spec
            .get_mut(&key!(GenericSpec.replica_specs))?
            .as_array_mut()?;
        for row in rows.iter_mut().filter_map(Value::as_object_mut) {
            let own = row
                .get(&own_spec_key())
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut diff: Map<String, Value> = own
                .iter()
                .filter(|(k, v)| shared.get(*k) != Some(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            diff.extend(
                shared
                    .keys()
                    .filter(|k| !own.contains_key(*k))
                    .map(|k| (k.clone(), Value::Null)),
            );
            if diff.is_empty() {
                row.remove(&own_spec_key());
            } else {
                row.insert(own_spec_key(), Value::Object(diff));
            }
        }
        spec.extend(shared);
        Some(Draft(draft))
    }
}

/// An error about a replica's spec, placed where the form shows the field: a field the row sets
/// itself stays on the row; one that comes from the shared spec goes to the shared field.
pub(super) fn place_errors(draft: &Draft, errors: Vec<FieldError>) -> Vec<FieldError> {
    let prefix = format!("{}.{}[", fields::spec(), key!(GenericSpec.replica_specs));
    let mut placed: Vec<FieldError> = Vec::new();
    for mut error in errors {
        if let Some(rest) = error.path.strip_prefix(&prefix)
            && let Some((row, field)) = rest.split_once("].spec.")
            && let Ok(row) = row.parse::<usize>()
        {
            let key = field
                .split(['.', '['])
                .next()
                .unwrap_or_default()
                .to_owned();
            let own = fields::spec()
                .key(key!(GenericSpec.replica_specs))
                .index(row)
                .key(own_spec_key())
                .key(key);
            if draft.get(&own).is_none() {
                error.path = format!("{}.{field}", fields::spec());
            }
        }
        // Every type reports a shared field's error; one is enough.
        if !placed.iter().any(|e| e.path == error.path) {
            placed.push(error);
        }
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;
    use tephra_core::model::training::parse;

    fn stored() -> Value {
        json!({ "name": "j", "projectId": "p", "spec": {
            "replicaSpecs": [
                { "type": "ps", "spec": { "image": "x", "command": "python ps.py",
                                          "labels": [{ "name": "a", "value": "b" }] } },
                { "type": "worker", "replicas": 2,
                  "restartPolicy": { "policy": "OnFailure", "limit": 2 },
                  "spec": { "image": "x", "command": "python worker.py",
                            "compute": { "gpuDevicesRequest": 1 } } }],
            "successRules": [{ "ps": [0] }],
            "cleanUpPolicy": "Unfinished" } })
    }

    #[test]
    fn the_type_key_is_what_serde_writes() {
        let written = serde_json::to_value(ReplicaSpec::default()).unwrap();
        assert!(written.get(TYPE_KEY).is_some(), "{written}");
    }

    #[test]
    fn a_stored_generic_job_comes_back_exactly_through_the_form() {
        let draft = Draft::from_stored(&stored());
        assert!(draft.is_generic());
        assert_eq!(
            draft.kind(),
            tephra_core::model::kind::WorkloadKind::Generic
        );
        assert_eq!(
            draft.get(&fields::spec().key("command")),
            Some(&json!("python ps.py")),
            "the first type's spec is the shared one"
        );
        assert_eq!(
            draft.0["spec"]["replicaSpecs"][1]["spec"],
            json!({ "command": "python worker.py", "compute": { "gpuDevicesRequest": 1 },
                    "labels": null })
        );
        assert_eq!(draft.to_request(), stored());
        assert_eq!(draft.validate(), Ok(stored()));
    }

    #[test]
    fn turning_generic_on_and_off() {
        let mut draft = Draft::new("p");
        draft.set_name("j");
        draft.set(&fields::spec().key("image"), Some(json!("x")));
        draft.set(&fields::spec().key("parallelism"), Some(json!(2)));
        draft.set_generic(true);
        assert_eq!(
            draft.to_request()["spec"],
            json!({ "replicaSpecs": [{ "type": "worker", "replicas": 1,
                                       "spec": { "image": "x" } }] })
        );
        assert!(parse::generic(&draft.to_request()).is_ok());
        draft.set_distributed(true);
        assert!(!draft.is_generic() && draft.is_distributed());
        draft.set_generic(true);
        assert!(draft.is_generic() && !draft.is_distributed());
        draft.set_generic(false);
        assert_eq!(
            draft.kind(),
            tephra_core::model::kind::WorkloadKind::Training
        );
    }

    #[test]
    fn a_shared_fields_error_shows_at_the_shared_field_once() {
        let mut request = stored();
        request["spec"]["replicaSpecs"][0]["spec"]["image"] = json!("");
        request["spec"]["replicaSpecs"][1]["spec"]["image"] = json!("");
        let draft = Draft::from_stored(&request);
        let errors = draft.validate().unwrap_err();
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["spec.image"]);
    }
}
