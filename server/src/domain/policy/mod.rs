//! Run:ai's policy model for trainings: per scope (the system, a department, a project), the
//! `defaults` a request starts from and the `rules` it must keep (`required`, `canEdit`, `canAdd`,
//! `min`, `max`, `step`, `options`, and Tephra's `registries` for images), both shaped like the
//! request's `spec`. Pure: policies and a request come in, refusals naming the field, the rule
//! and the scope that set it come out.
//!
//! A request is checked against every scope's rules in turn, so an inner scope can only narrow
//! what an outer one allows; saving an inner policy that would widen one is refused too
//! ([`widenings`]). Until a system administrator sets the system policy, [`node_protection`]
//! stands in for it.

mod rules;

pub use rules::{Rule, RuleError, flatten};

use app::model::validation::FieldError;
use serde_json::{Map, Value, json};

/// One scope's policy, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Who set it, for people: "the system policy", "department \"research\"'s policy".
    pub source: String,
    pub defaults: Value,
    /// Rules by dotted path below `spec` (`security.hostNetwork`).
    pub rules: Vec<(String, Rule)>,
}

impl Policy {
    /// Parses a policy body (`{defaults, rules}`); errors name the path in the body.
    pub fn parse(source: &str, body: &Value) -> Result<Policy, Vec<FieldError>> {
        let defaults = body.get("defaults").cloned().unwrap_or_else(|| json!({}));
        let mut errors = Vec::new();
        if !defaults.is_object() {
            errors.push(FieldError {
                path: "policy.defaults".into(),
                message: "must be an object shaped like the request's spec".into(),
            });
        }
        let rules = match body.get("rules") {
            None | Some(Value::Null) => Vec::new(),
            Some(rules) => flatten(rules).unwrap_or_else(|e| {
                errors.extend(e.into_iter().map(|e| FieldError {
                    path: format!("policy.rules.{}", e.path),
                    message: e.message,
                }));
                Vec::new()
            }),
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Policy {
            source: source.to_owned(),
            defaults,
            rules,
        })
    }
}

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

/// Reads `path` (dotted) below `value`.
pub fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(value, |v, key| v.get(key))
        .filter(|v| !v.is_null())
}

/// The layers' defaults merged, inner over outer.
pub fn merged_defaults(layers: &[Policy]) -> Value {
    let mut merged = json!({});
    for layer in layers {
        merge(&mut merged, &layer.defaults);
    }
    merged
}

fn merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                merge(into.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (into, from) => *into = from.clone(),
    }
}

/// Fills what `spec` leaves out (absent or `null`) from the layers' defaults; what it sets stays.
pub fn apply_defaults(spec: &mut Value, layers: &[Policy]) {
    fill(spec, &merged_defaults(layers));
}

fn fill(spec: &mut Value, defaults: &Value) {
    let (Value::Object(spec), Value::Object(defaults)) = (spec, defaults) else {
        return;
    };
    for (key, default) in defaults {
        match spec.get_mut(key) {
            None | Some(Value::Null) => {
                spec.insert(key.clone(), default.clone());
            }
            Some(present) => fill(present, default),
        }
    }
}

/// Checks the spec at `at` (`spec`, or `spec.master`) against every layer's rules.
pub fn check(spec: &Value, at: &str, layers: &[Policy]) -> Vec<FieldError> {
    check_with(spec, at, layers, true)
}

/// Checks a policy's defaults against the rules: as [`check`], except that a default need not
/// fill every required field (the request does).
pub fn check_defaults(defaults: &Value, layers: &[Policy]) -> Vec<FieldError> {
    check_with(defaults, "policy.defaults", layers, false)
}

fn check_with(spec: &Value, at: &str, layers: &[Policy], required: bool) -> Vec<FieldError> {
    let defaults = merged_defaults(layers);
    let mut errors = Vec::new();
    for layer in layers {
        for (path, rule) in &layer.rules {
            let value = lookup(spec, path);
            if !required && value.is_none() {
                continue;
            }
            let default = lookup(&defaults, path);
            if let Some(message) = rule.refusal(value, default) {
                errors.push(FieldError {
                    path: format!("{at}.{path}"),
                    message: format!("{message} ({})", layer.source),
                });
            }
        }
    }
    errors
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
