//! Run:ai's policy model for trainings: per scope (the system, a department, a project), the
//! `defaults` a request starts from and the `rules` it must keep (`required`, `canEdit`, `canAdd`,
//! `min`, `max`, `step`, `options`, and Tephra's `registries` for images), both shaped like the
//! request's `spec`. Pure: policies and a request come in, refusals naming the field, the rule
//! and the scope that set it come out.
//!
//! A request is checked against every scope's rules in turn, so an inner scope can only narrow
//! what an outer one allows. The server checks at submit, preview and resume; the form runs the
//! same check as you type, and shows each field's rule (locked, range, options) beside it.

mod hints;
mod kind;
mod rule;

pub use hints::{FormHints, Hint};
pub use kind::{PerKind, PolicyKind};
pub use rule::{Rule, RuleError, flatten};

use crate::model::validation::FieldError;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One scope's policy, parsed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    /// Who set it, for people: "the system policy", "department \"research\"'s policy".
    pub source: String,
    pub defaults: Value,
    /// Rules by dotted path below `spec` (`security.hostNetwork`).
    pub rules: Vec<(String, Rule)>,
    /// Why the stored body no longer parses, if it does not: such a layer refuses every
    /// request until an administrator saves it again (fail closed), rather than letting
    /// requests through without its rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
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
            unreadable: None,
        })
    }

    /// A stored body that no longer parses, kept as a layer that refuses everything.
    pub fn unreadable(source: &str, errors: &[FieldError]) -> Policy {
        let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
        Policy {
            source: source.to_owned(),
            defaults: json!({}),
            rules: Vec::new(),
            unreadable: Some(listed.join("; ")),
        }
    }
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
pub fn fill_defaults(spec: &mut Value, layers: &[Policy]) {
    fill(spec, &merged_defaults(layers));
}

/// Fills what `spec` leaves out (absent or `null`) from `defaults`, object by object.
pub(crate) fn fill(spec: &mut Value, defaults: &Value) {
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
    let mut errors = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        if let Some(why) = &layer.unreadable {
            errors.push(FieldError {
                path: "policy".into(),
                message: format!(
                    "{} no longer parses ({why}); nothing is admitted under it until an \
                     administrator saves it again",
                    layer.source
                ),
            });
            continue;
        }
        // A layer's rules hold against the defaults of the layers out to it, never an inner
        // one's: an inner default cannot move a value an outer layer locks.
        let defaults = merged_defaults(&layers[..=i]);
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

/// Where a request keeps container specs, the places rules and defaults apply: `spec`, a
/// distributed master's `spec.master` or Run:ai's top-level `masterSpec`, each generic
/// replica's spec. Each comes with the keys that lead to it.
fn spec_paths(value: &Value) -> Vec<(String, Vec<String>)> {
    let Some(spec) = value.get("spec") else {
        return Vec::new();
    };
    if let Some(replicas) = spec.get("replicaSpecs").and_then(Value::as_array) {
        return (0..replicas.len())
            .map(|i| {
                let keys = ["spec", "replicaSpecs", &i.to_string(), "spec"].map(str::to_owned);
                (format!("spec.replicaSpecs[{i}].spec"), keys.to_vec())
            })
            .collect();
    }
    let mut paths = vec![("spec".to_owned(), vec!["spec".to_owned()])];
    if spec.get("master").is_some_and(Value::is_object) {
        paths.push(("spec.master".into(), vec!["spec".into(), "master".into()]));
    }
    if value.get("masterSpec").is_some_and(Value::is_object) {
        paths.push(("masterSpec".into(), vec!["masterSpec".into()]));
    }
    paths
}

fn at<'a>(value: &'a Value, keys: &[String]) -> Option<&'a Value> {
    keys.iter()
        .try_fold(value, |v, key| match key.parse::<usize>() {
            Ok(i) => v.get(i),
            Err(_) => v.get(key.as_str()),
        })
}

fn at_mut<'a>(value: &'a mut Value, keys: &[String]) -> Option<&'a mut Value> {
    keys.iter()
        .try_fold(value, |v, key| match key.parse::<usize>() {
            Ok(i) => v.get_mut(i),
            Err(_) => v.get_mut(key.as_str()),
        })
}

/// Fills each spec of a request (`{name, projectId, spec}`) from the layers' defaults where it
/// leaves a field out, as Run:ai applies defaults before validation.
pub fn apply_defaults(request: &mut Value, layers: &[Policy]) {
    for (_, keys) in spec_paths(request) {
        if let Some(spec) = at_mut(request, &keys) {
            fill_defaults(spec, layers);
        }
    }
}

