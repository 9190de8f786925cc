//! Probes: `/healthz` says the process serves HTTP; `/readyz` says it can do its work (the database
//! answers, the controller and the watches run, the cluster's API server answers, the identity
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
    match tokio::time::timeout(READY_TIMEOUT, state.services.observe().database_answers()).await {
        Ok(Ok(())) => {
            // The probe answers anyone who reaches it: it says which part is down, and the
            // log says why (addresses, the issuer, the API server's errors), for operators only.
            let mut down = Vec::new();
            let cluster = state.services.observe().cluster_problems();
            if !cluster.is_empty() {
                tracing::warn!(problems = ?cluster, "readiness: the cluster is not ready");
                down.push("the cluster is not ready");
            }
            if let Some(problem) = state
                .services
                .auth()
                .oidc
                .as_ref()
                .and_then(|o| o.problem())
            {
                tracing::warn!(%problem, "readiness: the identity provider");
                down.push("the identity provider has not been discovered");
            }
            if down.is_empty() {
                (StatusCode::OK, Json(json!({ "status": "ready" })))
            } else {
                unavailable(&down.join("; "))
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

/// Prometheus metrics (`crate::metrics`): project names and counts, so only for the scraper's
/// token or a system administrator (`Authenticator::may_scrape`).
pub async fn metrics(
    State(state): State<AppState>,
    parts: axum::http::request::Parts,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Err(refused) = state.services.auth().may_scrape(&parts).await {
        return super::api::ApiError::from(refused).into_response();
    }
    match state.services.observe().metrics_text().await {
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
