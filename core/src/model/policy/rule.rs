//! One field's rule, how a policy's nested `rules` become rules by path, and what each rule
//! refuses.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The rule keywords, Run:ai's and Tephra's `registries`.
const KEYWORDS: [&str; 9] = [
    "required",
    "canEdit",
    "canAdd",
    "min",
    "max",
    "step",
    "options",
    "registries",
    "locked",
];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub required: Option<bool>,
    pub can_edit: Option<bool>,
    pub can_add: Option<bool>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub step: Option<f64>,
    /// Allowed values (Run:ai's `{value, displayed}` entries, or bare values).
    pub options: Option<Vec<Value>>,
    /// Image prefixes an image must start with (`registry.example.org/`).
    pub registries: Option<Vec<String>>,
}

/// A malformed rule, at its path below `rules`.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleError {
    pub path: String,
    pub message: String,
}

/// The rules of a nested `rules` object, by dotted path. An object whose keys are all rule
/// keywords is a rule; Run:ai's `instances` level of itemized fields is the field itself.
pub fn flatten(rules: &Value) -> Result<Vec<(String, Rule)>, Vec<RuleError>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    walk(rules, "", &mut out, &mut errors);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

fn walk(value: &Value, at: &str, out: &mut Vec<(String, Rule)>, errors: &mut Vec<RuleError>) {
    let Value::Object(map) = value else {
        errors.push(RuleError {
            path: at.to_owned(),
            message: format!(
                "must be an object of fields or of rule keywords ({})",
                KEYWORDS.join(", ")
            ),
        });
        return;
    };
    let is_rule = !map.is_empty() && map.keys().all(|k| KEYWORDS.contains(&k.as_str()));
    if !is_rule {
        for (key, child) in map {
            let path = if key == "instances" {
                at.to_owned()
            } else {
                join(at, key)
            };
            walk(child, &path, out, errors);
        }
        return;
    }
    match Rule::parse(map) {
        Ok(rule) => out.push((at.to_owned(), rule)),
        Err(message) => errors.push(RuleError {
            path: at.to_owned(),
            message,
        }),
    }
}

