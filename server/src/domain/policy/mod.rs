//! What only the server decides about policies: the built-in system policy
//! ([`node_protection`], until a system administrator sets one), whether saving an inner policy
//! would widen an outer one ([`widenings`]), the effective rules the API shows, and the Pod
//! Security level a project's policies allow. Parsing, defaults and checking a request are
//! [`app::model::policy`]'s, shared with the form.

pub use app::model::policy::{
    Policy, Rule, apply_defaults, check, check_defaults, check_request, fill_defaults, lookup,
    merged_defaults,
};

use app::model::validation::FieldError;
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
/// paths, host network or IPC, capabilities beyond the baseline, uid 0, no seccomp profile).
pub fn node_protection() -> Value {
    json!({
        "defaults": {},
        "rules": {
            "security": {
                "hostNetwork": { "canEdit": false },
                "hostIpc": { "canEdit": false },
                "capabilities": { "options": BASELINE_CAPABILITIES },
                "runAsUid": { "min": 1 },
                "seccompProfileType": { "options": ["RuntimeDefault"] }
            },
            "storage": { "hostPath": { "canAdd": false } }
        }
    })
}

/// The Pod Security Standard a project's namespace can enforce: `baseline` when its policies keep
/// every request within it (host network and IPC locked off, no host paths, capabilities within
/// the baseline's, no unconfined seccomp), else `privileged`.
pub fn pod_security_level(layers: &[Policy]) -> &'static str {
    let defaults = merged_defaults(layers);
    let ruled = |path: &str, holds: &dyn Fn(&Rule) -> bool| {
        layers
            .iter()
            .any(|l| l.rules.iter().any(|(p, r)| p == path && holds(r)))
    };
    let off_by_default = |path: &str| lookup(&defaults, path).is_none_or(|v| v == &json!(false));
    let safe = ruled("security.hostNetwork", &|r| r.can_edit == Some(false))
        && off_by_default("security.hostNetwork")
        && ruled("security.hostIpc", &|r| r.can_edit == Some(false))
        && off_by_default("security.hostIpc")
        && ruled("storage.hostPath", &|r| r.can_add == Some(false))
        && lookup(&defaults, "storage.hostPath").is_none()
        && ruled("security.capabilities", &|r| {
            options_within(r, &BASELINE_CAPABILITIES)
        })
        && ruled("security.seccompProfileType", &|r| {
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
