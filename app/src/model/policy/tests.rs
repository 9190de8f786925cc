use super::*;

fn layer(source: &str, body: Value) -> Policy {
    Policy::parse(source, &body).unwrap()
}

fn layers() -> Vec<Policy> {
    vec![
        layer(
            "the system policy",
            json!({ "rules": { "security": { "hostNetwork": { "canEdit": false } },
                               "compute": { "gpuDevicesRequest": { "max": 8 } } } }),
        ),
        layer(
            "project \"a\"'s policy",
            json!({ "defaults": { "compute": { "gpuDevicesRequest": 1 } },
                    "rules": { "compute": { "gpuDevicesRequest": { "min": 1, "max": 4 } },
                               "imagePullPolicy": { "options": [{ "value": "Always", "displayed": "always" }] } } }),
        ),
    ]
}

#[test]
fn a_field_rule_is_the_narrowest_of_the_layers_and_names_who_set_it() {
    let rule = FieldRule::of(&layers(), "compute.gpuDevicesRequest").unwrap();
    assert_eq!((rule.rule.min, rule.rule.max), (Some(1.0), Some(4.0)));
    assert_eq!(rule.default, Some(json!(1)));
    assert_eq!(
        rule.describe(),
        "Allowed: from 1 to 4; set by the system policy and project \"a\"'s policy."
    );
    let locked = FieldRule::of(&layers(), "security.hostNetwork").unwrap();
    assert!(locked.locked());
    assert_eq!(locked.describe(), "Locked by the system policy.");
    let options = FieldRule::of(&layers(), "imagePullPolicy").unwrap();
    assert_eq!(
        options.describe(),
        "Allowed: one of Always; set by project \"a\"'s policy."
    );
    assert_eq!(FieldRule::of(&layers(), "image"), None);
}

#[test]
fn a_request_is_filled_then_checked_in_every_spec_it_holds() {
    let mut request = json!({
        "name": "a", "projectId": "a",
        "spec": { "image": "x", "master": { "image": "y", "security": { "hostNetwork": true } } }
    });
    apply_defaults(&mut request, &layers());
    assert_eq!(request["spec"]["compute"]["gpuDevicesRequest"], json!(1));
    assert_eq!(
        request["spec"]["master"]["compute"]["gpuDevicesRequest"],
        json!(1)
    );
    let refused: Vec<(String, String)> = check_request(&request, &layers())
        .into_iter()
        .map(|e| (e.path, e.message))
        .collect();
    assert_eq!(
        refused,
        [(
            "spec.master.security.hostNetwork".to_owned(),
            "cannot be changed: it is locked to unset (the system policy)".to_owned()
        )]
    );
}

#[test]
fn generic_replicas_are_checked_each_under_its_own_path() {
    let request = json!({
        "spec": { "replicaSpecs": [
            { "spec": { "compute": { "gpuDevicesRequest": 2 } } },
            { "spec": { "compute": { "gpuDevicesRequest": 9 } } }
        ] }
    });
    let paths: Vec<String> = check_request(&request, &layers())
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_eq!(
        paths,
        [
            "spec.replicaSpecs[1].spec.compute.gpuDevicesRequest",
            "spec.replicaSpecs[1].spec.compute.gpuDevicesRequest"
        ]
    );
}

#[test]
fn the_preview_lists_every_ruled_or_defaulted_field() {
    let fields = preview(&layers());
    let lines: Vec<(&str, Option<&str>, Option<&str>)> = fields
        .iter()
        .map(|f| (f.path.as_str(), f.rule.as_deref(), f.default.as_deref()))
        .collect();
    assert_eq!(
        lines,
        [
            (
                "spec.compute.gpuDevicesRequest",
                Some("Allowed: from 1 to 4; set by the system policy and project \"a\"'s policy."),
                Some("1")
            ),
            (
                "spec.imagePullPolicy",
                Some("Allowed: one of Always; set by project \"a\"'s policy."),
                None
            ),
            (
                "spec.security.hostNetwork",
                Some("Locked by the system policy."),
                None
            ),
        ]
    );
}
