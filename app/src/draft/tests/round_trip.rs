//! Drafts made from stored requests (clones, seeds, posted forms) and back: every key kept,
//! odd input named by the parser, never a panic.

use super::super::fields::{compute, name, spec};
use super::super::*;
use super::{paths, pytorch, row, set};
use serde_json::json;
use std::collections::BTreeMap;
use tephra_core::model::training::request::Toleration;

fn seed(file: &str) -> Value {
    let text = match file {
        "consistent" => {
            include_str!("../../../../core/tests/fixtures/seed-003-consistent.json")
        }
        _ => include_str!("../../../../core/tests/fixtures/seed-003-request.json"),
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
            "gpuPortionRequest": 0.5, "gpuPortionLimit": 0.5
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
    assert_eq!(again["spec"]["numWorkers"], 3);
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
