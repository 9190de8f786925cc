//! Requests other web pages make in the user's browser. A page on another origin can make the
//! browser send a form or a `text/plain` POST to Tephra, with Tephra's session cookie (or, with
//! the development login, with no credentials at all, since every loopback request acts as the
//! local user). Such requests must not change anything:
//!
//! - A state-changing request (not GET, HEAD or OPTIONS) that is not authenticated by a bearer
//!   token must come from Tephra's own origin: `Sec-Fetch-Site` is `same-origin` or `none`, or
//!   without it, `Origin` names Tephra's host. A request with neither header is not from a browser
//!   page (browsers send `Origin` on every cross-origin POST) and passes. Bearer tokens are exempt:
//!   a page cannot make the browser attach one, and a cross-origin request that sets
//!   `Authorization` needs a CORS preflight Tephra never grants.
//! - With the development login, every request must be addressed to a loopback name (`Host`), so
//!   a DNS-rebinding page (evil.example resolving to 127.0.0.1) cannot even read answers.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// What the guard knows of this installation.
#[derive(Debug, Clone, Default)]
pub struct SitePolicy {
    /// The development login is on: only loopback `Host`s are served.
    pub dev_login: bool,
    /// The host (and port) users reach Tephra at, from `--public-url`; without it, the request's
    /// own `Host`.
    pub public_host: Option<String>,
}

/// Why a request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    CrossSite(String),
    NotLoopback(String),
}

impl Refusal {
    fn message(&self) -> String {
        match self {
            Refusal::CrossSite(from) => format!(
                "cross-site request refused: a request that changes something must come from \
                 Tephra's own pages (it came from {from})"
            ),
            Refusal::NotLoopback(host) => format!(
                "the development login serves only requests addressed to this machine \
                 (localhost, 127.0.0.1 or [::1]); this one was addressed to {host:?}"
            ),
        }
    }
}

/// Decides one request from its method and headers.
pub fn check(policy: &SitePolicy, method: &Method, headers: &HeaderMap) -> Result<(), Refusal> {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if policy.dev_login && !is_loopback_host(host) {
        return Err(Refusal::NotLoopback(host.to_owned()));
    }
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) || has_bearer(headers) {
        return Ok(());
    }
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site")) {
        return match site {
            "same-origin" | "none" => Ok(()),
            other => Err(Refusal::CrossSite(format!("a {other} page"))),
        };
    }
    let Some(origin) = text(header::ORIGIN) else {
        return Ok(());
    };
    let expected = policy.public_host.as_deref().unwrap_or(host);
    match origin_host(origin) {
        Some(from) if from.eq_ignore_ascii_case(expected) => Ok(()),
        _ => Err(Refusal::CrossSite(format!("origin {origin:?}"))),
    }
}

fn has_bearer(headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.len() > 7 && v[..7].eq_ignore_ascii_case("bearer "))
}

/// `host[:port]` of an `Origin` header (`scheme://host[:port]`); `None` for `null` and the like.
fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    (matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains('/')).then_some(rest)
}

/// Whether `Host` names this machine: `localhost`, an address in 127.0.0.0/8, or `[::1]`, with or
/// without a port.
pub fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, port)) if port.is_empty() || port.starts_with(':') => addr,
            _ => return false,
        },
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The middleware: refuses with 403 and the API's error body.
pub async fn guard(State(policy): State<SitePolicy>, request: Request, next: Next) -> Response {
    match check(&policy, request.method(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => {
            tracing::warn!(method = %request.method(), path = %request.uri().path(), ?refusal, "refused");
            let body = serde_json::json!({ "code": 403, "message": refusal.message() });
            (StatusCode::FORBIDDEN, axum::Json(body)).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    fn policy(dev_login: bool) -> SitePolicy {
        SitePolicy {
            dev_login,
            public_host: None,
        }
    }

    #[test]
    fn reads_pass_from_anywhere() {
        let h = headers(&[("host", "127.0.0.1:3000"), ("sec-fetch-site", "cross-site")]);
        assert_eq!(check(&policy(true), &Method::GET, &h), Ok(()));
    }

    #[test]
    fn a_post_from_another_site_is_refused() {
        let by_fetch_metadata =
            headers(&[("host", "127.0.0.1:3000"), ("sec-fetch-site", "cross-site")]);
        let by_origin = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "https://evil.example"),
        ]);
        let null_origin = headers(&[("host", "127.0.0.1:3000"), ("origin", "null")]);
        let same_site = headers(&[("host", "127.0.0.1:3000"), ("sec-fetch-site", "same-site")]);
        for h in [by_fetch_metadata, by_origin, null_origin, same_site] {
            assert!(
                matches!(
                    check(&policy(true), &Method::POST, &h),
                    Err(Refusal::CrossSite(_))
                ),
                "{h:?}"
            );
        }
    }

    #[test]
    fn a_post_from_tephras_own_pages_passes() {
        let fetch = headers(&[
            ("host", "127.0.0.1:3000"),
            ("sec-fetch-site", "same-origin"),
        ]);
        let origin = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "http://127.0.0.1:3000"),
        ]);
        let typed = headers(&[("host", "127.0.0.1:3000"), ("sec-fetch-site", "none")]);
        for h in [fetch, origin, typed] {
            assert_eq!(check(&policy(true), &Method::POST, &h), Ok(()), "{h:?}");
        }
    }

    #[test]
    fn the_public_url_decides_the_origin_behind_a_proxy() {
        let p = SitePolicy {
            dev_login: false,
            public_host: Some("tephra.example.org".into()),
        };
        let ok = headers(&[
            ("host", "10.0.0.7:3000"),
            ("origin", "https://tephra.example.org"),
        ]);
        let bad = headers(&[
            ("host", "10.0.0.7:3000"),
            ("origin", "http://10.0.0.7:3000"),
        ]);
        assert_eq!(check(&p, &Method::DELETE, &ok), Ok(()));
        assert!(check(&p, &Method::DELETE, &bad).is_err());
    }

    #[test]
    fn scripts_with_a_bearer_token_or_without_browser_headers_pass() {
        let bearer = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "https://evil.example"),
            ("authorization", "Bearer abc"),
        ]);
        let curl = headers(&[("host", "127.0.0.1:3000")]);
        assert_eq!(check(&policy(false), &Method::POST, &bearer), Ok(()));
        assert_eq!(check(&policy(false), &Method::POST, &curl), Ok(()));
    }

    #[test]
    fn the_development_login_serves_loopback_names_only() {
        for host in [
            "127.0.0.1:3000",
            "localhost",
            "LOCALHOST:80",
            "[::1]:3000",
            "127.8.9.1",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:3000",
            "10.0.0.1",
            "[::2]:3000",
            "",
            "[::1",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
        let rebound = headers(&[("host", "evil.example:3000")]);
        assert!(matches!(
            check(&policy(true), &Method::GET, &rebound),
            Err(Refusal::NotLoopback(_))
        ));
        assert_eq!(check(&policy(false), &Method::GET, &rebound), Ok(()));
    }
}
