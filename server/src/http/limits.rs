//! Rate limits on what a caller can make Tephra work for: per client address on the sign-in
//! routes, the token endpoint and every write of the REST API; and per principal, once known, on
//! the token endpoint (per client id, whatever address a guesser uses) and the REST API's writes
//! (per user or application, however many addresses it comes from). Past a limit the answer is
//! 429 with `Retry-After`; nothing behind it runs. Counting is per minute in fixed windows, in
//! memory (each replica counts its own), with the table bounded however many callers there are.
//! Loopback callers are not counted.

use crate::http::error::ApiError;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WINDOW: Duration = Duration::from_secs(60);
/// Callers remembered at most; past it, windows that ended are dropped first.
const MAX_ADDRESSES: usize = 50_000;

/// Who is counted: a client address, or a principal (a user's id, an application's name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Counted {
    Address(IpAddr),
    Principal(String),
}

/// What is limited, each with its own count per address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// `/auth/login`, `/auth/callback` and the exposed-URL handshake.
    SignIn,
    /// `POST /api/v1/token`.
    Token,
    /// Any other POST, PUT, PATCH or DELETE under `/api/`.
    Write,
}

impl Class {
    fn of(method: &Method, path: &str) -> Option<Class> {
        let writes = matches!(
            *method,
            Method::POST | Method::PUT | Method::PATCH | Method::DELETE
        );
        if path.starts_with("/auth/login")
            || path.starts_with("/auth/callback")
            || path == "/auth/exposed"
        {
            Some(Class::SignIn)
        } else if path == "/api/v1/token" {
            Some(Class::Token)
        } else if writes && path.starts_with("/api/") {
            Some(Class::Write)
        } else {
            None
        }
    }
}

/// Requests per minute and address, per class (`--rate-limit-*`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub sign_in: u32,
    pub token: u32,
    pub write: u32,
    /// Count by the last `X-Forwarded-For` address (the one the ingress saw) rather than the
    /// connection's, which behind an ingress is the ingress's own (`--trust-forwarded-for`).
    pub trust_forwarded_for: bool,
}

impl Limits {
    fn of(&self, class: Class) -> u32 {
        match class {
            Class::SignIn => self.sign_in,
            Class::Token => self.token,
            Class::Write => self.write,
        }
    }
}

struct Window {
    began: Instant,
    count: u32,
}

/// The counts, shared by every request of the process.
#[derive(Clone)]
pub struct RateLimiter {
    limits: Limits,
    windows: Arc<Mutex<HashMap<(Class, Counted), Window>>>,
}

impl RateLimiter {
    pub fn new(limits: Limits) -> Self {
        RateLimiter {
            limits,
            windows: Arc::default(),
        }
    }

    /// Counts one request; `Err` with the seconds until the window ends when over the limit.
    fn admit(&self, class: Class, who: Counted, now: Instant) -> Result<(), u64> {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= MAX_ADDRESSES {
            windows.retain(|_, w| now.duration_since(w.began) < WINDOW);
            if windows.len() >= MAX_ADDRESSES {
                // Every remembered address is active: forget them rather than grow.
                windows.clear();
            }
        }
        let window = windows.entry((class, who)).or_insert(Window {
            began: now,
            count: 0,
        });
        if now.duration_since(window.began) >= WINDOW {
            *window = Window {
                began: now,
                count: 0,
            };
        }
        if window.count >= self.limits.of(class) {
            let left = WINDOW.saturating_sub(now.duration_since(window.began));
            return Err(left.as_secs().max(1));
        }
        window.count += 1;
        Ok(())
    }

    /// Counts one request of `class` by `principal`, made over the connection `parts` came on;
    /// a 429 naming the limit when over it. Loopback callers are not counted.
    pub fn admit_principal(
        &self,
        class: Class,
        principal: &str,
        parts: &Parts,
    ) -> Result<(), ApiError> {
        let connection = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        let address = self.address_of(&parts.headers, connection);
        if address.is_none_or(|a| a.is_loopback()) {
            return Ok(());
        }
        self.admit(
            class,
            Counted::Principal(principal.to_owned()),
            Instant::now(),
        )
        .map_err(|retry_after| {
            tracing::warn!(principal, ?class, "rate limit reached");
            ApiError::too_many(
                format!("too many requests as {principal:?}; try again in {retry_after} seconds"),
                retry_after,
            )
        })
    }

    fn address(&self, request: &Request) -> Option<IpAddr> {
        self.address_of(
            request.headers(),
            request.extensions().get::<ConnectInfo<SocketAddr>>(),
        )
    }

    fn address_of(
        &self,
        headers: &HeaderMap,
        connection: Option<&ConnectInfo<SocketAddr>>,
    ) -> Option<IpAddr> {
        if self.limits.trust_forwarded_for
            && let Some(forwarded) = headers
                .get("x-forwarded-for")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.rsplit(',').next())
                .and_then(|v| v.trim().parse().ok())
        {
            return Some(forwarded);
        }
        connection.map(|info| info.0.ip())
    }
}

/// Answers 429 to a request over its class's limit; lets every other through.
pub async fn limit(State(limiter): State<RateLimiter>, request: Request, next: Next) -> Response {
    let Some(class) = Class::of(request.method(), request.uri().path()) else {
        return next.run(request).await;
    };
    // The machine itself is not limited: on loopback only Tephra's own tools, benchmarks and
    // tests reach it, and the development login serves nobody else.
    let Some(address) = limiter.address(&request).filter(|a| !a.is_loopback()) else {
        return next.run(request).await;
    };
    match limiter.admit(class, Counted::Address(address), Instant::now()) {
        Ok(()) => next.run(request).await,
        Err(retry_after) => {
            tracing::warn!(%address, ?class, "rate limit reached");
            let mut answer = ApiError::status(
                StatusCode::TOO_MANY_REQUESTS,
                format!("too many requests from this address; try again in {retry_after} seconds"),
            )
            .into_response();
            if let Ok(value) = HeaderValue::from_str(&retry_after.to_string()) {
                answer.headers_mut().insert(header::RETRY_AFTER, value);
            }
            answer
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_counts_per_address_and_window() {
        let limiter = RateLimiter::new(Limits {
            sign_in: 2,
            token: 1,
            write: 3,
            trust_forwarded_for: false,
        });
        let address = |a: &str| Counted::Address(a.parse().unwrap());
        let (a, b) = (address("10.0.0.1"), address("10.0.0.2"));
        let now = Instant::now();
        assert!(limiter.admit(Class::Token, a.clone(), now).is_ok());
        let retry = limiter.admit(Class::Token, a.clone(), now).unwrap_err();
        assert_eq!(retry, 60);
        assert!(
            limiter.admit(Class::Token, b.clone(), now).is_ok(),
            "another address"
        );
        assert!(
            limiter.admit(Class::SignIn, a.clone(), now).is_ok(),
            "another class"
        );
        let later = now + WINDOW;
        assert!(
            limiter.admit(Class::Token, a.clone(), later).is_ok(),
            "a new window"
        );
        assert_eq!(Class::of(&Method::GET, "/api/v1/workloads"), None);
        assert_eq!(
            Class::of(&Method::POST, "/api/v1/workloads/trainings"),
            Some(Class::Write)
        );
        assert_eq!(
            Class::of(&Method::POST, "/api/v1/token"),
            Some(Class::Token)
        );
        assert_eq!(Class::of(&Method::GET, "/auth/login"), Some(Class::SignIn));
        assert_eq!(Class::of(&Method::GET, "/auth/exposed/check"), None);
    }
}
