//! `GET /api/v1/workloads/{id}/pods/{pod}/logs`: one container's log, as
//! `kubectl logs` reads it (container, tailLines, sinceSeconds, follow, timestamps, previous).
//!
//! Plain text by default, a line per line; `download=true` makes it a file to save. A client that
//! accepts `text/event-stream` (the dashboard's `EventSource`) gets Server-Sent Events instead:
//! `line` for each line, then `end` when the log ends, or `failure` with the reason.
//!
//! A follow is one of its caller's open streams (`crate::http::streams`): it stops when the
//! caller signs out or may no longer read the workload, after `--log-follow-max-minutes` and
//! after `--log-follow-max-mib`, saying so (`failure`, or a last `[tephra: …]` line).

use super::error::{BadRequest, Conflict, NotFound, TooManyRequests, Unauthorized};
use super::{ActingRenewably, ApiError, QueryParams};
use crate::http::{AppState, streams};
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::{Stream, StreamExt};
use std::convert::Infallible;
use std::pin::Pin;
use tephra_core::domain::logs::LogsQuery;

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
        BadRequest, Unauthorized, NotFound, Conflict, TooManyRequests))]
pub async fn pod_logs(
    State(state): State<AppState>,
    ActingRenewably(principal, credential): ActingRenewably,
    Path((workload_id, pod)): Path<(String, String)>,
    headers: HeaderMap,
    QueryParams(query): QueryParams<LogsQuery>,
) -> Result<Response, ApiError> {
    // A follow lasts: it is counted, bounded, and asks again while it runs.
    let slot = match query.follow {
        true => Some(state.streams.open(&principal)?),
        false => None,
    };
    let (request, lines) = state
        .services
        .workloads()
        .pod_logs(&principal, &workload_id, &pod, query)
        .await?;
    let pieces: Pin<Box<dyn Stream<Item = Piece> + Send>> = match slot {
        Some(slot) => {
            let limits = *state.streams.limits();
            let still = streams::checking(state, credential, move |state, principal| {
                let workload_id = workload_id.clone();
                async move {
                    let watched = state
                        .services
                        .workloads()
                        .watched(&principal, &workload_id)
                        .await;
                    watched.map(drop).map_err(|e| e.to_string())
                }
            });
            let capped = capped(lines.map(Piece::from), limits.follow_bytes);
            let bounded =
                streams::until_refused(capped, limits.recheck, Some(limits.follow_time), still);
            Box::pin(bounded.map(move |piece| {
                let _counted = &slot;
                piece.unwrap_or_else(Piece::Stopped)
            }))
        }
        None => Box::pin(lines.map(Piece::from)),
    };
    let wants_events = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if wants_events && !request.download {
        return Ok(Sse::new(events(pieces))
            .keep_alive(KeepAlive::default())
            .into_response());
    }
    let body = pieces.filter_map(|piece| {
        std::future::ready(match piece {
            Piece::Line(mut line) => {
                line.push('\n');
                Some(Ok(line))
            }
            Piece::BrokeOff(error) => Some(Err(error)),
            Piece::Stopped(why) => Some(Ok(format!("[tephra: the follow stopped: {why}]\n"))),
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

/// What a log response passes on.
enum Piece {
    Line(String),
    /// The API server's stream failed.
    BrokeOff(std::io::Error),
    /// Tephra stopped a follow: its caller signed out or lost access, or it reached its bounds.
    Stopped(String),
}

impl From<std::io::Result<String>> for Piece {
    fn from(line: std::io::Result<String>) -> Self {
        line.map_or_else(Piece::BrokeOff, Piece::Line)
    }
}

/// `pieces` until they have passed `most` bytes; then why they stopped.
fn capped(pieces: impl Stream<Item = Piece> + Send, most: i64) -> impl Stream<Item = Piece> + Send {
    let mut passed: i64 = 0;
    pieces
        .map(move |piece| {
            if passed >= most {
                return None;
            }
            if let Piece::Line(line) = &piece {
                passed += i64::try_from(line.len()).unwrap_or(i64::MAX) + 1;
                if passed > most {
                    let mib = most / (1024 * 1024);
                    return Some(Piece::Stopped(format!(
                        "it passed the most a follow passes on ({mib} MiB); open it again to go on"
                    )));
                }
            }
            Some(piece)
        })
        .take_while(|piece| std::future::ready(piece.is_some()))
        .filter_map(std::future::ready)
}

/// The lines as events, closed by `end` (the log ended) or `failure` (it broke off or was
/// stopped), so the browser knows not to reconnect: a reconnection would send the tail again.
fn events(
    pieces: impl Stream<Item = Piece> + Send + 'static,
) -> impl Stream<Item = Result<Event, Infallible>> + Send + 'static {
    let pieces = Box::pin(pieces);
    futures::stream::unfold(Some(pieces), |pieces| async move {
        let mut pieces = pieces?;
        Some(match pieces.next().await {
            Some(Piece::Line(line)) => (Event::default().event("line").data(line), Some(pieces)),
            Some(Piece::BrokeOff(error)) => (
                Event::default()
                    .event("failure")
                    .data(format!("the log broke off: {error}")),
                None,
            ),
            Some(Piece::Stopped(why)) => (
                Event::default()
                    .event("failure")
                    .data(format!("the follow stopped: {why}")),
                None,
            ),
            None => (Event::default().event("end").data("{}"), None),
        })
    })
    .map(Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_follow_stops_after_its_bytes_and_says_so() {
        let lines = futures::stream::iter(["abc", "defg", "hi", "never"])
            .map(|l| Piece::Line(l.to_owned()));
        let passed: Vec<_> = capped(lines, 10).collect().await;
        let shown: Vec<String> = passed
            .iter()
            .map(|p| match p {
                Piece::Line(l) => l.clone(),
                Piece::Stopped(why) => format!("stopped: {why}"),
                Piece::BrokeOff(e) => e.to_string(),
            })
            .collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert_eq!(shown[..2], ["abc", "defg"]);
        assert!(shown[2].starts_with("stopped: it passed the most"));
    }
}
