use super::*;
use serde_json::json;

#[test]
fn an_unknown_key_that_is_not_a_plain_name_is_quoted() {
    let errors = training(&json!({
        "": null, "name": "a", "projectId": 1,
        "spec": { "image": "x", "a.b": 1 }
    }))
    .unwrap_err();
    let mut found = paths(&errors);
    found.sort_unstable();
    assert_eq!(found, ["[\"\"]", "spec[\"a.b\"]"]);
}

fn paths(errors: &[FieldError]) -> Vec<&str> {
    errors.iter().map(|e| e.path.as_str()).collect()
}

#[test]
fn every_unknown_field_is_named_by_path() {
    let errors = training(&json!({
        "name": "a", "projectId": 1, "colour": "red",
        "spec": { "image": "x", "imagePullPolicyy": "Always", "compute": { "gpus": 2 },
                  "tolerations": [{ "key": "k", "operator": "Exists", "tolerate": true }] }
    }))
    .unwrap_err();
    assert_eq!(
        paths(&errors),
        [
            "colour",
            "spec.compute.gpus",
            "spec.imagePullPolicyy",
            "spec.tolerations[0].tolerate"
        ]
    );
    assert!(errors.iter().all(|e| e.message == "is not a known field"));
}

#[test]
fn type_errors_name_the_field_and_the_expected_type() {
    let errors = training(&json!({
        "name": "a", "projectId": 1, "spec": { "image": "x", "compute": { "gpuDevicesRequest": "two" } }
    }))
    .unwrap_err();
    assert_eq!(paths(&errors), ["spec.compute.gpuDevicesRequest"]);
    assert_eq!(errors[0].message, "must be an integer (got string \"two\")");

    let errors = training(
        &json!({ "name": "a", "projectId": 1, "spec": { "imagePullPolicy": "Sometimes" } }),
    )
    .unwrap_err();
    assert_eq!(paths(&errors), ["spec.imagePullPolicy"]);
    assert!(
        errors[0].message.contains("Always, IfNotPresent, Never"),
        "{}",
        errors[0].message
    );

    let errors = training(&json!(null)).unwrap_err();
    assert_eq!(paths(&errors), ["."]);
    assert_eq!(errors[0].message, "must be a JSON object (got null)");
}

#[test]
fn validation_reports_all_problems_at_once() {
    let errors = training(&json!({
        "name": "Bad_Name", "projectId": 1,
        "spec": {
            "command": "echo 'unterminated",
            "compute": { "gpuRequestType": "portion", "gpuPortionRequest": 1.5 },
            "tolerations": [{ "key": "k", "operator": "Exists", "value": "v" }]
        }
    }))
    .unwrap_err();
    assert_eq!(
        paths(&errors),
        [
            "name",
            "spec.image",
            "spec.command",
            "spec.tolerations[0].value",
            "spec.compute.gpuPortionRequest"
        ]
    );
}

#[test]
fn distributed_requests_separate_their_own_keys() {
    let ok = distributed(&json!({
        "name": "ddp", "projectId": "p",
        "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 2,
                  "master": { "image": "y" }, "masterSpecSameAsWorker": false }
    }))
    .unwrap();
    assert_eq!(ok.workers(), 2);
    assert_eq!(ok.master().image, "y");

    let errors = distributed(&json!({
        "name": "ddp", "projectId": "p",
        "spec": { "image": "x", "numWorkers": 0, "master": { "bogus": 1 } }
    }))
    .unwrap_err();
    assert_eq!(
        paths(&errors),
        ["spec.master.bogus", "spec.distributedFramework"]
    );

    let errors = distributed(&json!({
        "name": "ddp", "projectId": "p",
        "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 0, "minReplicas": 5 }
    }))
    .unwrap_err();
    assert_eq!(paths(&errors), ["spec.numWorkers", "spec.minReplicas"]);

    // JAX is named, with what to use instead, once.
    let errors = distributed(&json!({
        "name": "jax", "projectId": "p",
        "spec": { "image": "x", "distributedFramework": "JAX", "numWorkers": 2 }
    }))
    .unwrap_err();
    assert_eq!(paths(&errors), ["spec.distributedFramework"]);
    assert!(
        errors[0].message.starts_with("JAX is not supported"),
        "{errors:?}"
    );
}
fn details(errors: &[FieldError]) -> Vec<(&str, &str)> {
    errors
        .iter()
        .map(|e| (e.path.as_str(), e.message.as_str()))
        .collect()
}

