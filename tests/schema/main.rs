//! The CRD-schema validator, exercised against the real Volcano v1.15.1 Job CRD. The validator is
//! only as trustworthy as its ability to accept a correct Job and to reject each kind of mistake
//! at the right path.

use std::sync::LazyLock;

use serde_json::{Value, json};
use tephra_tests::crd_schema::{
    CrdSchema, JOB_CRD_FILE, SchemaError, VOLCANO_VERSION, volcano_module_dir,
};

static JOB: LazyLock<CrdSchema> = LazyLock::new(|| {
    CrdSchema::volcano_job().expect("the Volcano Job CRD loads from the Go module cache")
});

const CONTAINER: &str = "/spec/tasks/0/template/spec/containers/0";
const CONTAINER_PATH: &str = ".spec.tasks[0].template.spec.containers[0]";

/// Modelled on Volcano's createNamespacedJob example: PyTorch with 1 master and 3 workers.
fn pytorch_job() -> Value {
    let task = |name: &str, replicas: u32| {
        json!({
            "name": name,
            "replicas": replicas,
            "policies": [{"event": "TaskCompleted", "action": "CompleteJob"}],
            "template": {
                "metadata": {"labels": {"role": name}},
                "spec": {
                    "containers": [{
                        "name": name,
                        "image": "pytorch/pytorch:2.0-cuda11.7",
                        "command": ["python", "/opt/train.py"],
                        "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
                        "ports": [{"containerPort": 23456, "name": "pytorchjob-port"}],
                        "resources": {
                            "requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                            "limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
                        }
                    }],
                    "restartPolicy": "Never"
                }
            }
        })
    };
    json!({
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {
            "name": "pytorch-training-job",
            "namespace": "ml-workloads",
            "labels": {"framework": "pytorch", "team": "ml-platform"}
        },
        "spec": {
            "schedulerName": "volcano",
            "minAvailable": 4,
            "queue": "ml-queue",
            "priorityClassName": "high-priority",
            "maxRetry": 3,
            "plugins": {
                "pytorch": ["--master=master", "--worker=worker", "--port=23456"],
                "svc": [],
                "env": []
            },
            "policies": [
                {"event": "PodEvicted", "action": "RestartJob"},
                {"event": "PodFailed", "action": "AbortJob"}
            ],
            "tasks": [task("master", 1), task("worker", 3)]
        }
    })
}

/// Validates the PyTorch Job after `edit`.
fn errors_after(edit: impl FnOnce(&mut Value)) -> Vec<SchemaError> {
    let mut job = pytorch_job();
    edit(&mut job);
    JOB.validate(&job)
}

fn at<'a>(job: &'a mut Value, pointer: &str) -> &'a mut Value {
    job.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("the fixture has {pointer}"))
}

/// The paths of `errors`, sorted because field order depends on serde_json's features.
fn paths(errors: &[SchemaError]) -> Vec<&str> {
    let mut paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    paths.sort_unstable();
    paths
}

fn message_at<'a>(errors: &'a [SchemaError], path: &str) -> &'a str {
    errors
        .iter()
        .find(|e| e.path == path)
        .map(|e| e.message.as_str())
        .unwrap_or_else(|| panic!("an error at {path} in {errors:#?}"))
}

#[test]
fn the_schema_comes_from_the_pinned_go_module() {
    let dir = volcano_module_dir().expect("go mod download succeeds");
    let dir_name = dir.to_string_lossy();
    assert!(
        dir_name.ends_with(&format!("volcano.sh/volcano@{VOLCANO_VERSION}")),
        "{dir_name}"
    );
    assert!(dir.join(JOB_CRD_FILE).is_file());
    assert_eq!(JOB.api_version(), "batch.volcano.sh/v1alpha1");
    assert_eq!(JOB.kind(), "Job");
}

#[test]
fn a_correct_pytorch_job_has_no_errors() {
    let errors = JOB.validate(&pytorch_job());
    assert!(errors.is_empty(), "{errors:#?}");
    JOB.ensure_valid(&pytorch_job()).expect("valid");
}

