//! `GET /api/v1/workloads/{id}/pods/{pod}/logs`: one container's log, as
//! `kubectl logs` reads it (container, tailLines, sinceSeconds, follow, timestamps, previous).
//!
//! Plain text by default, a line per line; `download=true` makes it a file to save. A client that
//! accepts `text/event-stream` (the dashboard's `EventSource`) gets Server-Sent Events instead:
//! `line` for each line, then `end` when the log ends, or `failure` with the reason.

use super::error::{BadRequest, Conflict, NotFound, Unauthorized};
use super::{Acting, ApiError, QueryParams};
use crate::domain::logs::LogsQuery;
use crate::http::AppState;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::{Stream, StreamExt};
use std::convert::Infallible;

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/api/v1/workloads/{workload_id}/pods/{pod}/logs",
        get(pod_logs),
    )
}

/// One container's log.
#[utoipa::path(get, path = "/api/v1/workloads/{id}/pods/{pod}/logs", tag = "workloads",
    params(("id" = String, Path, description = "The workload's id"),
        ("pod" = String, Path, description = "One of the workload's pods (its detail lists them)"),
        LogsQuery),
    responses((status = 200, description = "The log as text/plain, a line per line; text/event-stream (`line`, `end`, `failure` events) when the client accepts it", content_type = "text/plain", body = String),
        BadRequest, Unauthorized, NotFound, Conflict))]
pub async fn pod_logs(
    State(state): State<AppState>,
    Acting(principal): Acting,
    Path((workload_id, pod)): Path<(String, String)>,
    headers: HeaderMap,
    QueryParams(query): QueryParams<LogsQuery>,
) -> Result<Response, ApiError> {
    let (request, lines) = state
        .control
        .pod_logs(&principal, &workload_id, &pod, query)
        .await?;
    let wants_events = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if wants_events && !request.download {
        return Ok(Sse::new(events(lines))
            .keep_alive(KeepAlive::default())
            .into_response());
    }
    let body = lines.map(|line| {
        line.map(|mut l| {
            l.push('\n');
            l
        })
    });
    let mut response = Body::from_stream(body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    // Logs change by the second; a cached copy would be wrong at once.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if request.download
        && let Ok(value) = HeaderValue::from_str(&format!(
            "attachment; filename=\"{}\"",
            request.file_name(&pod)
        ))
    {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// The lines as events, closed by `end` (the log ended) or `failure` (it broke off), so the
/// browser knows not to reconnect: a reconnection would send the tail again.
fn events(
    lines: impl Stream<Item = std::io::Result<String>> + Send + 'static,
) -> impl Stream<Item = Result<Event, Infallible>> + Send + 'static {
    let lines = Box::pin(lines);
    futures::stream::unfold(Some(lines), |lines| async move {
        let mut lines = lines?;
        Some(match lines.next().await {
            Some(Ok(line)) => (Event::default().event("line").data(line), Some(lines)),
            Some(Err(error)) => (
                Event::default()
                    .event("failure")
                    .data(format!("the log broke off: {error}")),
                None,
            ),
            None => (Event::default().event("end").data("{}"), None),
        })
    })
    .map(Ok)
}
