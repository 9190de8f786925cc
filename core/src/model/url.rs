//! Query strings for links the pages build (filters, pagination, clone): percent-encoding of
//! values, so any name or filter text survives the round trip through the URL.

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// `?k=v&...` from the pairs whose value is not blank; empty when none is.
pub fn query(pairs: &[(&str, Option<&str>)]) -> String {
    let parts: Vec<String> = pairs
        .iter()
        .filter_map(|(k, v)| {
            v.filter(|v| !v.is_empty())
                .map(|v| format!("{k}={}", encode(v)))
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_characters_and_unicode_are_escaped() {
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(encode("ok-1._~"), "ok-1._~");
    }

    #[test]
    fn blank_values_are_left_out() {
        assert_eq!(
            query(&[("phase", Some("Running")), ("name", Some("")), ("x", None)]),
            "?phase=Running"
        );
        assert_eq!(query(&[("x", None)]), "");
    }
}
