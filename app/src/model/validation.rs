//! Field-level rules shared by the browser form and the API: Kubernetes names, keys, quantities,
//! paths and shell words. Every failure is a [`FieldError`] naming the field's JSON path and what
//! is allowed; callers collect all of them instead of stopping at the first.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    /// JSON path of the field, e.g. `spec.tolerations[0].value`.
    pub path: String,
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Collects field errors under a path prefix.
#[derive(Debug, Default)]
pub struct Errors(pub Vec<FieldError>);

impl Errors {
    pub fn add(&mut self, path: impl fmt::Display, message: impl Into<String>) {
        self.0.push(FieldError {
            path: path.to_string(),
            message: message.into(),
        });
    }

    /// Records `result`'s error, if any, at `path`.
    pub fn check(&mut self, path: impl fmt::Display, result: Result<(), String>) {
        if let Err(message) = result {
            self.add(path, message);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_result(self) -> Result<(), Vec<FieldError>> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self.0)
        }
    }
}

/// `a.b`, or `b` when `a` is empty.
pub fn join(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_owned()
    } else {
        format!("{parent}.{field}")
    }
}

pub fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

fn is_alnum_lower(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// RFC 1123 label: what Kubernetes allows for most object names (namespaces, services, pods).
pub fn dns1123_label(s: &str, max: usize) -> Result<(), String> {
    let allowed = format!(
        "must be 1 to {max} lowercase letters, digits or '-', starting and ending with a letter or digit"
    );
    if s.is_empty() || s.len() > max {
        return Err(format!("{allowed} (got {} characters)", s.len()));
    }
    let ok = s.chars().all(|c| is_alnum_lower(c) || c == '-')
        && s.starts_with(is_alnum_lower)
        && s.ends_with(is_alnum_lower);
    if ok {
        Ok(())
    } else {
        Err(format!("{allowed} (got {s:?})"))
    }
}

/// RFC 1123 subdomain: names of secrets, config maps, PVCs and the prefix of label keys.
pub fn dns1123_subdomain(s: &str) -> Result<(), String> {
    let allowed = "must be 1 to 253 lowercase letters, digits, '-' or '.', starting and ending with \
                   a letter or digit";
    if s.is_empty() || s.len() > 253 {
        return Err(format!("{allowed} (got {} characters)", s.len()));
    }
    let ok = s.split('.').all(|part| {
        !part.is_empty()
            && part.chars().all(|c| is_alnum_lower(c) || c == '-')
            && part.starts_with(is_alnum_lower)
            && part.ends_with(is_alnum_lower)
    });
    if ok {
        Ok(())
    } else {
        Err(format!("{allowed} (got {s:?})"))
    }
}

fn is_name_part(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.ends_with(|c: char| c.is_ascii_alphanumeric())
}

/// A label or annotation key: an optional DNS subdomain prefix and `/`, then a name of at most 63
/// characters.
pub fn qualified_name(s: &str) -> Result<(), String> {
    let allowed = "must be a name of at most 63 letters, digits, '-', '_' or '.' (starting and \
                   ending with a letter or digit), optionally prefixed by a DNS subdomain and '/', \
                   e.g. example.com/team";
    let (prefix, name) = match s.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, s),
    };
    let prefix_ok = prefix.is_none_or(|p| dns1123_subdomain(p).is_ok());
    if prefix_ok && is_name_part(name) {
        Ok(())
    } else {
        Err(format!("{allowed} (got {s:?})"))
    }
}

/// A label value: empty, or at most 63 letters, digits, `-`, `_`, `.` starting and ending
/// alphanumerically.
pub fn label_value(s: &str) -> Result<(), String> {
    if s.is_empty() || is_name_part(s) {
        Ok(())
    } else {
        Err(format!(
            "must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a \
             letter or digit (got {s:?})"
        ))
    }
}

