use super::fields::{compute, name, spec};
use super::*;
use serde_json::json;
use tephra_core::model::training::request::{EnvironmentVariable, SecretKeyRef, Toleration};

pub(super) fn paths(draft: &Draft) -> Vec<String> {
    draft
        .validate()
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|e| e.path)
        .collect()
}

pub(super) fn row() -> Value {
    Value::Object(Map::new())
}

pub(super) fn set(d: &mut Draft, path: Path, kind: Kind, text: &str) {
    d.set_text(&path, kind, text);
}

/// What the dashboard's browser test fills in, field by field as the form writes them: PyTorch,
/// two workers, a toleration, an NFS volume, security settings and a variable from a secret.
pub(super) fn pytorch() -> Draft {
    let mut d = Draft::new("default");
    set(&mut d, name(), Kind::Required, "pt-dashboard");
    set(
        &mut d,
        spec().key("image"),
        Kind::Text,
        "pytorch/pytorch:2.4.0",
    );
    set(
        &mut d,
        spec().key("command"),
        Kind::Text,
        "torchrun train.py",
    );
    secret_variable(&mut d);
    d.set_gpu_mode(GpuMode::Devices);
    set(&mut d, compute().key("cpuCoreRequest"), Kind::Number, "1");
    set(&mut d, compute().key("cpuMemoryRequest"), Kind::Text, "2Gi");
    nfs_volume(&mut d);
    security_settings(&mut d);
    gpu_toleration(&mut d);
    d.set_distributed(true);
    set(&mut d, spec().key("numWorkers"), Kind::Number, "2");
    d
}

/// `HF_TOKEN` from the key `token` of the secret `hf`.
fn secret_variable(d: &mut Draft) {
    let env = spec().key(key!(TrainingSpec.environment_variables));
    d.push_row(&env, row());
    set(
        d,
        env.index(0).key(key!(EnvironmentVariable.name)),
        Kind::Required,
        "HF_TOKEN",
    );
    let secret = env.index(0).key(key!(EnvironmentVariable.secret));
    set(d, secret.key(key!(SecretKeyRef.name)), Kind::Required, "hf");
    set(
        d,
        secret.key(key!(SecretKeyRef.key)),
        Kind::Required,
        "token",
    );
}

/// `/exports/datasets` of `nfs.example.com` at `/data`.
fn nfs_volume(d: &mut Draft) {
    let nfs = fields::storage().key("nfs");
    d.push_row(&nfs, row());
    set(
        d,
        nfs.index(0).key("server"),
        Kind::Required,
        "nfs.example.com",
    );
    set(
        d,
        nfs.index(0).key("path"),
        Kind::Required,
        "/exports/datasets",
    );
    set(d, nfs.index(0).key("mountPath"), Kind::Required, "/data");
}

/// A custom uid and gid (1000), not root, no privilege escalation.
fn security_settings(d: &mut Draft) {
    let security = fields::security();
    set(d, security.key("uidGidSource"), Kind::Text, "custom");
    set(d, security.key("runAsUid"), Kind::Number, "1000");
    set(d, security.key("runAsGid"), Kind::Number, "1000");
    set(d, security.key("runAsNonRoot"), Kind::Flag, "true");
    set(
        d,
        security.key("allowPrivilegeEscalation"),
        Kind::Choice,
        "false",
    );
}

/// Tolerates the GPU nodes' taint.
fn gpu_toleration(d: &mut Draft) {
    let tolerations = spec().key(key!(TrainingSpec.tolerations));
    d.push_row(&tolerations, row());
    let toleration = tolerations.index(0);
    set(
        d,
        toleration.key(key!(Toleration.key)),
        Kind::Text,
        "nvidia.com/gpu",
    );
    set(
        d,
        toleration.key(key!(Toleration.operator)),
        Kind::Text,
        "Exists",
    );
    set(
        d,
        toleration.key(key!(Toleration.effect)),
        Kind::Text,
        "NoSchedule",
    );
}

#[test]
fn a_distributed_pytorch_draft_is_the_request_a_script_would_send() {
    let request = pytorch().validate().expect("valid");
    assert_eq!(
        request,
        json!({
            "name": "pt-dashboard",
            "projectId": "default",
            "spec": {
                "image": "pytorch/pytorch:2.4.0",
                "command": "torchrun train.py",
                "environmentVariables": [{"name": "HF_TOKEN", "secret": {"name": "hf", "key": "token"}}],
                "compute": {"gpuDevicesRequest": 1, "cpuCoreRequest": 1, "cpuMemoryRequest": "2Gi"},
                "storage": {"nfs": [{"server": "nfs.example.com", "path": "/exports/datasets", "mountPath": "/data"}]},
                "security": {"uidGidSource": "custom", "runAsUid": 1000, "runAsGid": 1000,
                             "runAsNonRoot": true, "allowPrivilegeEscalation": false},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "distributedFramework": "PyTorch",
                "numWorkers": 2,
                "masterSpecSameAsWorker": true,
            }
        })
    );
}

