//! Field-level rules shared by the browser form and the API: Kubernetes names, keys, values and
//! ports, and [`Errors`], which collects every failure as a [`FieldError`] naming the field's JSON
//! path and what is allowed, instead of stopping at the first. Values the renderer needs parsed
//! (quantities, paths, command lines) are types in `training::values`.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

/// Collects field errors, and warnings about fields that are accepted but have no effect.
#[derive(Debug, Default)]
pub struct Errors {
    found: Vec<FieldError>,
    warnings: Vec<FieldError>,
}

impl Errors {
    pub fn add(&mut self, path: impl fmt::Display, message: impl Into<String>) {
        self.found.push(FieldError {
            path: path.to_string(),
            message: message.into(),
        });
    }

    /// Notes a field that is accepted but changes nothing (Run:ai accepts it too), so the client
    /// learns it was ignored instead of finding out from the running job.
    pub fn warn(&mut self, path: impl fmt::Display, message: impl Into<String>) {
        self.warnings.push(FieldError {
            path: path.to_string(),
            message: message.into(),
        });
    }

    /// How many errors so far: a rule compares it before and after to know whether it failed.
    pub fn count(&self) -> usize {
        self.found.len()
    }

    /// Takes `other`'s errors and warnings after this one's.
    pub fn absorb(&mut self, other: Errors) {
        self.found.extend(other.found);
        self.warnings.extend(other.warnings);
    }

    /// The errors so far.
    pub fn found(&self) -> &[FieldError] {
        &self.found
    }

    /// Records `result`'s error, if any, at `path`.
    pub fn check<T>(&mut self, path: impl fmt::Display, result: Result<T, String>) {
        if let Err(message) = result {
            self.add(path, message);
        }
    }

    /// `result`'s value, or `None` with its error recorded at `path`.
    pub fn take<T>(&mut self, path: impl fmt::Display, result: Result<T, String>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(message) => {
                self.add(path, message);
                None
            }
        }
    }

    /// [`Errors::take`] for a field the request may leave out: `Some(None)` when it does.
    pub fn take_some<R, T>(
        &mut self,
        path: impl fmt::Display,
        value: Option<R>,
        parse: impl FnOnce(R) -> Result<T, String>,
    ) -> Option<Option<T>> {
        match value {
            None => Some(None),
            Some(value) => self.take(path, parse(value)).map(Some),
        }
    }

    /// The checked value, or every error. A rule that yields no value always records why, so
    /// `None` with no errors would be a rule that forgot; it is refused rather than trusted.
    pub fn finish<T>(self, checked: Option<T>) -> Result<T, Vec<FieldError>> {
        self.finish_warned(checked).map(|(checked, _)| checked)
    }

    /// [`Errors::finish`], with the warnings when the value is accepted.
    pub fn finish_warned<T>(
        self,
        checked: Option<T>,
    ) -> Result<(T, Vec<FieldError>), Vec<FieldError>> {
        match (self.found.is_empty(), checked) {
            (true, Some(checked)) => Ok((checked, self.warnings)),
            (false, _) => Err(self.found),
            (true, None) => Err(vec![FieldError {
                path: ".".into(),
                message: "could not be checked, though no rule named a problem; please report \
                          this request"
                    .into(),
            }]),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    pub fn into_result(self) -> Result<(), Vec<FieldError>> {
        if self.found.is_empty() {
            Ok(())
        } else {
            Err(self.found)
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

/// `a[i]`.
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

/// A TCP port, as the int32 Kubernetes objects hold it.
pub fn port(n: i64) -> Result<i32, String> {
    match i32::try_from(n) {
        Ok(port) if (1..=65535).contains(&port) => Ok(port),
        _ => Err(format!("must be a port from 1 to 65535 (got {n})")),
    }
}

/// Every item's checked value, or `None` if any was refused. Each item is checked before this is
/// called, so every item's errors are recorded.
pub fn all<T>(checked: Vec<Option<T>>) -> Option<Vec<T>> {
    checked.into_iter().collect()
}

/// `n` from `min` up, with the bound in the message.
pub fn at_least(n: i64, min: i64) -> Result<(), String> {
    if n >= min {
        Ok(())
    } else {
        Err(format!("must be at least {min} (got {n})"))
    }
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
    fn ports_are_from_1_to_65535() {
        assert_eq!(port(8080), Ok(8080));
        assert!(port(0).is_err());
        assert!(port(65536).is_err());
    }
}