const NUL: &str = "must not contain a NUL character (\\u0000)";

#[test]
fn a_nul_in_any_nested_string_is_refused_by_path() {
    let errors = training(&json!({
        "name": "a", "projectId": "p",
        "spec": { "image": "x", "command": "python\u{0}train.py",
                  "environmentVariables": [{ "name": "A", "value": "1\u{0}" }],
                  "nodePools": ["a", "\u{0}"] }
    }))
    .unwrap_err();
    assert_eq!(
        details(&errors),
        [
            ("spec.command", NUL),
            ("spec.environmentVariables[0].value", NUL),
            ("spec.nodePools[1]", NUL),
        ],
        "the other rules do not repeat the same strings"
    );

    let errors = distributed(&json!({
        "name": "a", "projectId": "p\u{0}",
        "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 1,
                  "master": { "image": "y", "workingDir": "/w\u{0}" } }
    }))
    .unwrap_err();
    assert_eq!(paths(&errors), ["projectId", "spec.master.workingDir"]);

    let errors = generic(&json!({
        "name": "a", "projectId": "p",
        "spec": { "replicaSpecs": [{ "type": "w", "spec": { "image": "x", "args": "\u{0}" } }] }
    }))
    .unwrap_err();
    assert_eq!(paths(&errors), ["spec.replicaSpecs[0].spec.args"]);
}

#[test]
fn a_nul_in_an_object_key_names_the_object_and_other_problems_still_show() {
    // The key is also unknown, but that report would carry the NUL in its path.
    let errors = training(&json!({
        "name": "a", "projectId": "p", "spec": { "image": "x", "lab\u{0}els": [] }
    }))
    .unwrap_err();
    assert_eq!(
        details(&errors),
        [(
            "spec",
            "must not contain a NUL character (\\u0000) in its keys (got \"lab\\0els\")"
        )]
    );

    let errors = training(&json!({
        "name": "Bad_Name", "projectId": "p",
        "spec": { "image": "x", "compute": { "extendedResources": [
            { "resource": "example.com/f", "quantity": { "k\u{0}": 1 } }
        ] } }
    }))
    .unwrap_err();
    assert_eq!(
        details(&errors)[0],
        (
            "spec.compute.extendedResources[0].quantity",
            "must not contain a NUL character (\\u0000) in its keys (got \"k\\0\")"
        )
    );
    assert_eq!(
        paths(&errors),
        ["spec.compute.extendedResources[0].quantity", "name"],
        "the quantity's own complaint is left out; the name's is kept"
    );
}

