use super::super::tests::{accepted_by, assert_one, paths, refused_by};
use crate::model::training::parse;
use crate::model::validation::FieldError;
use serde_json::{Value, json};

/// A valid generic job with one `worker` replica type, with `fields` added to or replacing
/// its spec's.
fn request(fields: Value) -> Value {
    let mut spec =
        json!({ "replicaSpecs": [{ "type": "worker", "replicas": 2, "spec": { "image": "x" } }] });
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

// The rules below are the generic form's own, beyond each replica's training spec.

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
fn finish_rules_list_replicas_of_the_job_by_type_and_index() {
    for field in ["successRules", "failureRules"] {
        accepts(json!({ field: [{ "worker": [0, 1] }, { "worker": [1] }] }));
        refuses(
            json!({ field: [{}] }),
            &format!("spec.{field}[0]"),
            "must list replicas by type and index",
        );
        refuses(
            json!({ field: [{ "ps": [0] }] }),
            &format!("spec.{field}[0].ps"),
            "\"ps\" is not a replica type of this job",
        );
        refuses(
            json!({ field: [{ "worker": [] }] }),
            &format!("spec.{field}[0].worker"),
            "must list replica indexes, from 0 to 1",
        );
        refuses(
            json!({ field: [{ "worker": [0, 2] }] }),
            &format!("spec.{field}[0].worker[1]"),
            "must be a replica index from 0 to 1 (worker has 2 replicas; got 2)",
        );
        refuses(
            json!({ field: [{ "worker": [1, 1] }] }),
            &format!("spec.{field}[0].worker[1]"),
            "1 is listed twice",
        );
    }
}

#[test]
fn a_rule_may_list_several_replica_types() {
    let two = replicas(json!([
        { "type": "a", "spec": { "image": "x" } },
        { "type": "b", "replicas": 3, "spec": { "image": "x" } }]));
    for field in ["successRules", "failureRules"] {
        let mut spec = two.clone();
        spec[field] = json!([{ "a": [0], "b": [0, 2] }]);
        accepts(spec);
    }
}

#[test]
fn restarts_are_set_by_the_replica_types_policy_not_its_spec() {
    let with = |policy: Value, spec: Value| {
        replicas(json!([{ "type": "w", "restartPolicy": policy, "spec": spec }]))
    };
    accepts(with(
        json!({ "policy": "Always", "limit": 2 }),
        json!({ "image": "x" }),
    ));
    refuses(
        with(
            json!({ "policy": "OnFailure", "limit": 2 }),
            json!({ "image": "x", "restartPolicy": "OnFailure" }),
        ),
        "spec.replicaSpecs[0].spec.restartPolicy",
        "is set by spec.replicaSpecs[0].restartPolicy in a generic job",
    );
    let never = parse::generic(&request(with(
        json!({ "policy": "Never", "limit": 2 }),
        json!({ "image": "x" }),
    )))
    .expect("accepted");
    assert_eq!(
        paths(never.warnings()),
        ["spec.replicaSpecs[0].restartPolicy.limit"]
    );
    assert!(!never.first().restarts_in_place());
}

#[test]
fn debug_and_pause_are_not_both_enabled() {
    accepts(json!({ "runMode": { "debug": { "enabled": true }, "pause": { "enabled": false } } }));
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
