//! Forward auth for exposed URLs (`tephra_core::domain::exposed`), where the cluster profile has
//! `forwardAuth` and an `ingressHost`:
//!
//! - `GET /auth/exposed/check`: the ingress asks before every request to a job's host
//!   (ingress-nginx `auth-url` sends `X-Original-URL`; Traefik `forwardAuth` sends
//!   `X-Forwarded-Host` and `X-Forwarded-Uri`). 200 when the pass in the URL (a grant) or in the
//!   host's cookie names someone who may open the URL now; 401 without a valid pass; 403
//!   otherwise. A grant is answered with the host's cookie (`Set-Cookie`, which ingress-nginx
//!   hands the browser with `auth-always-set-cookie`).
//! - `GET /auth/exposed?rd=<url>`: where the ingress sends a browser without a pass
//!   (`auth-signin`). With a Tephra session (else through sign-in and back) and access, it sends
//!   the browser back to `rd` with a 60-second grant for that host alone. `rd` must be an
//!   exposed URL of this installation: anything else is a 400, never a redirect.

use super::AppState;
use super::sign_in::{next_query, page};
use crate::service::workloads::may_open;
use app::error::AppError;
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;
use tephra_core::domain::exposed::{
    COOKIE_NAME, COOKIE_SECONDS, GRANT_PARAM, GRANT_SECONDS, HostLabel, Pass, Purpose, parse_host,
    set_cookie,
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/auth/exposed", get(begin))
        .route("/auth/exposed/check", get(check))
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The profile's `ingressHost` when forward auth is on; both routes are 404s otherwise.
fn ingress_host(state: &AppState) -> Option<&str> {
    state.services.workloads().forward_auth_host()
}

/// An `https://` URL on an exposed URL's host, as `rd` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnUrl {
    pub label: HostLabel,
    /// `host[:port]` as given.
    authority: String,
    /// Path and query, without any grant it carried, and never empty.
    rest: String,
}

impl ReturnUrl {
    /// Reads `rd`; the error says what is wrong with it.
    pub fn parse(rd: &str, ingress_host: &str) -> Result<ReturnUrl, String> {
        let bad = |why: &str| format!("rd: {why}");
        if rd
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
        {
            return Err(bad("must be a URL without spaces or backslashes"));
        }
        let after = rd
            .strip_prefix("https://")
            .ok_or_else(|| bad("must be an https:// URL"))?;
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        let (authority, rest) = after.split_at(end);
        if authority.contains('@') {
            return Err(bad("must not name a user"));
        }
        let label = parse_host(authority, ingress_host).ok_or_else(|| {
            bad(&format!(
                "must be an exposed URL of this Tephra (https://<job>-<port>-<hash>.{ingress_host}/)"
            ))
        })?;
        let rest = rest.split('#').next().unwrap_or_default();
        Ok(ReturnUrl {
            label,
            authority: authority.to_owned(),
            rest: without_grant(rest),
        })
    }

    /// The URL with `grant` added to its query.
    pub fn with_grant(&self, grant: &str) -> String {
        let join = if self.rest.contains('?') { '&' } else { '?' };
        format!(
            "https://{}{}{join}{GRANT_PARAM}={grant}",
            self.authority, self.rest
        )
    }
}

/// `rest` (`/path?query`) without `tephra-grant` parameters, so a stale grant is not kept.
fn without_grant(rest: &str) -> String {
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let path = if path.is_empty() { "/" } else { path };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && grant_value(pair).is_none())
        .collect();
    if kept.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

fn grant_value(pair: &str) -> Option<&str> {
    pair.strip_prefix(GRANT_PARAM)?.strip_prefix('=')
}

#[derive(Debug, Deserialize)]
struct BeginQuery {
    rd: Option<String>,
}

/// The handshake: signed in to Tephra and allowed, the browser goes back to `rd` with a grant.
async fn begin(
    State(state): State<AppState>,
    Query(query): Query<BeginQuery>,
    request: Request,
) -> Response {
    let Some(ingress_host) = ingress_host(&state) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let Some(rd) = query.rd.as_deref() else {
        return refused(
            StatusCode::BAD_REQUEST,
            "rd: the URL to return to is missing",
        );
    };
    let target_url = match ReturnUrl::parse(rd, ingress_host) {
        Ok(url) => url,
        Err(why) => return refused(StatusCode::BAD_REQUEST, &why),
    };
    let (parts, _) = request.into_parts();
    let principal = match state.services.auth().authenticate(&parts).await {
        Ok(principal) => principal,
        Err(AppError::Unauthorized(_)) if state.services.auth().oidc.is_some() => {
            let back = parts.uri.path_and_query().map_or("/", |p| p.as_str());
            return Redirect::to(&format!("/auth/login?{}", next_query(back))).into_response();
        }
        Err(error) => return app_error(&error),
    };
    let target = match state
        .services
        .workloads()
        .exposed_target(&target_url.label)
        .await
    {
        Ok(Some(target)) => target,
        Ok(None) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "rd: no running workload of this Tephra exposes that URL",
            );
        }
        Err(error) => return app_error(&error),
    };
    if let Err(error) = may_open(&principal, &target) {
        return app_error(&error);
    }
    let Ok(user) = principal.user_id.parse() else {
        return app_error(&AppError::Forbidden("the principal is no user".into()));
    };
    let grant = Pass {
        host: target_url.label.host.clone(),
        user,
        groups: principal.groups.clone(),
        expires: now() + GRANT_SECONDS,
    };
    let sealed = state.exposed_key.seal(Purpose::Grant, &grant);
    Redirect::to(&target_url.with_grant(&sealed)).into_response()
}