#[test]
fn an_unknown_spec_field_is_reported_at_its_path() {
    let errors = errors_after(|job| {
        at(job, "/spec")["bogus"] = json!(true);
    });
    assert_eq!(paths(&errors), [".spec.bogus"], "{errors:#?}");
    assert!(errors[0].message.contains("unknown field"), "{errors:#?}");
}

#[test]
fn an_unknown_field_deep_in_a_container_is_reported() {
    let errors = errors_after(|job| {
        at(job, &format!("{CONTAINER}/resources"))["limit"] = json!({"cpu": "1"});
    });
    assert_eq!(
        paths(&errors),
        [format!("{CONTAINER_PATH}.resources.limit")],
        "{errors:#?}"
    );
}

#[test]
fn a_wrong_type_is_reported_once() {
    let errors = errors_after(|job| *at(job, "/spec/minAvailable") = json!("three"));
    assert_eq!(paths(&errors), [".spec.minAvailable"], "{errors:#?}");
    assert!(
        errors[0].message.contains("expected integer"),
        "{errors:#?}"
    );
}

#[test]
fn a_negative_min_available_breaks_the_minimum() {
    let errors = errors_after(|job| *at(job, "/spec/minAvailable") = json!(-1));
    assert_eq!(paths(&errors), [".spec.minAvailable"], "{errors:#?}");
    assert!(errors[0].message.contains("minimum 0"), "{errors:#?}");
}

#[test]
fn a_container_without_a_name_misses_a_required_field() {
    let errors = errors_after(|job| {
        at(job, CONTAINER)
            .as_object_mut()
            .expect("a container is an object")
            .remove("name");
    });
    assert_eq!(
        paths(&errors),
        [format!("{CONTAINER_PATH}.name")],
        "{errors:#?}"
    );
    assert!(errors[0].message.contains("required"), "{errors:#?}");
}

