//! The HTTP status of a server function's error. server_fn answers every error with 500, so a
//! rejected draft or a database outage would look like a server bug to the browser's network log,
//! to proxies and to monitoring. The encoded [`AppError`] knows its status; this middleware puts it
//! on the response. The hydrated client reads any 4xx or 5xx as an error, so it sees no change.
//!
//! A plain form post (scripts off) is answered by Leptos with a redirect back to the page, the
//! error included, and the page would show nothing of it. Such an error is answered instead with
//! a page of its own, naming each field, under the error's status.

use super::api::error::status_of;
use app::error::AppError;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use leptos::server_fn::error::SERVER_FN_ERROR_HEADER;

/// Error bodies are one serialized [`AppError`]; anything larger is left alone.
const MAX_ERROR_BODY: usize = 1 << 20;

pub async fn restore(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let plain_post = response.status().is_redirection();
    if !(response.status() == StatusCode::INTERNAL_SERVER_ERROR || plain_post)
        || !response.headers().contains_key(SERVER_FN_ERROR_HEADER)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_ERROR_BODY).await {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(%error, "cannot read a server function's error body");
            return Response::from_parts(parts, Body::empty());
        }
    };
    match serde_json::from_slice::<AppError>(&bytes) {
        Ok(error) if plain_post => refused(&error),
        Ok(error) => {
            parts.status = status_of(&error);
            Response::from_parts(parts, Body::from(bytes))
        }
        Err(_) => Response::from_parts(parts, Body::from(bytes)),
    }
}

/// What a plain form post was refused: the error names the fields, and the browser's Back
/// returns to the form with what was typed.
fn refused(error: &AppError) -> Response {
    super::sign_in::page(
        status_of(error),
        "The form was not accepted",
        &format!("{error}. Go back to correct it: what you typed is still in the form."),
        None,
    )
}
