//! What only the server decides about policies: the built-in system policy
//! ([`node_protection`], until a system administrator sets one), whether saving an inner policy
//! would widen an outer one ([`widenings`]), the effective rules the API shows, and the Pod
//! Security level a project's policies allow. Parsing, defaults and checking a request are
//! [`crate::model::policy`]'s, shared with the form.

mod guards;
mod schema;

pub use crate::model::policy::{
    PerKind, Policy, PolicyKind, Rule, apply_defaults, check, check_defaults, check_request,
    fill_defaults, lookup, merged_defaults,
};
pub use guards::{pod_specs, refusals as node_refusals};
pub use schema::RequestSchema;

use crate::model::validation::FieldError;
use serde_json::{Map, Value, json};

/// The Linux capabilities Kubernetes' baseline Pod Security Standard lets a pod add.
pub const BASELINE_CAPABILITIES: [&str; 13] = [
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// The system policy until an administrator sets one: nothing that reaches into the node (host
/// paths, host network or IPC, capabilities beyond the baseline, uid 0, no seccomp profile). A
/// request that names no seccomp profile gets `RuntimeDefault`: left unset, the pod would run
/// with the kubelet's default, which is `Unconfined` unless the node says otherwise. Every
/// container runs with `runAsNonRoot`, locked: a request that names no uid runs as its image's
/// user, root for most images, and only the kubelet knows the image's user, so it is the
/// kubelet that refuses uid 0 (the diagnosis says how to name a uid).
pub fn node_protection() -> Value {
    json!({
        "defaults": {
            "security": { "seccompProfileType": "RuntimeDefault", "runAsNonRoot": true }
        },
        "rules": {
            "security": {
                "hostNetwork": { "canEdit": false },
                "hostIpc": { "canEdit": false },
                "capabilities": { "options": BASELINE_CAPABILITIES },
                "runAsUid": { "min": 1 },
                "runAsNonRoot": { "canEdit": false },
                "seccompProfileType": { "options": ["RuntimeDefault"] }
            },
            "storage": { "hostPath": { "canAdd": false } }
        }
    })
}

/// Everything that keeps a request from being admitted or run: each layer's rules on every pod
/// spec it holds, and node protection. The same check runs at submit, edit and resume, and in
/// the controller before it creates a Job, so a request stored before a policy changed is held
/// to today's.
pub fn refusals(
    value: &Value,
    request: &crate::domain::request::Request,
    layers: &[Policy],
    profile: &crate::domain::cluster::ClusterProfile,
) -> Vec<FieldError> {
    let mut refused = check_request(value, layers);
    refused.extend(node_refusals(request, profile));
    refused
}

/// The system layer a request is checked against: node protection, with the stored system
/// policy (if any) over it. A stored policy replaces node protection's rule for a path only
/// where it names that path itself, so a system policy that sets one default keeps every
/// protection; relaxing one takes an explicit rule for it (audited when saved).
pub fn system_layer(stored: Option<&Value>) -> Value {
    let base = node_protection();
    let Some(stored) = stored else {
        return base;
    };
    let mut body = stored.clone();
    let own: Vec<String> = stored
        .get("rules")
        .and_then(|r| crate::model::policy::flatten(r).ok())
        .map(|rules| rules.into_iter().map(|(path, _)| path).collect())
        .unwrap_or_default();
    let Some(map) = body.as_object_mut() else {
        return body;
    };
    // Node protection's defaults hold where the stored policy names none of its own.
    let defaults = map.entry("defaults").or_insert_with(|| json!({}));
    if defaults.is_null() {
        *defaults = json!({});
    }
    crate::model::policy::fill(defaults, &base["defaults"]);
    let rules = map.entry("rules").or_insert_with(|| json!({}));
    if rules.is_null() {
        *rules = json!({});
    }
    let protected = crate::model::policy::flatten(&base["rules"]).unwrap_or_default();
    for (path, rule) in protected {
        if !own.contains(&path) {
            put(rules, &path, rule.to_json());
        }
    }
    body
}

/// The node protection rules a stored system policy replaces with its own (relaxes or keeps):
/// what saving it changes about the nodes' safety, for the audit trail.
pub fn node_protection_overridden(stored: &Value) -> Vec<String> {
    let Some(own) = stored
        .get("rules")
        .and_then(|r| crate::model::policy::flatten(r).ok())
    else {
        return Vec::new();
    };
    let protected = crate::model::policy::flatten(&node_protection()["rules"]).unwrap_or_default();
    protected
        .into_iter()
        .filter(|(path, rule)| own.iter().any(|(p, r)| p == path && r != rule))
        .map(|(path, _)| path)
        .collect()
}

/// The Pod Security Standard a project's namespace can enforce: `baseline` when its policies keep
/// every request within it (host network and IPC locked off, no host paths, capabilities within
/// the baseline's, no unconfined seccomp), else `privileged`.
pub fn pod_security_level(layers: &[Policy]) -> &'static str {
    // A rule holds against the defaults out to its own layer (see `check`), so whether a lock
    // keeps a field off is read from those defaults, never an inner layer's.
    let ruled = |path: &str, holds: &dyn Fn(&Rule, Option<&Value>) -> bool| {
        layers.iter().enumerate().any(|(i, l)| {
            let defaults = merged_defaults(&layers[..=i]);
            l.unreadable.is_none()
                && l.rules
                    .iter()
                    .any(|(p, r)| p == path && holds(r, lookup(&defaults, path)))
        })
    };
    let off = |v: Option<&Value>| v.is_none_or(|v| v == &json!(false));
    let none = |v: Option<&Value>| v.is_none_or(|v| v.as_array().is_some_and(Vec::is_empty));
    let safe = ruled("security.hostNetwork", &|r, d| {
        r.can_edit == Some(false) && off(d)
    }) && ruled("security.hostIpc", &|r, d| {
        r.can_edit == Some(false) && off(d)
    }) && ruled("storage.hostPath", &|r, d| {
        r.can_add == Some(false) && none(d)
    }) && ruled("security.capabilities", &|r, _| {
        options_within(r, &BASELINE_CAPABILITIES)
    }) && ruled("security.seccompProfileType", &|r, _| {
        options_within(r, &["RuntimeDefault", "Localhost"])
    });
    if safe { "baseline" } else { "privileged" }
}

