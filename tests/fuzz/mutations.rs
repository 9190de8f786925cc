//! Generators of hostile JSON: valid requests with a few fields replaced, removed or added, and
//! the replacements drawn from what breaks parsers (wrong types, numbers at the edges of every
//! integer width, NUL bytes, right-to-left marks and astral characters, long strings, deep
//! nesting).

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value, json};

/// One change to a document, at a position chosen among all its values.
#[derive(Debug, Clone)]
pub enum Mutation {
    Replace(Index, Value),
    Remove(Index),
    Insert(Index, String, Value),
}

/// `base` with up to four mutations applied.
pub fn mutated(base: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    (base, prop::collection::vec(mutation(), 0..=4)).prop_map(|(mut value, mutations)| {
        for m in mutations {
            apply(&mut value, m);
        }
        value
    })
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        5 => (any::<Index>(), hostile()).prop_map(|(at, v)| Mutation::Replace(at, v)),
        2 => any::<Index>().prop_map(Mutation::Remove),
        2 => (any::<Index>(), key(), hostile()).prop_map(|(at, k, v)| Mutation::Insert(at, k, v)),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        // Names the request model knows, so an inserted key is often read rather than ignored.
        prop::sample::select(vec![
            "name",
            "projectId",
            "spec",
            "image",
            "command",
            "args",
            "compute",
            "gpuDevicesRequest",
            "cpuCoreRequest",
            "cpuMemoryRequest",
            "parallelism",
            "completions",
            "numWorkers",
            "minReplicas",
            "master",
            "tolerations",
            "storage",
            "ports",
            "labels",
            "annotations",
            "environmentVariables",
            "backoffLimit",
            "nodePools",
            "security",
            "runAsUid",
        ])
        .prop_map(str::to_owned),
        any::<String>(),
    ]
}

fn edge_number() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(0),
        json!(-1),
        json!(0.5),
        json!(-0.0),
        json!(1e-300),
        json!(1e308),
        json!(-1e308),
        json!(i32::MAX),
        json!(i64::from(i32::MAX) + 1),
        json!(u32::MAX),
        json!(u64::from(u32::MAX) + 1),
        json!(i64::MAX),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(9_007_199_254_740_993_u64),
    ])
}

fn edge_string() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            " ",
            "\0",
            "a\0b",
            "\u{202e}gnp.exe",
            "🦀",
            "ﬃ",
            "İ",
            "\u{feff}",
            "\\",
            "\"",
            "${HOME}",
            "../../etc/passwd",
            "'; DROP TABLE workloads; --",
            "1e999",
            "-0",
            "NaN",
            "Infinity",
            "100Gi",
            "0.5",
            "true",
            "null",
            "\r\n",
            "a:b:c",
        ])
        .prop_map(str::to_owned),
        any::<String>(),
        "[a-z0-9\u{0}\u{7f}\u{ad}\u{2028}\u{10ffff}.:/=-]{0,40}",
        // Long, but well under the 2 MB body limit so the handler sees it.
        (1usize..=60_000).prop_map(|n| "x".repeat(n)),
    ]
    .prop_map(Value::String)
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("JSON has no NaN or infinity", |f| {
            serde_json::Number::from_f64(f).map(Value::Number)
        }),
        edge_number(),
        edge_string(),
    ]
}

/// A value with nesting `depth`, alternating arrays and objects; past serde_json's recursion
/// limit (128) for the deepest.
fn deep(depth: usize) -> Value {
    (0..depth).fold(json!(1), |inner, level| {
        if level % 2 == 0 {
            json!([inner])
        } else {
            json!({ "a": inner })
        }
    })
}

/// Any JSON, weighted towards what breaks parsers.
pub fn hostile() -> BoxedStrategy<Value> {
    prop_oneof![
        9 => leaf().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(key(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
            ]
        }),
        1 => (1usize..=200).prop_map(deep),
    ]
    .boxed()
}

/// JSON Pointers to every value in `value`, the root first.
fn pointers(value: &Value) -> Vec<String> {
    fn walk(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    let escaped = k.replace('~', "~0").replace('/', "~1");
                    walk(v, format!("{at}/{escaped}"), out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }
    let mut out = Vec::new();
    walk(value, String::new(), &mut out);
    out.reverse();
    out
}

fn apply(value: &mut Value, mutation: Mutation) {
    let paths = pointers(value);
    match mutation {
        Mutation::Replace(at, new) => {
            if let Some(slot) = value.pointer_mut(at.get(&paths).as_str()) {
                *slot = new;
            }
        }
        Mutation::Remove(at) => {
            let path = at.get(&paths).as_str();
            let Some((parent, last)) = path.rsplit_once('/') else {
                return;
            };
            let last = last.replace("~1", "/").replace("~0", "~");
            match value.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.remove(&last);
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = last.parse::<usize>()
                        && i < items.len()
                    {
                        items.remove(i);
                    }
                }
                _ => {}
            }
        }
        Mutation::Insert(at, key, new) => match value.pointer_mut(at.get(&paths).as_str()) {
            Some(Value::Object(map)) => {
                map.insert(key, new);
            }
            Some(Value::Array(items)) => items.push(new),
            _ => {}
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_reach_every_value_and_escape_keys() {
        let doc = json!({ "a/b": [1, { "~": 2 }] });
        let paths = pointers(&doc);
        assert_eq!(paths.len(), 5, "{paths:?}");
        for p in &paths {
            assert!(doc.pointer(p).is_some(), "{p}");
        }
    }
}
