//! One line for people from an audit entry's detail: what a change did ("resources: default
//! pool 8 GPUs → default pool 16 GPUs"), where the API and the page's expanded view keep the
//! detail whole. Entries hold `before` and `after` when they change settings (only what changed)
//! and plain fields otherwise; a node pool's quotas read in words, as the quota errors do.

use crate::domain::quota::Resource;
use crate::model::org::{PoolResources, Share};
use serde_json::{Map, Value};

/// Past this many characters a summary ends in "…": the whole detail is one click away.
pub const MAX_CHARS: usize = 240;

const SEPARATOR: &str = " · ";

/// The detail in one line: its plain fields, then what the change did: each changed setting as
/// `setting: before → after`, or the settings a unit was made with or had when it was removed.
pub fn summary(detail: &Value) -> String {
    let Value::Object(fields) = detail else {
        return cut(words(detail));
    };
    let mut parts: Vec<String> = fields
        .iter()
        .filter(|(key, value)| !matches!(key.as_str(), "before" | "after") && shown(value))
        .map(|(key, value)| format!("{key} {}", words(value)))
        .collect();
    match (fields.get("before"), fields.get("after")) {
        (Some(Value::Object(was)), Some(Value::Object(is))) => parts.extend(changes(was, is)),
        (None | Some(Value::Null), Some(Value::Object(is))) => {
            parts.push(format!("made with {}", settings(is)))
        }
        (Some(Value::Object(was)), None | Some(Value::Null)) => {
            parts.push(format!("had {}", settings(was)))
        }
        _ => {}
    }
    cut(parts.join(SEPARATOR))
}

/// Each setting that differs, as `setting: before → after`.
fn changes(was: &Map<String, Value>, is: &Map<String, Value>) -> Vec<String> {
    is.iter()
        .filter(|(key, value)| was.get(*key) != Some(value))
        .map(|(key, value)| {
            let before = was.get(key).unwrap_or(&Value::Null);
            format!("{key}: {} → {}", words(before), words(value))
        })
        .collect()
}

/// The settings that hold something, as `setting value`, separated by commas.
fn settings(set: &Map<String, Value>) -> String {
    let shown: Vec<String> = set
        .iter()
        .filter(|(_, value)| shown(value))
        .map(|(key, value)| format!("{key} {}", words(value)))
        .collect();
    if shown.is_empty() {
        "nothing set".into()
    } else {
        shown.join(", ")
    }
}

/// Whether a value says anything: not null, not an empty string, list or object.
fn shown(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(fields) => !fields.is_empty(),
        _ => true,
    }
}

/// A value in words: node pools' quotas as amounts, other values compactly.
fn words(value: &Value) -> String {
    match value {
        Value::Null => "none".into(),
        Value::String(s) if s.is_empty() => "\"\"".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => match pools(value) {
            Some(pools) => pools,
            None => format!(
                "[{}]",
                items.iter().map(words).collect::<Vec<_>>().join(", ")
            ),
        },
        Value::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .filter(|(_, value)| shown(value))
                .map(|(key, value)| format!("{key} {}", words(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// A list of node pools' resources in words ("default pool 8 GPUs up to 12 GPUs, 2000m CPU"),
/// or `None` when the list is something else.
fn pools(value: &Value) -> Option<String> {
    let items = value.as_array()?;
    if items.is_empty() || !items.iter().all(|item| item.get("nodePool").is_some()) {
        return None;
    }
    let pools: Vec<PoolResources> = serde_json::from_value(value.clone()).ok()?;
    let each: Vec<String> = pools
        .iter()
        .map(|pool| {
            let shares: Vec<String> = Resource::ALL
                .iter()
                .filter_map(|&resource| share(resource, resource.share(pool)))
                .collect();
            let shares = if shares.is_empty() {
                "no quota".to_owned()
            } else {
                shares.join(", ")
            };
            format!("{} pool {shares}", pool.node_pool.name)
        })
        .collect();
    Some(each.join("; "))
}

/// One resource's share in words, or `None` when it sets nothing.
fn share(resource: Resource, share: &Share) -> Option<String> {
    let quota = share.deserved.map(|d| resource.amount(d));
    let limit = share.limit.map(|l| format!("up to {}", resource.amount(l)));
    let weight = share.over_quota_weight.map(|w| format!("weight {w}"));
    let said: Vec<String> = [quota, limit, weight].into_iter().flatten().collect();
    (!said.is_empty()).then(|| said.join(" "))
}

/// `text`, ended with "…" past [`MAX_CHARS`] characters.
fn cut(text: String) -> String {
    match text.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
#[path = "audit_summary_tests.rs"]
mod tests;