impl Rule {
    fn parse(map: &serde_json::Map<String, Value>) -> Result<Rule, String> {
        let flag = |key: &str| match map.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("{key} must be true or false")),
        };
        let number = |key: &str| match map.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| format!("{key} must be a number")),
        };
        let options = match map.get("options") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|o| o.get("value").cloned().unwrap_or_else(|| o.clone()))
                    .collect(),
            ),
            Some(_) => return Err("options must be a list".into()),
        };
        let registries = match map.get("registries") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|r| r.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("registries must be a list of image prefixes")?,
            ),
            Some(_) => return Err("registries must be a list of image prefixes".into()),
        };
        let rule = Rule {
            required: flag("required")?,
            can_edit: flag("canEdit")?,
            can_add: flag("canAdd")?,
            min: number("min")?,
            max: number("max")?,
            step: number("step")?,
            options,
            registries,
        };
        if let (Some(min), Some(max)) = (rule.min, rule.max)
            && min > max
        {
            return Err(format!("min ({min}) is above max ({max})"));
        }
        if rule.step.is_some_and(|s| s <= 0.0) {
            return Err("step must be above 0".into());
        }
        Ok(rule)
    }

    /// Why `value` breaks the rule (`default`: the effective default there), or `None`.
    pub fn refusal(&self, value: Option<&Value>, default: Option<&Value>) -> Option<String> {
        let empty = value.is_none_or(is_empty);
        if self.required == Some(true) && empty {
            return Some("is required".into());
        }
        // `false` counts as unset, except against a lock on `true`: there it is the change
        // the lock forbids (`runAsNonRoot: false` under node protection).
        let unlocks = value == Some(&Value::Bool(false)) && default == Some(&Value::Bool(true));
        if self.can_edit == Some(false) && (!empty || unlocks) && value != default {
            let locked = default.map_or_else(|| "unset".to_owned(), Value::to_string);
            return Some(format!("cannot be changed: it is locked to {locked}"));
        }
        let value = value?;
        if self.can_add == Some(false)
            && let Some(items) = value.as_array()
        {
            // Each entry must be one the outer layers offer, compared whole: offering one
            // read-only dataset path must not let `/` read-write take its place.
            let offered = default
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            if let Some(extra) = items.iter().find(|item| !offered.contains(item)) {
                if offered.is_empty() {
                    return Some("allows no entries to be added".into());
                }
                return Some(format!(
                    "allows only the entries the policy offers ({}); {extra} is not one of them",
                    Value::Array(offered.to_vec())
                ));
            }
        }
        if let Some(n) = value.as_f64() {
            if let Some(min) = self.min
                && n < min
            {
                return Some(format!("must be at least {min}"));
            }
            if let Some(max) = self.max
                && n > max
            {
                return Some(format!("must be at most {max}"));
            }
            if let Some(step) = self.step {
                let base = self.min.unwrap_or(0.0);
                let steps = (n - base) / step;
                if (steps - steps.round()).abs() > 1e-9 {
                    return Some(format!("must be {base} plus a multiple of {step}"));
                }
            }
        }
        if let Some(options) = &self.options {
            let values: Vec<&Value> = match value {
                Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            if let Some(bad) = values.iter().find(|v| !options.contains(v)) {
                let allowed: Vec<String> = options.iter().map(Value::to_string).collect();
                return Some(format!(
                    "{bad} is not allowed: one of {}",
                    allowed.join(", ")
                ));
            }
        }
        if let (Some(prefixes), Some(image)) = (&self.registries, value.as_str())
            && !prefixes.iter().any(|p| image.starts_with(p.as_str()))
        {
            return Some(format!(
                "{image:?} is not from an allowed registry: {}",
                prefixes.join(", ")
            ));
        }
        None
    }

    /// How this rule would allow more than `outer`, if it would.
    pub fn widens(&self, outer: &Rule) -> Option<String> {
        let loosened = |inner: Option<bool>, outer: Option<bool>, strict: bool| {
            outer == Some(strict) && inner.is_some_and(|i| i != strict)
        };
        if loosened(self.required, outer.required, true) {
            return Some("it makes the field optional".into());
        }
        if loosened(self.can_edit, outer.can_edit, false) {
            return Some("it lets the field be changed".into());
        }
        if loosened(self.can_add, outer.can_add, false) {
            return Some("it lets entries be added".into());
        }
        if let (Some(inner), Some(outer)) = (self.min, outer.min)
            && inner < outer
        {
            return Some(format!("its min {inner} is below {outer}"));
        }
        if let (Some(inner), Some(outer)) = (self.max, outer.max)
            && inner > outer
        {
            return Some(format!("its max {inner} is above {outer}"));
        }
        if let (Some(inner), Some(outer)) = (&self.options, &outer.options)
            && let Some(extra) = inner.iter().find(|o| !outer.contains(o))
        {
            return Some(format!("it allows {extra}"));
        }
        if let (Some(inner), Some(outer)) = (&self.registries, &outer.registries)
            && let Some(extra) = inner
                .iter()
                .find(|i| !outer.iter().any(|o| i.starts_with(o.as_str())))
        {
            return Some(format!("it allows registry {extra:?}"));
        }
        None
    }

    /// This rule and `inner` together: the narrower of each.
    pub fn narrowed_by(&self, inner: &Rule) -> Rule {
        let both = |a: Option<bool>, b: Option<bool>, strict: bool| match (a, b) {
            (Some(x), _) if x == strict => Some(strict),
            (_, Some(y)) if y == strict => Some(strict),
            (a, b) => a.or(b),
        };
        let pick = |a: Option<f64>, b: Option<f64>, f: fn(f64, f64) -> f64| match (a, b) {
            (Some(x), Some(y)) => Some(f(x, y)),
            (x, y) => x.or(y),
        };
        let options = match (&self.options, &inner.options) {
            (Some(a), Some(b)) => Some(a.iter().filter(|o| b.contains(o)).cloned().collect()),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Rule {
            required: both(self.required, inner.required, true),
            can_edit: both(self.can_edit, inner.can_edit, false),
            can_add: both(self.can_add, inner.can_add, false),
            min: pick(self.min, inner.min, f64::max),
            max: pick(self.max, inner.max, f64::min),
            step: inner.step.or(self.step),
            options,
            registries: inner.registries.clone().or_else(|| self.registries.clone()),
        }
    }

    pub fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(v) = value {
                out.insert(key.to_owned(), v);
            }
        };
        put("required", self.required.map(Value::Bool));
        put("canEdit", self.can_edit.map(Value::Bool));
        put("canAdd", self.can_add.map(Value::Bool));
        put("min", self.min.map(|n| json!(n)));
        put("max", self.max.map(|n| json!(n)));
        put("step", self.step.map(|n| json!(n)));
        put("options", self.options.clone().map(Value::Array));
        put("registries", self.registries.as_ref().map(|r| json!(r)));
        Value::Object(out)
    }
}

/// Absent-like: null, false, an empty string or list.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}