/// An environment variable name: printable ASCII without `=`, not empty (Kubernetes 1.34 relaxed
/// the old C-identifier rule to this).
pub fn env_var_name(s: &str) -> Result<(), String> {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_graphic() && c != '=') {
        Ok(())
    } else {
        Err(format!(
            "must be printable ASCII characters other than '=' and spaces (got {s:?})"
        ))
    }
}

/// A key in a secret or config map.
pub fn config_key(s: &str) -> Result<(), String> {
    if !s.is_empty()
        && s.len() <= 253
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        Ok(())
    } else {
        Err(format!(
            "must be 1 to 253 letters, digits, '-', '_' or '.' (got {s:?})"
        ))
    }
}

/// An absolute path in a container or on a node.
pub fn absolute_path(s: &str) -> Result<(), String> {
    if !s.starts_with('/') {
        return Err(format!(
            "must be an absolute path starting with '/' (got {s:?})"
        ));
    }
    if s.split('/').any(|part| part == "..") {
        return Err(format!("must not contain '..' (got {s:?})"));
    }
    if s.contains(['\0', '\n']) {
        return Err("must not contain NUL or newline characters".into());
    }
    Ok(())
}

pub fn port(n: i64) -> Result<(), String> {
    if (1..=65535).contains(&n) {
        Ok(())
    } else {
        Err(format!("must be a port from 1 to 65535 (got {n})"))
    }
}

/// The largest value of the int32 fields Kubernetes objects have (probe periods, replicas, TTLs).
pub const I32_MAX: i64 = i32::MAX as i64;

/// `n` in `min..=max`, with the range in the message.
pub fn between(n: i64, min: i64, max: i64) -> Result<(), String> {
    if (min..=max).contains(&n) {
        Ok(())
    } else {
        Err(format!("must be between {min} and {max} (got {n})"))
    }
}

pub fn at_least(n: i64, min: i64) -> Result<(), String> {
    if n >= min {
        Ok(())
    } else {
        Err(format!("must be at least {min} (got {n})"))
    }
}

