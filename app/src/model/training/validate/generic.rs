//! Generic multi-replica requests: every replica type's spec is a training spec under its own
//! path. The rules of the generic form itself live beside its types, in `generic::validate_spec`.

use super::header::header;
use super::spec::spec;
use crate::model::training::generic::{GenericRequest, validate_spec};
use crate::model::validation::{Errors, FieldError};

pub fn generic(req: &GenericRequest) -> Result<(), Vec<FieldError>> {
    let mut errors = Errors::default();
    header(
        &mut errors,
        &req.name,
        req.use_given_name_as_prefix,
        &req.project_id,
        &req.cluster_id,
    );
    for (i, replica) in req.spec.replica_specs.iter().enumerate() {
        spec(
            &mut errors,
            &replica.spec,
            &format!("spec.replicaSpecs[{i}].spec"),
            true,
        );
    }
    validate_spec(&mut errors, &req.spec);
    errors.into_result()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepted_by, assert_one, paths, refused_by};
    use crate::model::training::parse;
    use crate::model::validation::FieldError;
    use serde_json::{Value, json};

    /// A valid generic job with one `worker` replica type, with `fields` added to or replacing
    /// its spec's.
    fn request(fields: Value) -> Value {
        let mut spec = json!({ "replicaSpecs": [{ "type": "worker", "replicas": 2, "spec": { "image": "x" } }] });
        if let (Value::Object(spec), Value::Object(fields)) = (&mut spec, fields) {
            spec.extend(fields);
        }
        json!({ "name": "job", "projectId": "p", "spec": spec })
    }

    fn accepts(fields: Value) {
        accepted_by(parse::generic, request(fields));
    }

    fn refused(fields: Value) -> Vec<FieldError> {
        refused_by(parse::generic, request(fields))
    }

    fn refuses(fields: Value, path: &str, part: &str) {
        assert_one(&refused(fields), path, part);
    }

    fn replicas(specs: Value) -> Value {
        json!({ "replicaSpecs": specs })
    }

    #[test]
    fn the_header_and_each_replica_spec_are_checked_under_their_paths() {
        accepts(json!({}));
        let errors = parse::generic(&json!({ "name": "Bad_Name", "projectId": "p",
            "clusterId": "c", "spec": { "replicaSpecs": [
                { "type": "ps", "spec": { "image": "x" } },
                { "type": "worker", "spec": { "workingDir": "w" } }] } }))
        .unwrap_err();
        assert_eq!(
            paths(&errors),
            [
                "name",
                "clusterId",
                "spec.replicaSpecs[1].spec.image",
                "spec.replicaSpecs[1].spec.workingDir"
            ]
        );
    }

    // The rules below are the generic form's own (`generic::validate_spec`); this entry point is
    // their only caller.

    #[test]
    fn there_is_at_least_one_replica_type() {
        refuses(
            replicas(json!([])),
            "spec.replicaSpecs",
            "must list at least one replica type",
        );
    }

    #[test]
    fn replica_types_are_short_distinct_labels() {
        accepts(replicas(json!([
            { "type": "ps", "spec": { "image": "x" } },
            { "type": "worker123", "spec": { "image": "x" } }])));
        refuses(
            replicas(json!([{ "type": "worker1234", "spec": { "image": "x" } }])),
            "spec.replicaSpecs[0].type",
            "must be 1 to 9 lowercase letters",
        );
        refuses(
            replicas(json!([
                { "type": "w", "spec": { "image": "x" } },
                { "type": "w", "spec": { "image": "y" } }])),
            "spec.replicaSpecs[1].type",
            "\"w\" is used twice",
        );
    }

    #[test]
    fn a_replica_type_has_1_to_9999_replicas() {
        let count =
            |n: i64| replicas(json!([{ "type": "w", "replicas": n, "spec": { "image": "x" } }]));
        accepts(count(1));
        accepts(count(9999));
        for n in [0, 10000] {
            refuses(
                count(n),
                "spec.replicaSpecs[0].replicas",
                &format!("must be from 1 to 9999 (got {n})"),
            );
        }
    }

    #[test]
    fn a_restart_limit_fits_int32() {
        let limit = |n: i64| {
            replicas(json!([{ "type": "w", "spec": { "image": "x" },
                              "restartPolicy": { "policy": "OnFailure", "limit": n } }]))
        };
        accepts(limit(0));
        accepts(limit(2147483647));
        refuses(
            limit(-1),
            "spec.replicaSpecs[0].restartPolicy.limit",
            "must be between 0 and 2147483647 (got -1)",
        );
    }

    #[test]
    fn replicas_are_sized_by_replicas_not_completions_or_parallelism() {
        for field in ["completions", "parallelism"] {
            refuses(
                replicas(json!([{ "type": "w", "spec": { "image": "x", field: 1 } }])),
                &format!("spec.replicaSpecs[0].spec.{field}"),
                "is not used here; set replicas",
            );
        }
    }

    #[test]
    fn finish_rules_name_replica_types_of_the_job() {
        for field in ["successRules", "failureRules"] {
            accepts(json!({ field: [{ "replicaTypes": ["worker"] }] }));
            refuses(
                json!({ field: [{ "replicaTypes": [] }] }),
                &format!("spec.{field}[0].replicaTypes"),
                "must name at least one replica type",
            );
            refuses(
                json!({ field: [{ "name": "r", "replicaTypes": ["ps"] }] }),
                &format!("spec.{field}[0].replicaTypes[0]"),
                "\"ps\" is not a replica type of this job",
            );
        }
    }

    #[test]
    fn a_success_rule_names_one_replica_type() {
        let two = replicas(json!([
            { "type": "a", "spec": { "image": "x" } }, { "type": "b", "spec": { "image": "x" } }]));
        let with_rules = |field: &str| {
            let mut spec = two.clone();
            spec[field] = json!([{ "replicaTypes": ["a", "b"] }]);
            spec
        };
        accepts(with_rules("failureRules"));
        refuses(
            with_rules("successRules"),
            "spec.successRules[0].replicaTypes",
            "must name one replica type: Volcano completes a job when one task completes",
        );
    }

    #[test]
    fn debug_and_pause_are_not_both_enabled() {
        accepts(
            json!({ "runMode": { "debug": { "enabled": true }, "pause": { "enabled": false } } }),
        );
        accepts(json!({ "runMode": { "pause": { "enabled": true } } }));
        refuses(
            json!({ "runMode": { "debug": { "enabled": true }, "pause": { "enabled": true } } }),
            "spec.runMode",
            "debug and pause cannot both be enabled",
        );
    }

    #[test]
    fn run_mode_overrides_name_replica_types_and_split_into_words() {
        for (mode, list) in [("debug", "replicaSpecs"), ("pause", "resumeSpecs")] {
            let with = |o: Value| json!({ "runMode": { mode: { "enabled": true, list: [o] } } });
            accepts(with(
                json!({ "type": "worker", "command": "sleep infinity", "args": "-x" }),
            ));
            refuses(
                with(json!({ "type": "ps" })),
                &format!("spec.runMode.{mode}.{list}[0].type"),
                "\"ps\" is not a replica type of this job",
            );
            for field in ["command", "args"] {
                refuses(
                    with(json!({ "type": "worker", field: "echo 'open" })),
                    &format!("spec.runMode.{mode}.{list}[0].{field}"),
                    "has an unterminated single quote",
                );
            }
        }
    }

    #[test]
    fn clean_up_all_leaves_nothing_to_delete_later() {
        let with_ttl = replicas(json!([{ "type": "w", "spec": { "image": "x",
            "autoDeletionTimeAfterCompletionSeconds": 60 } }]));
        let mut all = with_ttl.clone();
        all["cleanUpPolicy"] = json!("All");
        let mut unfinished = with_ttl;
        unfinished["cleanUpPolicy"] = json!("Unfinished");
        accepts(unfinished);
        accepts(json!({ "cleanUpPolicy": "All" }));
        refuses(
            all,
            "spec.cleanUpPolicy",
            "All deletes the job as soon as it finishes; remove \
             autoDeletionTimeAfterCompletionSeconds",
        );
    }
}
