//! Probes: `/healthz` says the process serves HTTP; `/readyz` says it can do its work (the database
//! answers, the reconciler and tracker run, the cluster's API server answers, the identity
//! provider has been discovered), so a load balancer
//! only sends traffic to replicas that can handle it and an operator sees what is wrong.

use super::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};
use std::time::Duration;

/// How long the readiness probe waits for the database before calling it unreachable.
const READY_TIMEOUT: Duration = Duration::from_secs(2);

pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    match tokio::time::timeout(READY_TIMEOUT, state.control.db.ping()).await {
        Ok(Ok(())) => {
            let mut problems = state.control.cluster.shared.problems();
            problems.extend(state.auth.oidc.as_ref().and_then(|o| o.problem()));
            if problems.is_empty() {
                (StatusCode::OK, Json(json!({ "status": "ready" })))
            } else {
                unavailable(&problems.join("; "))
            }
        }
        Ok(Err(error)) => {
            tracing::warn!(%error, "readiness: database unreachable");
            unavailable("database unreachable")
        }
        Err(_) => {
            tracing::warn!("readiness: database did not answer in time");
            unavailable("database did not answer within 2 seconds")
        }
    }
}

/// Prometheus metrics (`crate::metrics`). Like the probes, open to the scraper without signing
/// in: it carries counts and project names, nothing of a workload's request.
pub async fn metrics(State(state): State<AppState>) -> axum::response::Response {
    use axum::response::IntoResponse;
    match state.control.metrics_text().await {
        Ok(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                crate::metrics::CONTENT_TYPE,
            )],
            text,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

fn unavailable(reason: &str) -> (StatusCode, Json<Value>) {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({ "status": "unavailable", "reason": reason })),
    )
}