/// Kubernetes turns quantities into int64 base units (the scheduler sums them), so anything from
/// 2^63 up would overflow there: the bound is 8Ei, exclusive.
pub const QUANTITY_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// A Kubernetes quantity (`500m`, `2`, `1.5Gi`, `10M`, `1e3`), as a number of base units.
pub fn quantity(s: &str) -> Result<f64, String> {
    let allowed = "must be a Kubernetes quantity: a number with an optional suffix (m, k, M, G, T, \
                   P, E, Ki, Mi, Gi, Ti, Pi, Ei), e.g. 500m, 2, 1.5Gi";
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(s.len());
    let (number, suffix) = s.split_at(split);
    let multiplier = match suffix {
        "" => 1.0,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        exp if exp.starts_with(['e', 'E']) => {
            let power: i32 = exp[1..]
                .parse()
                .map_err(|_| format!("{allowed} (got {s:?})"))?;
            10f64.powi(power)
        }
        _ => return Err(format!("{allowed} (got {s:?})")),
    };
    let digits_ok = !number.is_empty()
        && number
            .trim_start_matches(['+', '-'])
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
        && number.matches('.').count() <= 1
        && number.chars().any(|c| c.is_ascii_digit());
    if !digits_ok {
        return Err(format!("{allowed} (got {s:?})"));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{allowed} (got {s:?})"))?;
    if value < 0.0 {
        return Err(format!("must not be negative (got {s:?})"));
    }
    let total = value * multiplier;
    // An exponent like 1e400 or 400 digits make the value infinite, which f64 carries silently.
    if !total.is_finite() || total >= QUANTITY_LIMIT {
        return Err(format!(
            "must be below 8Ei (2^63 base units, the most Kubernetes can count) (got {s:?})"
        ));
    }
    Ok(total)
}

/// Splits a command line the way a POSIX shell splits words (quotes and backslashes), without
/// expanding anything.
pub fn shell_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => current.push(c),
                        None => return Err("has an unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => current.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                current.push('\\');
                                current.push(c);
                            }
                            None => return Err("has an unterminated double quote".into()),
                        },
                        Some(c) => current.push(c),
                        None => return Err("has an unterminated double quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => {
                    in_word = true;
                    current.push(c);
                }
                None => return Err("ends with a lone backslash".into()),
            },
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_labels() {
        assert!(dns1123_label("my-job-1", 63).is_ok());
        for bad in ["", "-a", "a-", "A", "a_b", "a.b", &"a".repeat(64)] {
            assert!(dns1123_label(bad, 63).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn subdomains_and_keys() {
        assert!(dns1123_subdomain("my.secret-1").is_ok());
        assert!(dns1123_subdomain("postgress_secret").is_err());
        assert!(qualified_name("example.com/team").is_ok());
        assert!(qualified_name("app.kubernetes.io/name").is_ok());
        assert!(qualified_name("Stage_1").is_ok());
        for bad in ["", "/x", "a/", "a/b/c", "-x", "Example.com/x"] {
            assert!(qualified_name(bad).is_err(), "{bad:?}");
        }
        assert!(label_value("").is_ok());
        assert!(label_value("initial-research").is_ok());
        assert!(label_value("has space").is_err());
    }

    #[test]
    fn quantities() {
        assert_eq!(quantity("500m").unwrap(), 0.5);
        assert_eq!(quantity("2").unwrap(), 2.0);
        assert_eq!(quantity("1Gi").unwrap(), 1073741824.0);
        assert_eq!(quantity("10M").unwrap(), 1e7);
        assert_eq!(quantity("1e3").unwrap(), 1000.0);
        assert_eq!(quantity("1.5").unwrap(), 1.5);
        for bad in ["", "G", "1.2.3", "12x", "-1", "1 Gi", "."] {
            assert!(quantity(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn quantities_kubernetes_cannot_count_are_refused_with_the_bound() {
        assert!(quantity("7Ei").is_ok());
        assert!(quantity("9223372036854775").is_ok());
        for bad in [
            "1e400",
            "8Ei",
            "1e19",
            "9223372036854775808",
            &"9".repeat(400),
            "1000000Ei",
        ] {
            let message = quantity(bad).unwrap_err();
            assert!(message.contains("must be below 8Ei"), "{bad:?}: {message}");
        }
        // A tiny exponent is a finite (if useless) value; callers refuse 0 themselves.
        assert_eq!(quantity("1e-400").unwrap(), 0.0);
    }

    #[test]
    fn ranges_name_their_bounds() {
        assert!(between(5, 1, I32_MAX).is_ok());
        assert_eq!(
            between(4_294_967_297, 1, I32_MAX).unwrap_err(),
            "must be between 1 and 2147483647 (got 4294967297)"
        );
        assert!(between(0, 1, 10).is_err());
    }

    #[test]
    fn shell_word_splitting() {
        assert_eq!(
            shell_words("-x my-script.py").unwrap(),
            ["-x", "my-script.py"]
        );
        assert_eq!(
            shell_words(r#"python -c 'print("hi there")' --flag="a b" c\ d"#).unwrap(),
            ["python", "-c", r#"print("hi there")"#, "--flag=a b", "c d"]
        );
        assert_eq!(shell_words("  ").unwrap(), Vec::<String>::new());
        assert_eq!(shell_words("''").unwrap(), [""]);
        assert!(shell_words("echo 'open").is_err());
        assert!(shell_words("echo \"open").is_err());
        assert!(shell_words("trailing\\").is_err());
    }

    #[test]
    fn paths_and_ports() {
        assert!(absolute_path("/mnt/data").is_ok());
        assert!(absolute_path("string").is_err());
        assert!(absolute_path("/a/../etc").is_err());
        assert!(port(8080).is_ok());
        assert!(port(0).is_err());
        assert!(port(65536).is_err());
    }
}