#[test]
fn quantities_may_be_integers_or_strings() {
    let errors = errors_after(|job| {
        let resources = at(job, &format!("{CONTAINER}/resources"));
        resources["limits"]["cpu"] = json!(2);
        resources["limits"]["nvidia.com/gpu"] = json!(1);
        resources["requests"]["cpu"] = json!("500m");
        resources["requests"]["memory"] = json!("1.5Gi");
    });
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn quantities_that_are_fractions_or_words_are_rejected() {
    let errors = errors_after(|job| {
        let resources = at(job, &format!("{CONTAINER}/resources"));
        // A JSON fraction is neither an integer nor a string, so the CRD rejects `0.5` even
        // though `"0.5"` and `"500m"` are fine.
        resources["limits"]["cpu"] = json!(0.5);
        resources["limits"]["nvidia.com/gpu"] = json!("lots");
        resources["requests"]["memory"] = json!(true);
    });
    let limits = format!("{CONTAINER_PATH}.resources.limits");
    assert_eq!(
        paths(&errors),
        [
            format!("{limits}.cpu"),
            format!("{limits}[\"nvidia.com/gpu\"]"),
            format!("{CONTAINER_PATH}.resources.requests.memory"),
        ],
        "{errors:#?}"
    );
    assert!(
        message_at(&errors, &format!("{limits}[\"nvidia.com/gpu\"]")).contains("pattern"),
        "{errors:#?}"
    );
}

#[test]
fn template_metadata_keeps_only_the_declared_fields() {
    // The task template's ObjectMeta is trimmed to annotations, finalizers, labels, name and
    // namespace. Anything else would be pruned, for example generateName.
    let errors = errors_after(|job| {
        at(job, "/spec/tasks/0/template/metadata")["generateName"] = json!("master-");
        at(job, "/spec/tasks/0/template/metadata")["annotations"] = json!({"a": "b"});
    });
    assert_eq!(
        paths(&errors),
        [".spec.tasks[0].template.metadata.generateName"],
        "{errors:#?}"
    );
}

#[test]
fn top_level_metadata_is_left_to_object_meta_validation() {
    let errors = errors_after(|job| {
        at(job, "/metadata")["ownerReferences"] = json!([]);
        at(job, "/metadata")["annotations"] = json!({"tephra.dev/run": "1"});
    });
    assert!(errors.is_empty(), "{errors:#?}");
    let errors = errors_after(|job| *at(job, "/metadata") = json!("pytorch"));
    assert_eq!(paths(&errors), [".metadata"], "{errors:#?}");
}

#[test]
fn null_fields_are_reported_because_the_apiserver_would_drop_them() {
    let errors = errors_after(|job| *at(job, "/spec/queue") = Value::Null);
    assert_eq!(paths(&errors), [".spec.queue"], "{errors:#?}");
}

#[test]
fn policy_events_come_from_an_enum() {
    let errors = errors_after(|job| *at(job, "/spec/policies/0/event") = json!("PodExploded"));
    assert_eq!(paths(&errors), [".spec.policies[0].event"], "{errors:#?}");
}

#[test]
fn task_names_must_be_dns_labels() {
    let errors = errors_after(|job| *at(job, "/spec/tasks/0/name") = json!("Master"));
    assert_eq!(paths(&errors), [".spec.tasks[0].name"], "{errors:#?}");
    let errors = errors_after(|job| *at(job, "/spec/tasks/0/name") = json!("m".repeat(64)));
    assert_eq!(paths(&errors), [".spec.tasks[0].name"], "{errors:#?}");
}

#[test]
fn a_job_needs_at_least_one_task() {
    let errors = errors_after(|job| *at(job, "/spec/tasks") = json!([]));
    assert_eq!(paths(&errors), [".spec.tasks"], "{errors:#?}");
}

#[test]
fn int32_fields_reject_values_beyond_their_range() {
    let errors = errors_after(|job| *at(job, "/spec/tasks/1/replicas") = json!(1_u64 << 31));
    assert_eq!(paths(&errors), [".spec.tasks[1].replicas"], "{errors:#?}");
    assert!(errors[0].message.contains("int32"), "{errors:#?}");
    // Integers written as floats are rejected: Volcano's Go types could not decode them.
    let errors = errors_after(|job| *at(job, "/spec/tasks/1/replicas") = json!(3.0));
    assert_eq!(paths(&errors), [".spec.tasks[1].replicas"], "{errors:#?}");
}

#[test]
fn map_lists_reject_duplicate_keys_after_defaulting() {
    let errors = errors_after(|job| {
        let container = at(job, CONTAINER).clone();
        at(job, "/spec/tasks/0/template/spec/containers")
            .as_array_mut()
            .expect("containers is an array")
            .push(container);
    });
    assert_eq!(
        paths(&errors),
        [".spec.tasks[0].template.spec.containers[1]"],
        "{errors:#?}"
    );
    // Ports are keyed by containerPort and protocol, and protocol defaults to TCP.
    let errors = errors_after(|job| {
        at(job, &format!("{CONTAINER}/ports"))
            .as_array_mut()
            .expect("ports is an array")
            .push(json!({"containerPort": 23456, "protocol": "TCP"}));
    });
    assert_eq!(
        paths(&errors),
        [format!("{CONTAINER_PATH}.ports[1]")],
        "{errors:#?}"
    );
}

#[test]
fn api_version_and_kind_must_name_the_crd() {
    let errors = errors_after(|job| {
        job["apiVersion"] = json!("batch/v1");
        job.as_object_mut().expect("an object").remove("kind");
    });
    assert_eq!(paths(&errors), [".apiVersion", ".kind"], "{errors:#?}");
}

#[test]
fn unsupported_schema_keywords_fail_the_load() {
    // A made-up CRD that exercises only the loader. The validation tests above use the real CRD.
    let crd = r#"
spec:
  group: example.dev
  names: {kind: Widget}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.a > 0"
"#;
    let error = CrdSchema::parse(crd, "v1").expect_err("x-kubernetes-validations is unsupported");
    assert!(
        format!("{error:#}").contains("x-kubernetes-validations"),
        "{error:#}"
    );
}
mod rendered;
