use super::*;
use serde_json::json;

fn policy(source: &str, body: Value) -> Policy {
    Policy::parse(source, &body).unwrap()
}

fn system() -> Policy {
    policy("the system policy", node_protection())
}

fn refusals(spec: Value, layers: &[Policy]) -> Vec<(String, String)> {
    check(&spec, "spec", layers)
        .into_iter()
        .map(|e| (e.path, e.message))
        .collect()
}

#[test]
fn node_protection_refuses_what_reaches_into_the_node() {
    let spec = json!({
        "image": "x",
        "security": { "hostNetwork": true, "hostIpc": true, "capabilities": ["CHOWN", "SYS_ADMIN"],
                      "runAsUid": 0, "seccompProfileType": "Unconfined" },
        "storage": { "hostPath": [{ "name": "h", "path": "/var", "mountPath": "/h" }] }
    });
    let found = refusals(spec, &[system()]);
    let message = |path: &str| {
        found
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, m)| m.clone())
            .unwrap_or_default()
    };
    let mut paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "spec.security.capabilities",
            "spec.security.hostIpc",
            "spec.security.hostNetwork",
            "spec.security.runAsUid",
            "spec.security.seccompProfileType",
            "spec.storage.hostPath",
        ]
    );
    assert_eq!(
        message("spec.security.hostNetwork"),
        "cannot be changed: it is locked to unset (the system policy)"
    );
    assert!(
        message("spec.security.capabilities")
            .starts_with("\"SYS_ADMIN\" is not allowed: one of \"AUDIT_WRITE\"")
    );
    assert_eq!(
        message("spec.security.runAsUid"),
        "must be at least 1 (the system policy)"
    );
    assert_eq!(
        message("spec.storage.hostPath"),
        "allows no entries to be added (the system policy)"
    );
}

#[test]
fn every_container_runs_as_non_root_and_a_request_cannot_turn_it_off() {
    let mut spec = json!({ "image": "x" });
    fill_defaults(&mut spec, &[system()]);
    assert_eq!(spec["security"]["runAsNonRoot"], json!(true));
    assert!(refusals(spec, &[system()]).is_empty());
    let off = json!({ "image": "x", "security": { "runAsNonRoot": false } });
    assert_eq!(
        refusals(off, &[system()]),
        [(
            "spec.security.runAsNonRoot".to_owned(),
            "cannot be changed: it is locked to true (the system policy)".to_owned()
        )]
    );
    // A system policy that names the rule itself may let requests run as their image's user.
    let relaxed = system_layer(Some(&json!({
        "defaults": { "security": { "runAsNonRoot": false } },
        "rules": { "security": { "runAsNonRoot": { "canEdit": true } } }
    })));
    let relaxed = policy("the system policy", relaxed);
    let off = json!({ "image": "x", "security": { "runAsNonRoot": false } });
    assert!(refusals(off, &[relaxed]).is_empty());
}

#[test]
fn a_request_within_the_rules_passes_and_false_counts_as_unset() {
    let spec = json!({ "image": "x", "security": { "hostNetwork": false, "capabilities": ["CHOWN"],
                       "runAsUid": 500, "seccompProfileType": "RuntimeDefault" } });
    assert!(refusals(spec, &[system()]).is_empty());
}

#[test]
fn inner_scopes_narrow_and_name_themselves() {
    let project = policy(
        "project \"vision\"'s policy",
        json!({ "defaults": { "compute": { "gpuDevicesRequest": 1 } },
                "rules": { "compute": { "gpuDevicesRequest": { "min": 1, "max": 4 } },
                           "image": { "required": true, "registries": ["registry.example.org/"] } } }),
    );
    let found = refusals(
        json!({ "image": "docker.io/x", "compute": { "gpuDevicesRequest": 8 } }),
        &[system(), project.clone()],
    );
    assert_eq!(
        found,
        [
            (
                "spec.compute.gpuDevicesRequest".to_owned(),
                "must be at most 4 (project \"vision\"'s policy)".to_owned()
            ),
            (
                "spec.image".to_owned(),
                "\"docker.io/x\" is not from an allowed registry: registry.example.org/ \
                 (project \"vision\"'s policy)"
                    .to_owned()
            ),
        ]
    );
    let missing = refusals(json!({}), &[project]);
    assert_eq!(missing[0].1, "is required (project \"vision\"'s policy)");
}

#[test]
fn defaults_fill_what_the_request_leaves_out() {
    let outer = policy(
        "a",
        json!({ "defaults": { "compute": { "gpuDevicesRequest": 1, "cpuCoreRequest": 1 } } }),
    );
    let inner = policy(
        "b",
        json!({ "defaults": { "compute": { "gpuDevicesRequest": 2 } } }),
    );
    let mut spec = json!({ "image": "x", "compute": { "cpuCoreRequest": 4 } });
    fill_defaults(&mut spec, &[outer, inner]);
    assert_eq!(
        spec["compute"],
        json!({ "gpuDevicesRequest": 2, "cpuCoreRequest": 4 })
    );
}

#[test]
fn a_locked_field_keeps_its_default() {
    let p = policy(
        "p",
        json!({ "defaults": { "nodePools": ["a"] }, "rules": { "nodePools": { "canEdit": false } } }),
    );
    assert!(refusals(json!({ "nodePools": ["a"] }), std::slice::from_ref(&p)).is_empty());
    let found = refusals(json!({ "nodePools": ["b"] }), &[p]);
    assert_eq!(found[0].1, "cannot be changed: it is locked to [\"a\"] (p)");
}

