//! The HTTP status of a server function's error. server_fn answers every error with 500, so a
//! rejected draft or a database outage would look like a server bug to the browser's network log,
//! to proxies and to monitoring. The encoded [`AppError`] knows its status; this middleware puts it
//! on the response. The hydrated client reads any 4xx or 5xx as an error, so it sees no change.

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
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR
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
    if let Ok(error) = serde_json::from_slice::<AppError>(&bytes) {
        parts.status = status_of(&error);
    }
    Response::from_parts(parts, Body::from(bytes))
}