#[test]
fn escaped_zeros_and_other_control_characters_are_not_nul() {
    let ok = training(&json!({
        "name": "a", "projectId": "p",
        "spec": { "image": "x", "command": r"printf '\0\x00'", "args": "\u{1}",
                  "environmentVariables": [{ "name": "Z", "value": "\\u0000" }] }
    }));
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn numbers_beyond_the_int32_fields_they_become_are_refused_with_the_range() {
    let errors = training(&json!({
        "name": "a", "projectId": "p",
        "spec": {
            "image": "x",
            "parallelism": 4294967297u64, "completions": 4294967297u64,
            "autoDeletionTimeAfterCompletionSeconds": 2147483648u64,
            "probes": { "readiness": {
                "periodSeconds": 4294967297u64, "initialDelaySeconds": -1,
                "timeoutSeconds": 2147483647, "failureThreshold": 9999999999u64,
                "handler": { "httpGet": { "port": 4294967297u64 } } } }
        }
    }))
    .unwrap_err();
    assert_eq!(
        details(&errors),
        [
            (
                "spec.probes.readiness.initialDelaySeconds",
                "must be between 0 and 2147483647 (got -1)"
            ),
            (
                "spec.probes.readiness.periodSeconds",
                "must be between 1 and 2147483647 (got 4294967297)"
            ),
            (
                "spec.probes.readiness.failureThreshold",
                "must be between 1 and 2147483647 (got 9999999999)"
            ),
            (
                "spec.probes.readiness.handler.httpGet.port",
                "must be a port from 1 to 65535 (got 4294967297)"
            ),
            (
                "spec.autoDeletionTimeAfterCompletionSeconds",
                "must be between 0 and 2147483647 (got 2147483648)"
            ),
            (
                "spec.parallelism",
                "must be between 1 and 2147483647 (got 4294967297)"
            ),
            (
                "spec.completions",
                "must be between 1 and 2147483647 (got 4294967297)"
            ),
        ]
    );

    let errors = generic(&json!({
        "name": "a", "projectId": "p",
        "spec": { "replicaSpecs": [{ "type": "w", "replicas": 4294967297u64,
            "restartPolicy": { "policy": "OnFailure", "limit": 4294967297u64 },
            "spec": { "image": "x" } }] }
    }))
    .unwrap_err();
    assert_eq!(
        details(&errors),
        [
            (
                "spec.replicaSpecs[0].replicas",
                "must be from 1 to 9999 (got 4294967297)"
            ),
            (
                "spec.replicaSpecs[0].restartPolicy.limit",
                "must be between 0 and 2147483647 (got 4294967297)"
            ),
        ]
    );
}

#[test]
fn integers_beyond_int64_name_the_range() {
    let errors = training(&json!({
        "name": "a", "projectId": "p",
        "spec": { "image": "x", "backoffLimit": u64::MAX }
    }))
    .unwrap_err();
    assert_eq!(
        details(&errors),
        [(
            "spec.backoffLimit",
            "must be between -9223372036854775808 and 9223372036854775807 \
                 (got 18446744073709551615)"
        )]
    );
}

#[test]
fn quantities_and_cores_beyond_what_kubernetes_counts_are_refused() {
    let errors = training(&json!({
        "name": "a", "projectId": "p",
        "spec": { "image": "x",
            "compute": {
                "cpuMemoryRequest": "1e400", "cpuMemoryLimit": "8Ei",
                "cpuCoreRequest": 1e300,
                "extendedResources": [{ "resource": "example.com/f", "quantity": u64::MAX }]
            },
            "storage": { "pvc": [{ "path": "/d", "claimInfo": {
                "size": "99999999999999999999Gi", "accessModes": { "readWriteOnce": true } } }] }
        }
    }))
    .unwrap_err();
    let found = details(&errors);
    assert_eq!(
        paths(&errors),
        [
            "spec.compute.cpuCoreRequest",
            "spec.compute.cpuMemoryRequest",
            "spec.compute.cpuMemoryLimit",
            "spec.compute.extendedResources[0].quantity",
            "spec.storage.pvc[0].claimInfo.size",
        ]
    );
    assert!(
        found[0]
            .1
            .starts_with("must be greater than 0 and at most 1000000 (got 1")
    );
    assert_eq!(
        found[1].1,
        "must be below 8Ei (2^63 base units, the most Kubernetes can count) (got \"1e400\")"
    );
    assert!(
        found[3].1.contains("from 1 to 9223372036854775807"),
        "{}",
        found[3].1
    );

    let ok = training(&json!({
        "name": "a", "projectId": "p",
        "spec": { "image": "x", "compute": { "cpuMemoryRequest": "7Ei", "cpuCoreRequest": 1000000 } }
    }));
    assert!(ok.is_ok(), "{ok:?}");
}
