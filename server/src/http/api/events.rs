//! `GET /api/v1/workloads/events`: Server-Sent Events with every status change of the workloads
//! the principal may see, optionally only one workload's or one project's.
//!
//! Events: `workload` (a [`WorkloadEvent`] as JSON; its `status` has `pods` and `events` only
//! when the stream is filtered to that workload) and `resync` (the client missed changes or
//! just connected: fetch the state again). A stream filtered to one workload starts with its
//! current state; others start with `resync`, so a client that subscribes first and then fetches
//! never misses a change.
//!
//! The stream ends with `closed` (`{"reason"}`) when its caller signs out, their session or
//! token ends, or what they may see changes (`crate::http::streams`); a browser's `EventSource`
//! then reconnects and sees what it may see now, or is refused.

use super::error::{BadRequest, Forbidden, NotFound, TooManyRequests, Unauthorized};
use super::{ActingRenewably, ApiError};
use crate::cluster::{Published, event_of};
use crate::http::{AppState, sse, streams};
use app::error::AppError;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::Response;
use axum::routing::get;
use futures::{Stream, StreamExt};
use serde::Deserialize;
use std::collections::HashSet;
use std::sync::Arc;
use tephra_core::model::event_stream::StreamEvent;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::WorkloadEvent;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/workloads/events", get(stream_events))
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Only this workload.
    pub workload_id: Option<String>,
    /// Only this project (its id or name).
    pub project_id: Option<String>,
}

/// What the stream sends after its first event.
#[derive(Debug, Clone, PartialEq)]
enum Outgoing {
    Workload(Arc<Published>),
    /// The client fell behind the broadcast and missed this many changes: it must refetch.
    Resync {
        missed: u64,
    },
}

/// The changes `matches` accepts, with a resync wherever the receiver lagged.
fn outgoing(
    receiver: tokio::sync::broadcast::Receiver<Arc<Published>>,
    matches: impl Fn(&Published) -> bool + Send + 'static,
) -> impl Stream<Item = Outgoing> {
    BroadcastStream::new(receiver).filter_map(move |item| {
        std::future::ready(match item {
            Ok(e) if matches(&e) => Some(Outgoing::Workload(e)),
            Ok(_) => None,
            Err(BroadcastStreamRecvError::Lagged(missed)) => Some(Outgoing::Resync { missed }),
        })
    })
}

/// The projects a principal may see the workloads of: what an events stream shows.
async fn visible(state: &AppState, principal: &Principal) -> Result<HashSet<String>, AppError> {
    state
        .services
        .workloads()
        .readable_project_ids(principal)
        .await
}

/// Whether a stream opened with `query` for a principal who could see `shown` still shows what
/// that principal may see now: the same projects, and the filtered workload or project still
/// readable. When not, the stream ends and the client reconnects to what it may see now.
async fn still_shows(
    state: AppState,
    principal: Principal,
    query: Arc<EventsQuery>,
    shown: Arc<HashSet<String>>,
) -> Result<(), String> {
    if visible(&state, &principal)
        .await
        .map_err(|e| e.to_string())?
        != *shown
    {
        return Err("what you may see has changed; reconnect".into());
    }
    if let Some(key) = &query.project_id {
        state
            .services
            .workloads()
            .readable_project(&principal, key)
            .await
            .map_err(|e| e.to_string())?;
    }
    if let Some(id) = &query.workload_id {
        state
            .services
            .workloads()
            .watched(&principal, id)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Live status changes as Server-Sent Events.
#[utoipa::path(get, path = "/api/v1/workloads/events", tag = "events", params(EventsQuery),
    responses((status = 200, description = "text/event-stream of `workload` events (WorkloadEvent JSON), `resync`, and `closed` (`{\"reason\"}`) when the stream ends because the caller signed out or what they may see changed", body = WorkloadEvent),
        BadRequest, Unauthorized,
        Forbidden, NotFound, TooManyRequests))]
pub async fn stream_events(
    State(state): State<AppState>,
    ActingRenewably(principal, credential): ActingRenewably,
    query: Result<Query<EventsQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))?;
    let slot = state.streams.open(&principal)?;
    // Subscribe before reading anything, so nothing that happens in between is lost.
    let receiver = state.services.observe().subscribe();
    let shown = Arc::new(visible(&state, &principal).await?);
    let project = match &query.project_id {
        Some(key) => Some(
            state
                .services
                .workloads()
                .readable_project(&principal, key)
                .await?
                .id
                .to_string(),
        ),
        None => None,
    };
    let first = match &query.workload_id {
        Some(id) => {
            let listing = state.services.workloads().watched(&principal, id).await?;
            let deleted = listing.workload.deleted_at.is_some();
            sse::json_frame(StreamEvent::Workload, &event_of(&listing.workload, deleted))
        }
        None => sse::frame(StreamEvent::Resync, "{}"),
    };
    // One workload's page shows its pods and events; lists need only the summary.
    let detailed = query.workload_id.is_some();
    let workload = query.workload_id.clone();
    let visible_now = Arc::clone(&shown);
    let matches = move |e: &Published| {
        visible_now.contains(&e.project_id)
            && project.as_ref().is_none_or(|p| *p == e.project_id)
            && workload.as_ref().is_none_or(|w| *w == e.workload_id)
    };
    let changes = outgoing(receiver, matches).map(move |out| match out {
        Outgoing::Workload(e) => if detailed { &e.full } else { &e.summary }.clone(),
        Outgoing::Resync { missed } => {
            sse::frame(StreamEvent::Resync, &format!("{{\"missed\":{missed}}}"))
        }
    });
    let query = Arc::new(query);
    let still = streams::checking(state.clone(), credential, move |state, principal| {
        still_shows(state, principal, Arc::clone(&query), Arc::clone(&shown))
    });
    // Counted as an open stream until the client goes away and the stream is dropped.
    let open = state.services.metrics().stream_opened();
    let changes = streams::until_refused(changes, state.streams.limits().recheck, None, still).map(
        move |event| {
            let _counted = (&open, &slot);
            event.unwrap_or_else(|why| {
                sse::json_frame(StreamEvent::Closed, &serde_json::json!({ "reason": why }))
            })
        },
    );
    let stream = futures::stream::once(std::future::ready(first)).chain(changes);
    Ok(sse::response(stream))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tephra_core::model::phase::Phase;

    fn change(id: &str) -> Arc<Published> {
        let event = WorkloadEvent {
            workload_id: id.into(),
            project_id: "p".into(),
            name: id.into(),
            kind: tephra_core::model::kind::WorkloadKind::Training,
            desired_phase: Phase::Running,
            actual_phase: Phase::Running,
            phase_message: None,
            updated_at: String::new(),
            deleted: false,
            status: Default::default(),
        };
        Arc::new(Published::of(&event).unwrap())
    }

    #[tokio::test]
    async fn a_client_that_falls_behind_is_told_to_resync_then_continues() {
        let (tx, rx) = tokio::sync::broadcast::channel(2);
        let mut stream = Box::pin(outgoing(rx, |e| e.workload_id != "hidden"));
        for id in ["a", "b", "c", "hidden", "d"] {
            tx.send(change(id)).unwrap();
        }
        assert_eq!(stream.next().await, Some(Outgoing::Resync { missed: 3 }));
        assert_eq!(
            stream.next().await,
            Some(Outgoing::Workload(change("d"))),
            "the filtered change is skipped, the next one arrives"
        );
    }
}