#[test]
fn widening_an_outer_rule_is_refused() {
    let inner = policy(
        "project",
        json!({ "rules": { "security": { "hostNetwork": { "canEdit": true },
                                         "runAsUid": { "min": 0 } } } }),
    );
    let found = widenings(&inner, &[system()]);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].path, "policy.rules.security.hostNetwork");
    assert_eq!(
        found[0].message,
        "it lets the field be changed, which the system policy does not allow"
    );
    assert!(found[1].message.starts_with("its min 0 is below 1"));
}

#[test]
fn malformed_rules_name_their_path() {
    let errors = Policy::parse(
        "p",
        &json!({ "rules": { "compute": { "gpuDevicesRequest": { "min": "one" } },
                            "image": { "options": "x" }, "x": 3 } }),
    )
    .unwrap_err();
    let mut found: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.path.as_str(), e.message.as_str()))
        .collect();
    found.sort_unstable();
    assert_eq!(
        found,
        [
            (
                "policy.rules.compute.gpuDevicesRequest",
                "min must be a number"
            ),
            ("policy.rules.image", "options must be a list"),
            (
                "policy.rules.x",
                "must be an object of fields or of rule keywords (required, canEdit, canAdd, min, max, step, options, registries, locked)"
            ),
        ]
    );
}

#[test]
fn the_effective_view_combines_the_narrowest() {
    let inner = policy(
        "p",
        json!({ "rules": { "security": { "runAsUid": { "min": 1000 } } } }),
    );
    let view = effective_rules(&[system(), inner]);
    assert_eq!(view["security"]["runAsUid"], json!({ "min": 1000.0 }));
    assert_eq!(view["security"]["hostNetwork"], json!({ "canEdit": false }));
    assert_eq!(view["storage"]["hostPath"], json!({ "canAdd": false }));
}

#[test]
fn namespaces_enforce_the_baseline_only_while_the_policies_keep_to_it() {
    assert_eq!(pod_security_level(&[system()]), "baseline");
    let open = policy("the system policy", json!({ "rules": {} }));
    assert_eq!(pod_security_level(&[open]), "privileged");
    // An inner default cannot move the system's lock (requests under it are refused), so it
    // does not lower the namespace's level either.
    let host_network_default = policy(
        "project",
        json!({ "defaults": { "security": { "hostNetwork": true } } }),
    );
    assert_eq!(
        pod_security_level(&[system(), host_network_default]),
        "baseline"
    );
    let relaxed = json!({ "rules": { "security": { "hostNetwork": { "canEdit": true } } } });
    let relaxed = policy("the system policy", system_layer(Some(&relaxed)));
    assert_eq!(pod_security_level(&[relaxed]), "privileged");
}

/// A system policy that sets one default keeps every node protection; relaxing one takes a rule
/// for it, which the audit trail records.
#[test]
fn node_protection_is_a_base_a_system_policy_cannot_drop_by_omission() {
    let one_default = json!({ "defaults": { "image": "registry.example.org/base" } });
    let system = policy("the system policy", system_layer(Some(&one_default)));
    let spec = json!({ "image": "x", "security": { "hostNetwork": true },
                       "storage": { "hostPath": [{ "name": "h", "path": "/", "mountPath": "/h" }] } });
    let paths: Vec<String> = refusals(spec.clone(), &[system])
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        paths,
        ["spec.security.hostNetwork", "spec.storage.hostPath"]
    );
    assert!(node_protection_overridden(&one_default).is_empty());

    let relaxing = json!({ "rules": { "security": { "hostNetwork": { "canEdit": true } } } });
    let system = policy("the system policy", system_layer(Some(&relaxing)));
    let paths: Vec<String> = refusals(spec, &[system])
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(paths, ["spec.storage.hostPath"]);
    assert_eq!(
        node_protection_overridden(&relaxing),
        ["security.hostNetwork"]
    );
    assert_eq!(system_layer(None), node_protection());
}

/// A request that names no seccomp profile gets `RuntimeDefault`, not the kubelet's default
/// (`Unconfined` on most nodes), with or without a stored system policy; one the system policy
/// sets itself, or the request, wins where the rules allow it.
#[test]
fn an_unnamed_seccomp_profile_is_runtime_default() {
    let seccomp = |system: Value, spec: Value| {
        let mut request = json!({ "name": "t", "projectId": "p", "spec": spec });
        crate::model::policy::apply_defaults(
            &mut request,
            &[policy("the system policy", system_layer(Some(&system)))],
        );
        request["spec"]["security"]["seccompProfileType"].clone()
    };
    let bare = json!({ "image": "x" });
    let one_default = json!({ "defaults": { "image": "registry.example.org/base" } });
    assert_eq!(seccomp(one_default, bare.clone()), "RuntimeDefault");
    let mut none = json!({ "name": "t", "projectId": "p", "spec": bare.clone() });
    crate::model::policy::apply_defaults(&mut none, &[system()]);
    assert_eq!(
        none["spec"]["security"]["seccompProfileType"],
        "RuntimeDefault"
    );
    let unconfined = json!({
        "defaults": { "security": { "seccompProfileType": "Unconfined" } },
        "rules": { "security": { "seccompProfileType": { "options": ["RuntimeDefault", "Unconfined"] } } }
    });
    assert_eq!(seccomp(unconfined.clone(), bare), "Unconfined");
    let own = json!({ "image": "x", "security": { "seccompProfileType": "Unconfined" } });
    assert_eq!(seccomp(unconfined, own), "Unconfined");
}
