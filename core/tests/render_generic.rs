//! Generic jobs (Run:ai's replica types) rendered as Volcano tasks: their restart limits, debug
//! mode, pause and resume, and rules that must name the job's replica types.
//! Snapshots live in `tests/snapshots/`; review changes with `cargo insta review`.

mod common;

use common::{fixture, job_json, render};
use serde_json::json;
use tephra_core::domain::request::{Request, WorkloadKind};

#[test]
fn generic_replicas_become_tasks_that_restart_in_place_within_their_limit() {
    let rendered = render(&fixture("generic-ps-worker.json"), None);
    assert!(!rendered.starts_paused);
    let job = job_json(&rendered);
    let spec = &job["spec"];
    assert_eq!(spec["minAvailable"], 6, "the whole job is the gang");
    assert!(
        spec.get("ttlSecondsAfterFinished").is_none(),
        "cleanUpPolicy All is Tephra's to carry out, after it recorded the finish"
    );
    assert_eq!(
        spec["policies"],
        json!([{ "event": "PodEvicted", "action": "RestartJob" }]),
        "a failed pod is left to the rules Tephra judges"
    );
    let ps = &spec["tasks"][0];
    assert_eq!(ps["name"], "ps");
    assert!(ps.get("policies").is_none(), "{ps}");
    assert_eq!(ps["template"]["spec"]["restartPolicy"], "Never");
    let worker = &spec["tasks"][1];
    assert_eq!(worker["maxRetry"], 3, "restartPolicy.limit");
    assert_eq!(worker["template"]["spec"]["restartPolicy"], "OnFailure");
    insta::assert_yaml_snapshot!("generic_ps_worker_rendered", rendered.job);
}

#[test]
fn generic_debug_mode_replaces_commands_and_pause_applies_resume_specs() {
    let mut debug = fixture("generic-ps-worker.json");
    debug["spec"]["runMode"] = json!({ "debug": { "enabled": true, "replicaSpecs": [
        { "type": "worker", "command": "sleep 3600", "skipInitContainer": true }
    ] } });
    let job = job_json(&render(&debug, None));
    let ps = &job["spec"]["tasks"][0]["template"]["spec"];
    let worker = &job["spec"]["tasks"][1]["template"]["spec"];
    assert_eq!(
        ps["containers"][0]["command"],
        json!(["sleep", "inf"]),
        "no override: sleep"
    );
    assert_eq!(worker["containers"][0]["command"], json!(["sleep", "3600"]));
    assert!(
        worker["containers"][0].get("args").is_none(),
        "debug drops the args"
    );
    assert!(worker.get("initContainers").is_none(), "skipInitContainer");
    assert_eq!(
        job["metadata"]["annotations"]["tephra.dev/run-mode"],
        "debug"
    );

    let mut paused = fixture("generic-ps-worker.json");
    paused["spec"]["runMode"] = json!({ "pause": { "enabled": true, "resumeSpecs": [
        { "type": "worker", "args": "--epochs 10 --resume-from /ckpt" }
    ] } });
    let rendered = render(&paused, None);
    assert!(rendered.starts_paused, "the workload is created suspended");
    let job = job_json(&rendered);
    let worker = &job["spec"]["tasks"][1]["template"]["spec"]["containers"][0];
    assert_eq!(
        worker["command"],
        json!(["python", "train.py"]),
        "the command is kept"
    );
    assert_eq!(
        worker["args"],
        json!(["--epochs", "10", "--resume-from", "/ckpt"])
    );
}

#[test]
fn generic_rules_must_name_replica_types_of_the_job() {
    let mut value = fixture("generic-ps-worker.json");
    value["spec"]["successRules"] = json!([{ "chief": [0], "worker": [4] }]);
    value["spec"]["replicaSpecs"][1]["type"] = json!("ps");
    value["spec"]["runMode"] =
        json!({ "debug": { "enabled": true }, "pause": { "enabled": true } });
    let errors = Request::parse(&value, WorkloadKind::Generic).unwrap_err();
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "spec.replicaSpecs[1].type",
            "spec.successRules[0].chief",
            "spec.successRules[0].worker",
            "spec.failureRules[1].worker",
            "spec.runMode",
        ]
    );
}
