//! Reading what the provider and the browser send: list and number claims, and the return
//! target after sign-in.

use std::collections::HashMap;

/// A claim that lists strings (a JSON array of strings, or one string).
pub fn strings(value: Option<&serde_json::Value>) -> Vec<String> {
    match value {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Some(serde_json::Value::String(one)) => vec![one.clone()],
        _ => Vec::new(),
    }
}

/// A numeric claim (a JSON number or a string of digits) that fits a Linux id.
pub fn number(extra: &HashMap<String, serde_json::Value>, claim: Option<&str>) -> Option<u32> {
    match extra.get(claim?)? {
        serde_json::Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        serde_json::Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// The return target after sign-in: a path on Tephra itself, never another origin. Anything else
/// (`https://evil.example`, `//evil.example`, `/\evil.example`) becomes `/`. Of the sign-in
/// routes only the exposed-URL handshake may be returned to; it checks its own target again.
pub fn safe_next(next: &str) -> String {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control)
        && (!next.starts_with("/auth/") || next.starts_with("/auth/exposed?"));
    if local { next.to_owned() } else { "/".into() }
}

pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_return_targets() {
        for ok in [
            "/",
            "/trainings",
            "/trainings/abc?project=x#top",
            "/auth/exposed?rd=https%3A%2F%2Fa-1-0a1b2c3d.apps.example.net%2F",
        ] {
            assert_eq!(safe_next(ok), ok);
        }
        for bad in [
            "https://evil.example/",
            "//evil.example",
            "/\\evil.example",
            "evil",
            "",
            "/auth/callback",
            "/auth/exposed/check",
            "/tr\nainings",
        ] {
            assert_eq!(safe_next(bad), "/", "{bad:?}");
        }
    }

    #[test]
    fn group_and_id_claims_are_read_leniently() {
        let extra: HashMap<String, serde_json::Value> = serde_json::from_value(
            serde_json::json!({ "groups": ["ml", 7, "ops"], "uid": 1000, "gid": "2000", "neg": -1 }),
        )
        .unwrap();
        assert_eq!(strings(extra.get("groups")), ["ml", "ops"]);
        assert_eq!(strings(Some(&serde_json::json!("solo"))), ["solo"]);
        assert_eq!(number(&extra, Some("uid")), Some(1000));
        assert_eq!(number(&extra, Some("gid")), Some(2000));
        assert_eq!(number(&extra, Some("neg")), None);
        assert_eq!(number(&extra, None), None);
    }

    #[test]
    fn state_comparison_needs_every_byte() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
