//! `/auth/login`, `/auth/callback` and `/auth/logout`: the browser's way through the OpenID
//! provider (`auth::oidc`), and the redirect of page requests that nobody is signed in for.
//! [`SignInError`]s become answers here, and only here.

use super::AppState;
use crate::auth::claims::safe_next;
use crate::auth::oidc::{PendingLogin, SignInError};
use crate::auth::pending;
use crate::auth::{SIGNED_IN, SignedIn};
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use tephra_core::model::history::AuditAction;
use tower_sessions::Session;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/auth/login", get(login))
        .route("/auth/callback", get(callback))
        .route("/auth/logout", post(logout))
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[derive(Debug, Deserialize)]
struct LoginQuery {
    next: Option<String>,
}

/// Starts a sign-in: keeps state, nonce and PKCE verifier in a signed cookie (no session row),
/// then sends the browser to the provider.
async fn login(State(state): State<AppState>, Query(query): Query<LoginQuery>) -> Response {
    let Some(oidc) = &state.services.auth().oidc else {
        return page(
            StatusCode::NOT_FOUND,
            "Sign-in is not configured",
            "This Tephra has no identity provider (--oidc-issuer).",
            None,
        );
    };
    match oidc.begin(query.next.as_deref().unwrap_or("/"), now()) {
        Ok((url, pending)) => {
            let cookie = state
                .services
                .auth()
                .pending
                .set_cookie(pending, state.sessions.secure);
            ([(header::SET_COOKIE, cookie)], Redirect::to(&url)).into_response()
        }
        Err(error) => failed(&error, "/"),
    }
}

#[derive(Debug, Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// Finishes a sign-in (see [`finish`]) and removes the pending sign-in's cookie, whatever the
/// outcome: it is good for one answer only.
async fn callback(
    State(state): State<AppState>,
    session: Session,
    headers: header::HeaderMap,
    Query(query): Query<CallbackQuery>,
) -> Response {
    let started = state.services.auth().pending.from_headers(&headers);
    let mut response = finish(&state, session, query, started).await;
    if let Ok(clear) = pending::clear_cookie(state.sessions.secure).parse() {
        response.headers_mut().append(header::SET_COOKIE, clear);
    }
    response
}

/// Verifies the provider's answer, records the user, replaces the session id (so an id planted
/// before sign-in is worthless after it) and returns to the page asked for.
async fn finish(
    state: &AppState,
    session: Session,
    query: CallbackQuery,
    pending: Option<PendingLogin>,
) -> Response {
    let Some(oidc) = &state.services.auth().oidc else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let next = pending
        .as_ref()
        .map_or_else(|| "/".to_owned(), |p| p.next.clone());
    let pending_started = pending.is_some();
    let outcome = match (&query.error, &query.code, &query.state) {
        // Whoever opens the callback URL writes these words into the audit trail and the page:
        // bounded, so a long one cannot fill either.
        (Some(error), _, _) => Err(SignInError::Refused(bounded(
            query.error_description.as_deref().unwrap_or(error),
        ))),
        (None, Some(code), Some(returned_state)) => {
            oidc.finish(pending, code, returned_state, now()).await
        }
        _ => Err(SignInError::Refused(
            "the answer has no authorization code or state".into(),
        )),
    };
    let identity = match outcome {
        Ok(identity) => identity,
        Err(error) => {
            // Recorded only for a sign-in this browser started (its pending cookie is signed by
            // this server): anyone can open the callback URL, and each opening would otherwise
            // add a row to the trail, bounded per address only.
            if pending_started {
                let detail = serde_json::json!({ "reason": error.to_string() });
                state
                    .services
                    .auth()
                    .audit(None, AuditAction::SignInFailed, detail)
                    .await;
            }
            tracing::warn!(%error, pending_started, "sign-in failed");
            return failed(&error, &next);
        }
    };
    let signed_in = match state.services.auth().signed_in(identity).await {
        Ok(signed_in) => signed_in,
        Err(error) => {
            tracing::error!(%error, "cannot record a sign-in");
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Sign-in could not be recorded",
                "The database did not answer. Try again in a moment.",
                Some(&next),
            );
        }
    };
    if let Err(error) = session.cycle_id().await {
        return session_failed(&error);
    }
    if let Err(error) = session.insert(SIGNED_IN, &signed_in).await {
        return session_failed(&error);
    }
    Redirect::to(&safe_next(&next)).into_response()
}

