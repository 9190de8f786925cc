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

/// A system policy that locks host network off, and a project policy whose defaults try to
/// turn it on: the project's default never moves the system's lock.
#[test]
fn an_inner_default_cannot_move_an_outer_lock() {
    let layers = vec![
        layer(
            "the system policy",
            json!({ "rules": { "security": { "hostNetwork": { "canEdit": false } } } }),
        ),
        layer(
            "project \"a\"'s policy",
            json!({ "defaults": { "security": { "hostNetwork": true } } }),
        ),
    ];
    let mut request = json!({ "name": "a", "projectId": "a", "spec": { "image": "x" } });
    apply_defaults(&mut request, &layers);
    let refused = check_request(&request, &layers);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].path, "spec.security.hostNetwork");
    assert_eq!(
        refused[0].message,
        "cannot be changed: it is locked to unset (the system policy)"
    );
    let defaults = check_defaults(&layers[1].defaults, &layers);
    assert_eq!(defaults.len(), 1, "{defaults:?}");
    assert_eq!(defaults[0].path, "policy.defaults.security.hostNetwork");
}

/// `canAdd: false` compares entries whole: the offered read-only dataset path cannot become `/`
/// read-write, though the count stays the same.
#[test]
fn can_add_false_admits_only_the_offered_entries_whole() {
    let offered =
        json!([{ "name": "data", "path": "/datasets", "mountPath": "/data", "readOnly": true }]);
    let layers = vec![layer(
        "department \"d\"'s policy",
        json!({ "defaults": { "storage": { "hostPath": offered.clone() } },
                "rules": { "storage": { "hostPath": { "canAdd": false } } } }),
    )];
    let with = |paths: Value| json!({ "spec": { "image": "x", "storage": { "hostPath": paths } } });
    assert!(check_request(&with(offered.clone()), &layers).is_empty());
    assert!(check_request(&with(json!([])), &layers).is_empty());
    for swapped in [
        json!([{ "name": "data", "path": "/", "mountPath": "/data", "readOnly": false }]),
        json!([{ "name": "data", "path": "/datasets", "mountPath": "/data", "readOnly": false }]),
    ] {
        let refused = check_request(&with(swapped), &layers);
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert_eq!(refused[0].path, "spec.storage.hostPath");
        assert!(
            refused[0]
                .message
                .contains("allows only the entries the policy offers"),
            "{}",
            refused[0].message
        );
    }
}

/// Run:ai's top-level `masterSpec` is a pod spec like any other: filled and checked.
#[test]
fn the_top_level_master_spec_is_filled_and_checked() {
    let mut request = json!({
        "spec": { "image": "x" },
        "masterSpec": { "image": "y", "security": { "hostNetwork": true } }
    });
    apply_defaults(&mut request, &layers());
    assert_eq!(
        request["masterSpec"]["compute"]["gpuDevicesRequest"],
        json!(1)
    );
    let paths: Vec<String> = check_request(&request, &layers())
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_eq!(paths, ["masterSpec.security.hostNetwork"]);
}

/// A stored policy that no longer parses refuses every request, naming itself.
#[test]
fn an_unreadable_layer_refuses_everything() {
    let broken = Policy::unreadable(
        "project \"a\"'s policy",
        &[FieldError {
            path: "policy.rules.x".into(),
            message: "must be an object".into(),
        }],
    );
    let refused = check_request(&json!({ "spec": { "image": "x" } }), &[broken]);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].path, "policy");
    assert!(
        refused[0]
            .message
            .starts_with("project \"a\"'s policy no longer parses")
    );
}
