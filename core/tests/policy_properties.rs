//! Property tests of the trust boundary: no request node protection admits renders a pod the
//! `baseline` Pod Security Standard forbids or a container that may run as root, and no generated inner layer (defaults and rules)
//! lets an accepted request change what an outer layer locks.

mod common;

use common::{placement, profile};
use proptest::prelude::*;
use serde_json::{Value, json};
use tephra_core::domain::policy::{self, Policy};
use tephra_core::domain::request::{Request, WorkloadKind};

/// Security and storage settings a request may try, the dangerous ones included.
fn risky_spec() -> impl Strategy<Value = Value> {
    (
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        prop::collection::vec(
            prop::sample::select(vec![
                "CHOWN",
                "KILL",
                "SYS_ADMIN",
                "SYS_MODULE",
                "NET_ADMIN",
            ]),
            0..3,
        ),
        prop::option::of(prop::sample::select(vec![
            "RuntimeDefault",
            "Unconfined",
            "Localhost",
        ])),
        prop::option::of(0i64..2000),
        prop::option::weighted(
            0.2,
            prop::sample::select(vec!["/", "/var/run", "/datasets"]),
        ),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(net, ipc, caps, seccomp, uid, host_path, non_root)| {
            let mut security = json!({ "hostNetwork": net, "hostIpc": ipc, "capabilities": caps });
            if let Some(non_root) = non_root {
                security["runAsNonRoot"] = json!(non_root);
            }
            if let Some(s) = seccomp {
                security["seccompProfileType"] = json!(s);
                if s == "Localhost" {
                    security["seccompLocalhostProfile"] = json!("profiles/train.json");
                }
            }
            if let Some(uid) = uid {
                security["uidGidSource"] = json!("custom");
                security["runAsUid"] = json!(uid);
                security["runAsGid"] = json!(100);
            }
            let mut spec = json!({ "image": "pytorch/pytorch", "security": security });
            if let Some(path) = host_path {
                spec["storage"] =
                    json!({ "hostPath": [{ "name": "h", "path": path, "mountPath": "/h" }] });
            }
            spec
        })
}

/// What `baseline` forbids in a rendered pod spec, if anything.
fn baseline_violation(pod: &Value) -> Option<String> {
    if pod["hostNetwork"] == json!(true)
        || pod["hostIPC"] == json!(true)
        || pod["hostPID"] == json!(true)
    {
        return Some("host namespaces".into());
    }
    let volumes = pod["volumes"].as_array().cloned().unwrap_or_default();
    if volumes.iter().any(|v| v.get("hostPath").is_some()) {
        return Some("a hostPath volume".into());
    }
    let baseline = policy::BASELINE_CAPABILITIES;
    for c in pod["containers"].as_array().into_iter().flatten() {
        let ctx = &c["securityContext"];
        if ctx["privileged"] == json!(true) {
            return Some("a privileged container".into());
        }
        for cap in ctx["capabilities"]["add"].as_array().into_iter().flatten() {
            if !baseline.contains(&cap.as_str().unwrap_or_default()) {
                return Some(format!("capability {cap}"));
            }
        }
        if ctx["seccompProfile"]["type"] == json!("Unconfined") {
            return Some("unconfined seccomp".into());
        }
    }
    if pod["securityContext"]["seccompProfile"]["type"] == json!("Unconfined") {
        return Some("unconfined seccomp".into());
    }
    None
}

fn layers(inner_defaults: Value, inner_rules: Value) -> Vec<Policy> {
    let system = Policy::parse("the system policy", &policy::system_layer(None)).unwrap();
    let project = json!({ "defaults": inner_defaults, "rules": inner_rules });
    match Policy::parse("project \"p\"'s policy", &project) {
        Ok(p) => vec![system, p],
        Err(_) => vec![system],
    }
}

/// How many generated requests passed and were rendered: a property that checked none would
/// prove nothing.
static ACCEPTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Under node protection with any project layer on top, whatever passes renders within
    /// `baseline`.
    #[test]
    fn nothing_admitted_under_node_protection_breaks_baseline(
        spec in risky_spec(),
        inner in risky_spec(),
        lock_inner in any::<bool>(),
    ) {
        let rules = if lock_inner { json!({ "security": { "hostIpc": { "canEdit": false } } }) } else { json!({}) };
        let inner_defaults = inner.as_object().map(|o| {
            let mut o = o.clone();
            o.remove("image");
            Value::Object(o)
        }).unwrap_or_default();
        let layers = layers(inner_defaults, rules);
        prop_assert_eq!(policy::pod_security_level(&layers), "baseline");
        let mut value = json!({ "name": "p", "projectId": "p", "spec": spec });
        policy::apply_defaults(&mut value, &layers);
        let Ok(request) = Request::parse(&value, WorkloadKind::Training) else {
            return Ok(());
        };
        if !policy::refusals(&value, &request, &layers, &profile()).is_empty() {
            return Ok(());
        }
        ACCEPTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let rendered = request
            .render(&request.owner(&placement(None)), &profile())
            .map_err(|e| TestCaseError::fail(format!("{e:#?}")))?;
        let job = serde_json::to_value(&rendered.job).unwrap();
        for task in job["spec"]["tasks"].as_array().into_iter().flatten() {
            let pod = &task["template"]["spec"];
            prop_assert_eq!(baseline_violation(pod), None, "{:#}\nrendered {:#}", value, pod);
            // No container may run as uid 0: the kubelet refuses one whose image would.
            for c in pod["containers"].as_array().into_iter().flatten() {
                prop_assert_eq!(&c["securityContext"]["runAsNonRoot"], &json!(true), "{:#}", pod);
            }
            prop_assert_eq!(&pod["automountServiceAccountToken"], &json!(false));
        }
    }
}

#[test]
fn the_property_renders_some_requests() {
    nothing_admitted_under_node_protection_breaks_baseline();
    assert!(ACCEPTED.load(std::sync::atomic::Ordering::Relaxed) > 10);
}