#[test]
fn a_master_with_its_own_resources_is_the_worker_with_its_own_compute() {
    let mut d = pytorch();
    set(&mut d, spec().key("masterSpecSameAsWorker"), Kind::Bool, "");
    let master_compute = fields::master().key("compute");
    set(
        &mut d,
        master_compute.key("cpuCoreRequest"),
        Kind::Number,
        "2",
    );
    let request = d.validate().expect("valid");
    let spec = &request["spec"];
    assert_eq!(spec["masterSpecSameAsWorker"], false);
    assert_eq!(spec["master"]["compute"], json!({"cpuCoreRequest": 2}));
    assert_eq!(spec["master"]["image"], "pytorch/pytorch:2.4.0");
    assert!(spec["master"].get("numWorkers").is_none());
    // The draft itself holds only what sets the master apart.
    assert_eq!(
        d.get(&fields::master()),
        Some(&json!({"compute": {"cpuCoreRequest": 2}}))
    );
}

#[test]
fn turning_distributed_off_drops_every_distributed_key() {
    let mut d = pytorch();
    set(&mut d, spec().key("masterSpecSameAsWorker"), Kind::Bool, "");
    d.set_distributed(false);
    assert!(!d.is_distributed());
    assert_eq!(d.unshown_keys(), Vec::<String>::new());
    d.validate().expect("a single-pod training again");
}

#[test]
fn a_blank_draft_names_the_required_fields() {
    let found = paths(&Draft::new("default"));
    assert!(found.contains(&"name".to_owned()), "{found:?}");
    assert!(found.contains(&"spec.image".to_owned()), "{found:?}");
}

#[test]
fn the_invalid_inputs_of_the_browser_test_are_named_by_path() {
    let mut d = Draft::new("default");
    set(&mut d, name(), Kind::Required, "Bad_Name");
    set(&mut d, spec().key("image"), Kind::Text, "busybox");
    d.set_gpu_mode(GpuMode::Portion);
    set(
        &mut d,
        compute().key("gpuPortionRequest"),
        Kind::Number,
        "1.5",
    );
    let tolerations = spec().key("tolerations");
    d.push_row(&tolerations, row());
    set(
        &mut d,
        tolerations.index(0).key("operator"),
        Kind::Text,
        "Exists",
    );
    set(&mut d, tolerations.index(0).key("value"), Kind::Text, "gpu");
    let found = paths(&d);
    for path in [
        "name",
        "spec.compute.gpuPortionRequest",
        "spec.tolerations[0].value",
    ] {
        assert!(found.contains(&path.to_owned()), "{path} in {found:?}");
    }
}

#[test]
fn text_in_a_number_field_is_the_parsers_type_error_not_a_panic() {
    let mut d = pytorch();
    set(&mut d, spec().key("numWorkers"), Kind::Number, "abc");
    assert!(paths(&d).iter().any(|p| p.starts_with("spec.numWorkers")));
}

#[test]
fn blank_rows_keep_their_place_so_errors_point_at_the_right_row() {
    let mut d = pytorch();
    let env = spec().key("environmentVariables");
    d.remove_row(&env, 0);
    d.push_row(&env, row());
    d.push_row(&env, row());
    set(&mut d, env.index(1).key("name"), Kind::Required, "OK");
    set(&mut d, env.index(1).key("value"), Kind::Verbatim, "1");
    // A field typed and cleared again leaves its row in place.
    set(&mut d, env.index(0).key("name"), Kind::Text, "x");
    set(&mut d, env.index(0).key("name"), Kind::Text, "");
    assert_eq!(d.rows(&env), 2);
    let found = paths(&d);
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("spec.environmentVariables[0]")),
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|p| p.starts_with("spec.environmentVariables[1]")),
        "{found:?}"
    );
}

#[test]
fn clearing_the_last_field_of_a_section_removes_the_section() {
    let mut d = Draft::new("p");
    set(&mut d, compute().key("cpuCoreRequest"), Kind::Number, "1");
    set(&mut d, compute().key("cpuCoreRequest"), Kind::Number, " ");
    assert_eq!(d.get(&compute()), None);
    let nfs = fields::storage().key("nfs");
    d.push_row(&nfs, row());
    d.remove_row(&nfs, 0);
    assert_eq!(d.get(&fields::storage()), None);
}

mod round_trip;
