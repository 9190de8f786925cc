//! No NUL byte gets past the edge. PostgreSQL's text and JSON columns cannot hold one, so a NUL
//! in a name, a description, a policy or a query filter would otherwise fail deep in the
//! database as a 500, and SQLite would store what PostgreSQL refuses. Every request's path and
//! query, and every JSON or form body, is checked once here; the 400 names the parameter or the
//! body's field.

use crate::http::api::ApiError;
use app::error::AppError;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

const REFUSED: &str = "must not contain a NUL character (\\u0000)";

/// Refuses a request with a NUL byte in its path, query or (JSON or form) body.
pub async fn refuse_nul(request: Request, next: Next) -> Response {
    if let Some(name) = in_uri(request.uri()) {
        return refused(&name);
    }
    let writes = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH
    );
    let kind = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.to_ascii_lowercase())
        .unwrap_or_default();
    let form = kind.starts_with("application/x-www-form-urlencoded");
    if !writes || !(form || kind.contains("json") || kind.starts_with("text/plain")) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // The body limit layer outside this one bounds what is read here.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large",
        )
            .into_response();
    };
    let found = if form {
        in_pairs(&String::from_utf8_lossy(&bytes))
    } else {
        in_json(&bytes)
    };
    match found {
        Some(name) => refused(&name),
        None => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

fn refused(name: &str) -> Response {
    ApiError::from(AppError::field(name, REFUSED)).into_response()
}

/// The query parameter (or `path`) holding an encoded NUL (`%00`); a literal one is not a URI.
fn in_uri(uri: &axum::http::Uri) -> Option<String> {
    if has_encoded_nul(uri.path()) {
        return Some("path".into());
    }
    in_pairs(uri.query()?)
}

/// The key of the first `key=value` pair holding an encoded NUL.
fn in_pairs(pairs: &str) -> Option<String> {
    pairs
        .split('&')
        .find(|pair| has_encoded_nul(pair))
        .map(|pair| pair.split('=').next().unwrap_or(pair).replace("%00", ""))
}

fn has_encoded_nul(text: &str) -> bool {
    text.contains("%00")
}

/// The path of the first string (or key) holding a NUL in a JSON body, if it parses; a body
/// that does not is left to its handler's own error.
fn in_json(bytes: &[u8]) -> Option<String> {
    if !bytes.windows(6).any(|w| w == b"\\u0000") {
        return None;
    }
    let value: Value = serde_json::from_slice(bytes).ok()?;
    find(&value, "")
}

fn find(value: &Value, at: &str) -> Option<String> {
    let join = |key: &str| {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    };
    match value {
        Value::String(s) if s.contains('\0') => Some(if at.is_empty() {
            "body".into()
        } else {
            at.to_owned()
        }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| find(v, &format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k.contains('\0') {
                Some(join(&k.replace('\0', "")))
            } else {
                find(v, &join(k))
            }
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_is_found_where_it_is() {
        let uri: axum::http::Uri = "/api/v1/audit?action=x&createdBy=a%00b".parse().unwrap();
        assert_eq!(in_uri(&uri).as_deref(), Some("createdBy"));
        let uri: axum::http::Uri = "/api/v1/org-unit/projects/a%00".parse().unwrap();
        assert_eq!(in_uri(&uri).as_deref(), Some("path"));
        let uri: axum::http::Uri = "/api/v1/workloads?name=ok".parse().unwrap();
        assert_eq!(in_uri(&uri), None);
        let body = br#"{"name": "p", "policy": {"defaults": {"image": "a\u0000b"}}}"#;
        assert_eq!(in_json(body).as_deref(), Some("policy.defaults.image"));
        let list = br#"{"spec": {"environmentVariables": [{"name": "A", "value": "\u0000"}]}}"#;
        assert_eq!(
            in_json(list).as_deref(),
            Some("spec.environmentVariables[0].value")
        );
        assert_eq!(in_json(br#"{"name": "fine \\u0000 escaped"}"#), None);
        assert_eq!(
            in_pairs("name=x&description=a%00").as_deref(),
            Some("description")
        );
    }
}