/// Ends the session here and, where the provider supports it, there too.
async fn logout(State(state): State<AppState>, session: Session) -> Response {
    let signed_in: Option<SignedIn> = session.get(SIGNED_IN).await.ok().flatten();
    if let Err(error) = session.flush().await {
        return session_failed(&error);
    }
    let Some(signed_in) = signed_in else {
        return Redirect::to("/").into_response();
    };
    state
        .services
        .auth()
        .audit(
            Some(signed_in.user_id),
            AuditAction::SignOut,
            serde_json::json!({}),
        )
        .await;
    let provider = state
        .services
        .auth()
        .oidc
        .as_ref()
        .and_then(|o| o.logout_url());
    Redirect::to(provider.as_deref().unwrap_or("/")).into_response()
}

/// Sends page requests nobody is signed in for to the provider, coming back to the same page.
/// API requests are left to answer 401 themselves.
pub async fn require_sign_in(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if state.services.auth().oidc.is_none() || !is_page_request(&request) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    if state.services.auth().authenticate(&parts).await.is_ok() {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let query = next_query(&target);
    Redirect::to(&format!("/auth/login?{query}")).into_response()
}

pub(super) fn next_query(target: &str) -> String {
    let mut out = String::from("next=");
    for byte in target.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// A browser navigating to one of Tephra's pages (not the API, sign-in, files or probes).
fn is_page_request(request: &Request) -> bool {
    let path = request.uri().path();
    let accepts_html = request
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"));
    request.method() == Method::GET
        && accepts_html
        && !["/api/", "/auth/", "/pkg/"]
            .iter()
            .any(|prefix| path.starts_with(prefix))
        && !matches!(path, "/healthz" | "/readyz" | "/metrics")
        && !path.rsplit('/').next().unwrap_or("").contains('.')
}

fn failed(error: &SignInError, next: &str) -> Response {
    let status = match error {
        SignInError::NotDiscovered(_) | SignInError::Unreachable(_) => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        SignInError::NoPendingLogin | SignInError::StateMismatch => StatusCode::BAD_REQUEST,
        SignInError::Refused(_) | SignInError::BadIdToken(_) => StatusCode::UNAUTHORIZED,
    };
    page(status, "Sign-in failed", &error.to_string(), Some(next))
}

fn session_failed(error: &tower_sessions::session::Error) -> Response {
    tracing::error!(%error, "cannot store the session");
    page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Sign-in could not be stored",
        "The session store did not answer. Try again in a moment.",
        None,
    )
}

/// A small page for what happens outside the app's own pages.
pub(super) fn page(
    status: StatusCode,
    title: &str,
    message: &str,
    retry_next: Option<&str>,
) -> Response {
    let retry = retry_next.map_or_else(String::new, |next| {
        format!(
            r#"<p><a href="/auth/login?{}">Sign in again</a></p>"#,
            next_query(&safe_next(next))
        )
    });
    let body = format!(
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} · Tephra</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<main><h1>{title}</h1><p>{message}</p>{retry}<p><a href="/">Tephra home</a></p></main></body></html>"#,
        title = escape(title),
        message = escape(message),
    );
    (status, Html(body)).into_response()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The most of a provider's error text that is kept.
const MAX_PROVIDER_TEXT: usize = 200;

/// `text` cut to [`MAX_PROVIDER_TEXT`] characters (marked with `…` when cut).
fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_PROVIDER_TEXT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, accept: &str) -> Request {
        Request::builder()
            .uri(path)
            .header(header::ACCEPT, accept)
            .body(axum::body::Body::empty())
            .unwrap()
    }

    #[test]
    fn only_page_navigations_are_sent_to_sign_in() {
        let html = "text/html,application/xhtml+xml";
        assert!(is_page_request(&get("/trainings?project=x", html)));
        assert!(is_page_request(&get("/", html)));
        for path in [
            "/api/v1/workloads/trainings",
            "/auth/callback",
            "/pkg/tephra.wasm",
            "/readyz",
            "/favicon.ico",
        ] {
            assert!(!is_page_request(&get(path, html)), "{path}");
        }
        assert!(!is_page_request(&get("/trainings", "application/json")));
    }

    #[test]
    fn the_return_target_is_encoded_into_the_login_link() {
        assert_eq!(
            next_query("/trainings?project=a&phase=Running"),
            "next=/trainings%3Fproject%3Da%26phase%3DRunning"
        );
    }

    #[test]
    fn a_providers_error_text_is_bounded() {
        assert_eq!(super::bounded("denied"), "denied");
        let long = "é".repeat(5000);
        let kept = super::bounded(&long);
        assert_eq!(kept.chars().count(), super::MAX_PROVIDER_TEXT + 1);
        assert!(kept.ends_with('…'));
    }
}