/// Whether the rule allows only values among `allowed`.
fn options_within(rule: &Rule, allowed: &[&str]) -> bool {
    rule.options.as_ref().is_some_and(|options| {
        options
            .iter()
            .all(|o| o.as_str().is_some_and(|o| allowed.contains(&o)))
    })
}

/// Where `inner`'s rules would allow more than `outer`'s (the effective policy of the scopes
/// around it): an inner scope may only narrow.
pub fn widenings(inner: &Policy, outer: &[Policy]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (path, rule) in &inner.rules {
        for layer in outer {
            for (outer_path, outer_rule) in &layer.rules {
                if outer_path != path {
                    continue;
                }
                if let Some(why) = rule.widens(outer_rule) {
                    errors.push(FieldError {
                        path: format!("policy.rules.{path}"),
                        message: format!("{why}, which {} does not allow", layer.source),
                    });
                }
            }
        }
    }
    errors
}

/// The layers' rules combined into one view per path, for the effective policy the form shows.
pub fn effective_rules(layers: &[Policy]) -> Value {
    let mut by_path: Vec<(String, Rule)> = Vec::new();
    for layer in layers {
        for (path, rule) in &layer.rules {
            match by_path.iter_mut().find(|(p, _)| p == path) {
                Some((_, existing)) => *existing = existing.narrowed_by(rule),
                None => by_path.push((path.clone(), rule.clone())),
            }
        }
    }
    let mut out = Value::Object(Map::new());
    for (path, rule) in by_path {
        put(&mut out, &path, rule.to_json());
    }
    out
}

/// Sets `value` at the dotted `path`, making the objects on the way.
fn put(into: &mut Value, path: &str, value: Value) {
    let Some((first, rest)) = path.split_once('.') else {
        if let Value::Object(map) = into {
            map.insert(path.to_owned(), value);
        }
        return;
    };
    if let Value::Object(map) = into {
        let child = map.entry(first.to_owned()).or_insert_with(|| json!({}));
        put(child, rest, value);
    }
}

#[cfg(test)]
mod tests;