/// The request the ingress asks about: its host and its path with query.
fn original_request(headers: &HeaderMap) -> Option<(String, String)> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(url) = text("x-original-url") {
        let after = url.split_once("://")?.1;
        let end = after.find(['/', '?']).unwrap_or(after.len());
        let (host, rest) = after.split_at(end);
        return Some((host.to_owned(), rest.to_owned()));
    }
    let host = text("x-forwarded-host")?;
    let uri = text("x-forwarded-uri").unwrap_or("/");
    Some((host.to_owned(), uri.to_owned()))
}

/// The grant in a path's query, if it carries one.
fn grant_in(rest: &str) -> Option<&str> {
    let query = rest.split_once('?')?.1;
    query.split('&').find_map(grant_value)
}

/// This host's cookie pass, from every `Cookie` header the browser sent.
fn cookie_in(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(COOKIE_NAME)?.strip_prefix('='))
}

/// Forward auth: 200 (with the host's cookie when a grant came), 401 or 403.
async fn check(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(ingress_host) = ingress_host(&state) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let Some((host, rest)) = original_request(&headers) else {
        return answer(
            StatusCode::BAD_REQUEST,
            "X-Original-URL, or X-Forwarded-Host and X-Forwarded-Uri, must name the request",
        );
    };
    let Some(label) = parse_host(&host, ingress_host) else {
        return answer(StatusCode::FORBIDDEN, "not an exposed URL of this Tephra");
    };
    let now = now();
    let grant = grant_in(&rest);
    let (purpose, sealed) = match (grant, cookie_in(&headers)) {
        (Some(grant), _) => (Purpose::Grant, grant),
        (None, Some(cookie)) => (Purpose::Cookie, cookie),
        (None, None) => return answer(StatusCode::UNAUTHORIZED, "no pass for this host"),
    };
    let pass = match state.exposed_key.open(purpose, sealed, &label.host, now) {
        Ok(pass) => pass,
        Err(error) => return answer(StatusCode::UNAUTHORIZED, &error.to_string()),
    };
    if let Err(error) = allowed(&state, &label, &pass).await {
        return app_error_answer(&error);
    }
    let mut response = answer(StatusCode::OK, "");
    if purpose == Purpose::Grant {
        let cookie = Pass {
            expires: now + COOKIE_SECONDS,
            ..pass
        };
        let sealed = state.exposed_key.seal(Purpose::Cookie, &cookie);
        if let Ok(value) = HeaderValue::from_str(&set_cookie(&sealed, COOKIE_SECONDS)) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    response
}

/// Whether the pass's user may open the URL on `label`'s host now.
async fn allowed(state: &AppState, label: &HostLabel, pass: &Pass) -> Result<(), AppError> {
    let principal = state
        .services
        .auth()
        .principal_of_user(pass.user, &pass.groups)
        .await?;
    let target = state
        .services
        .workloads()
        .exposed_target(label)
        .await?
        .ok_or_else(|| AppError::Forbidden("no running workload exposes this URL".into()))?;
    may_open(&principal, &target)
}

/// A plain answer to the ingress, never cached: the next request is decided afresh.
fn answer(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        message.to_owned(),
    )
        .into_response()
}

fn status_of(error: &AppError) -> StatusCode {
    match error {
        AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
        AppError::Forbidden(_) => StatusCode::FORBIDDEN,
        AppError::NotFound(_) | AppError::Invalid { .. } | AppError::Rejected(_) => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::SERVICE_UNAVAILABLE,
    }
}

fn app_error_answer(error: &AppError) -> Response {
    let status = status_of(error);
    if status == StatusCode::SERVICE_UNAVAILABLE {
        tracing::error!(%error, "forward auth could not decide");
        return answer(status, "Tephra could not decide; try again in a moment");
    }
    answer(status, &error.to_string())
}

fn app_error(error: &AppError) -> Response {
    let status = status_of(error);
    if status == StatusCode::SERVICE_UNAVAILABLE {
        tracing::error!(%error, "the exposed-URL handshake could not decide");
        return refused(status, "Tephra could not decide; try again in a moment");
    }
    refused(status, &error.to_string())
}

fn refused(status: StatusCode, message: &str) -> Response {
    page(status, "This URL cannot be opened", message, None)
}

#[cfg(test)]
#[path = "exposed_tests.rs"]
mod tests;
