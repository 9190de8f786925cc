use super::fields::{compute, name, spec};
use super::*;
use crate::model::training::request::{EnvironmentVariable, SecretKeyRef, Toleration};
use serde_json::json;
use std::collections::BTreeMap;

fn paths(draft: &Draft) -> Vec<String> {
    draft
        .validate()
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|e| e.path)
        .collect()
}

fn row() -> Value {
    Value::Object(Map::new())
}

fn set(d: &mut Draft, path: Path, kind: Kind, text: &str) {
    d.set_text(&path, kind, text);
}

/// What the dashboard's browser test fills in, field by field as the form writes them: PyTorch,
/// two workers, a toleration, an NFS volume, security settings and a variable from a secret.
fn pytorch() -> Draft {
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
    let env = spec().key(key!(TrainingSpec.environment_variables));
    d.push_row(&env, row());
    set(
        &mut d,
        env.index(0).key(key!(EnvironmentVariable.name)),
        Kind::Required,
        "HF_TOKEN",
    );
    let secret = env.index(0).key(key!(EnvironmentVariable.secret));
    set(
        &mut d,
        secret.key(key!(SecretKeyRef.name)),
        Kind::Required,
        "hf",
    );
    set(
        &mut d,
        secret.key(key!(SecretKeyRef.key)),
        Kind::Required,
        "token",
    );
    d.set_gpu_mode(GpuMode::Devices);
    set(&mut d, compute().key("cpuCoreRequest"), Kind::Number, "1");
    set(&mut d, compute().key("cpuMemoryRequest"), Kind::Text, "2Gi");
    let nfs = fields::storage().key("nfs");
    d.push_row(&nfs, row());
    set(
        &mut d,
        nfs.index(0).key("server"),
        Kind::Required,
        "nfs.example.com",
    );
    set(
        &mut d,
        nfs.index(0).key("path"),
        Kind::Required,
        "/exports/datasets",
    );
    set(
        &mut d,
        nfs.index(0).key("mountPath"),
        Kind::Required,
        "/data",
    );
    let security = fields::security();
    set(&mut d, security.key("uidGidSource"), Kind::Text, "custom");
    set(&mut d, security.key("runAsUid"), Kind::Number, "1000");
    set(&mut d, security.key("runAsGid"), Kind::Number, "1000");
    set(&mut d, security.key("runAsNonRoot"), Kind::Flag, "true");
    set(
        &mut d,
        security.key("allowPrivilegeEscalation"),
        Kind::Choice,
        "false",
    );
    let tolerations = spec().key(key!(TrainingSpec.tolerations));
    d.push_row(&tolerations, row());
    let toleration = tolerations.index(0);
    set(
        &mut d,
        toleration.key(key!(Toleration.key)),
        Kind::Text,
        "nvidia.com/gpu",
    );
    set(
        &mut d,
        toleration.key(key!(Toleration.operator)),
        Kind::Text,
        "Exists",
    );
    set(
        &mut d,
        toleration.key(key!(Toleration.effect)),
        Kind::Text,
        "NoSchedule",
    );
    d.set_distributed(true);
    set(&mut d, spec().key("numWorkers"), Kind::Number, "2");
    d
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

fn seed(file: &str) -> Value {
    let text = match file {
        "consistent" => {
            include_str!("../../../../../server/tests/fixtures/seed-003-consistent.json")
        }
        _ => include_str!("../../../../../server/tests/fixtures/seed-003-request.json"),
    };
    serde_json::from_str(text).expect("a fixture is JSON")
}

#[test]
fn a_clone_of_the_seed_request_keeps_every_key() {
    let original = seed("consistent");
    let draft = Draft::from_stored(&original);
    assert_eq!(
        draft.unshown_keys(),
        [
            "createHomeDir",
            "exposedUrls",
            "ports",
            "probes",
            "stdin",
            "tty"
        ]
    );
    let again = draft.validate().expect("the clone is valid");
    assert_eq!(again, original);
}

#[test]
fn a_clone_of_the_invalid_run_ai_example_fails_where_the_original_does() {
    // Run:ai's own example is not a valid request (a variable with both a value and a secret, a
    // git volume without a repository, mount paths "string", ids with uidGidSource
    // fromTheImage...).
    let original = seed("request");
    let expected: Vec<String> = parse::training(&original)
        .expect_err("the example is invalid")
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_eq!(paths(&Draft::from_stored(&original)), expected);
}

#[test]
fn a_label_may_have_an_empty_value() {
    let mut d = Draft::new("default");
    set(&mut d, name(), Kind::Required, "labels");
    set(&mut d, spec().key("image"), Kind::Text, "busybox");
    let labels = spec().key("labels");
    d.push_row(&labels, row());
    set(&mut d, labels.index(0).key("name"), Kind::Required, "flag");
    set(&mut d, labels.index(0).key("value"), Kind::Verbatim, "");
    let request = d.validate().expect("valid");
    assert_eq!(
        request["spec"]["labels"],
        json!([{"name": "flag", "value": ""}])
    );
}

#[test]
fn fractional_gpus_keep_their_device_count_until_the_style_changes() {
    let original = json!({
        "name": "halves", "projectId": "p",
        "spec": {"image": "busybox", "compute": {
            "gpuDevicesRequest": 2, "gpuRequestType": "portion",
            "gpuPortionRequest": 0.5, "gpuPortionLimit": 0.75
        }}
    });
    let draft = Draft::from_stored(&original);
    assert_eq!(draft.gpu_mode(), GpuMode::Portion);
    assert_eq!(draft.validate().expect("valid"), original);

    let mut mig = draft.clone();
    mig.set_gpu_mode(GpuMode::Mig);
    set(&mut mig, compute().key("migProfile"), Kind::Text, "1g.5gb");
    assert_eq!(
        mig.validate().expect("valid")["spec"]["compute"],
        json!({"gpuDevicesRequest": 2, "gpuRequestType": "migProfile", "migProfile": "1g.5gb"})
    );
    let mut whole = draft.clone();
    whole.set_gpu_mode(GpuMode::Devices);
    assert_eq!(
        whole.validate().expect("valid")["spec"]["compute"],
        json!({"gpuDevicesRequest": 2})
    );
    let mut none = draft;
    none.set_gpu_mode(GpuMode::None);
    assert!(none.to_request()["spec"].get("compute").is_none());
    none.set_gpu_mode(GpuMode::Devices);
    assert_eq!(none.gpu_mode(), GpuMode::Devices, "whole GPUs start at one");
}

#[test]
fn a_master_unlike_its_workers_comes_back_whole() {
    let original = json!({
        "name": "tf", "projectId": "p",
        "spec": {
            "image": "tensorflow/tensorflow",
            "distributedFramework": "TF",
            "numWorkers": 3,
            "minReplicas": 2,
            "masterSpecSameAsWorker": false,
            "master": {"image": "tensorflow/tensorflow:chief", "compute": {"cpuCoreRequest": 2, "largeShmRequest": true}}
        }
    });
    let mut draft = Draft::from_stored(&original);
    assert!(draft.is_distributed());
    assert!(draft.master_own());
    assert_eq!(draft.unshown_keys(), Vec::<String>::new());
    assert_eq!(draft.validate().expect("valid"), original);
    set(
        &mut draft,
        fields::master().key("compute").key("cpuCoreRequest"),
        Kind::Number,
        "4",
    );
    let again = draft.validate().expect("valid");
    assert_eq!(
        again["spec"]["master"],
        json!({"image": "tensorflow/tensorflow:chief", "compute": {"cpuCoreRequest": 4, "largeShmRequest": true}})
    );
    assert_eq!(again["spec"]["minReplicas"], 2);
}

#[test]
fn odd_json_is_kept_for_the_parser_to_name_never_a_panic() {
    for value in [
        json!(null),
        json!(3),
        json!([1]),
        json!({"spec": "x"}),
        json!({"name": 5, "projectId": {}, "spec": []}),
        json!({"spec": {"compute": 1, "storage": {"nfs": 2}}}),
        json!({"spec": {"environmentVariables": [1, null, {"secret": 2}], "labels": "x",
                        "tolerations": [[]], "nodePools": [1, [2]], "podAffinity": 4}}),
        json!({"spec": {"numWorkers": "x", "master": 5, "masterSpecSameAsWorker": false}}),
        json!({"spec": {"distributedFramework": {}, "master": {"compute": 5}}}),
    ] {
        let mut draft = Draft::from_stored(&value);
        let _ = draft.validate();
        // Every kind of edit on odd shapes.
        draft.set_gpu_mode(GpuMode::Portion);
        draft.set_distributed(!draft.is_distributed());
        let env = spec().key("environmentVariables");
        draft.push_row(&env, row());
        set(&mut draft, env.index(0).key("name"), Kind::Text, "A");
        draft.remove_row(&env, 5);
        set(
            &mut draft,
            compute().key("cpuCoreRequest"),
            Kind::Number,
            "1",
        );
        let _ = draft.validate();
    }
}

#[test]
fn a_posted_form_converts_each_field_as_the_browser_does() {
    let base = pytorch();
    let mut posted = BTreeMap::new();
    posted.insert(
        posted::DOCUMENT.to_owned(),
        serde_json::to_string(&base).unwrap(),
    );
    posted.insert(posted::DISTRIBUTED.to_owned(), "true".to_owned());
    posted.insert(posted::GPU_MODE.to_owned(), "devices".to_owned());
    let mut field = |kind: Kind, path: Path, text: &str| {
        posted.insert(posted::input_name(kind, &path), text.to_owned());
    };
    field(Kind::Required, name(), "posted");
    field(Kind::Number, spec().key("numWorkers"), "4");
    field(Kind::Number, compute().key("gpuDevicesRequest"), "2");
    field(
        Kind::Text,
        spec().key("tolerations").index(0).key("value"),
        " ",
    );
    let shm = compute().key("largeShmRequest");
    posted.insert(posted::unchecked_name(Kind::Flag, &shm), String::new());
    let non_root = fields::security().key("runAsNonRoot");
    posted.insert(posted::unchecked_name(Kind::Flag, &non_root), String::new());
    posted.insert(posted::input_name(Kind::Flag, &shm), "true".to_owned());
    let draft = Draft::from_posted(&posted);
    let request = draft.validate().expect("valid");
    assert_eq!(request["name"], "posted");
    assert_eq!(request["spec"]["numWorkers"], 4);
    assert_eq!(request["spec"]["compute"]["gpuDevicesRequest"], 2);
    assert_eq!(request["spec"]["compute"]["largeShmRequest"], true);
    assert!(
        request["spec"]["security"].get("runAsNonRoot").is_none(),
        "unchecked"
    );
    assert_eq!(
        request["spec"]["environmentVariables"][0]["name"], "HF_TOKEN",
        "from the document"
    );

    let mut single = posted.clone();
    single.remove(posted::DISTRIBUTED);
    let draft = Draft::from_posted(&single);
    assert!(!draft.is_distributed());
}

#[test]
fn the_keys_the_form_names_are_the_keys_serde_writes() {
    let toleration = Toleration {
        name: Some(String::new()),
        operator: None,
        key: Some(String::new()),
        value: Some(String::new()),
        effect: None,
        seconds: Some(1),
    };
    let written = serde_json::to_value(&toleration).unwrap();
    for key in [
        key!(Toleration.name),
        key!(Toleration.key),
        key!(Toleration.value),
        key!(Toleration.seconds),
    ] {
        assert!(written.get(&key).is_some(), "{key} in {written}");
    }
    let affinity = serde_json::to_value(fields::sample_pod_affinity()).unwrap();
    assert!(
        affinity.get(fields::pod_affinity_type_key()).is_some(),
        "{affinity}"
    );
}