/// Every rule a request breaks, by field.
pub fn check_request(request: &Value, layers: &[Policy]) -> Vec<FieldError> {
    spec_paths(request)
        .into_iter()
        .filter_map(|(label, keys)| at(request, &keys).map(|spec| check(spec, &label, layers)))
        .flatten()
        .collect()
}

/// What the form shows beside a field: the layers' rules for it combined (the narrowest of
/// each), and who set them.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRule {
    pub rule: Rule,
    pub sources: Vec<String>,
    pub default: Option<Value>,
}

impl FieldRule {
    /// The rule for `path` (below a spec: `security.hostNetwork`), if any layer sets one.
    pub fn of(layers: &[Policy], path: &str) -> Option<FieldRule> {
        let mut found: Option<FieldRule> = None;
        for layer in layers {
            for (p, rule) in &layer.rules {
                if p != path {
                    continue;
                }
                found = Some(match found {
                    None => FieldRule {
                        rule: rule.clone(),
                        sources: vec![layer.source.clone()],
                        default: None,
                    },
                    Some(mut f) => {
                        f.rule = f.rule.narrowed_by(rule);
                        f.sources.push(layer.source.clone());
                        f
                    }
                });
            }
        }
        found.map(|mut f| {
            f.default = lookup(&merged_defaults(layers), path).cloned();
            f
        })
    }

    /// Whether the field may not be changed from its default.
    pub fn locked(&self) -> bool {
        self.rule.can_edit == Some(false)
    }

    /// One line for people: `Locked by the system policy.`, or
    /// `Allowed: from 1 to 8; set by project "a"'s policy.`
    pub fn describe(&self) -> String {
        let by = self.sources.join(" and ");
        if self.locked() {
            return format!("Locked by {by}.");
        }
        let r = &self.rule;
        let mut parts = Vec::new();
        match (r.min, r.max) {
            (Some(min), Some(max)) => parts.push(format!("from {min} to {max}")),
            (Some(min), None) => parts.push(format!("at least {min}")),
            (None, Some(max)) => parts.push(format!("at most {max}")),
            (None, None) => {}
        }
        if let Some(step) = r.step {
            parts.push(format!("in steps of {step}"));
        }
        if let Some(options) = &r.options {
            let shown: Vec<String> = options
                .iter()
                .map(|o| o.as_str().map_or_else(|| o.to_string(), str::to_owned))
                .collect();
            parts.push(format!("one of {}", shown.join(", ")));
        }
        if let Some(registries) = &r.registries {
            parts.push(format!("from {}", registries.join(" or ")));
        }
        if r.can_add == Some(false) {
            parts.push("no entries may be added".to_owned());
        }
        if r.required == Some(true) {
            parts.push("required".to_owned());
        }
        format!("Allowed: {}; set by {by}.", parts.join(", "))
    }
}

/// One line of a policy's preview: a field of the form and what it will show there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyField {
    /// Below the request: `spec.security.hostNetwork`.
    pub path: String,
    /// What the field says under it (locked, the range, the options), if a rule is set.
    pub rule: Option<String>,
    /// The value the form starts from, as JSON.
    pub default: Option<String>,
}

/// Every field the layers set a rule or a default on, as the form will show it.
pub fn preview(layers: &[Policy]) -> Vec<PolicyField> {
    let defaults = merged_defaults(layers);
    let mut paths: Vec<String> = Vec::new();
    leaves(&defaults, "", &mut paths);
    for layer in layers {
        for (path, _) in &layer.rules {
            if !paths.contains(path) {
                paths.push(path.clone());
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| PolicyField {
            rule: FieldRule::of(layers, &path).map(|r| r.describe()),
            default: lookup(&defaults, &path).map(Value::to_string),
            path: format!("spec.{path}"),
        })
        .collect()
}

/// The dotted paths of the values below `value` that are not objects.
fn leaves(value: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                leaves(child, &path, out);
            }
        }
        Value::Null => {}
        _ => out.push(at.to_owned()),
    }
}

/// The layers the form checks against, for each kind of request it can send.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FormPolicy {
    pub trainings: Vec<Policy>,
    pub distributed: Vec<Policy>,
}

impl FormPolicy {
    pub fn layers(&self, distributed: bool) -> &[Policy] {
        if distributed {
            &self.distributed
        } else {
            &self.trainings
        }
    }
}

#[cfg(test)]
mod tests;
