//! Probes: `/healthz` says the process serves HTTP; `/readyz` says it can do its work (the database
//! answers, the controller and the watches run, the cluster's API server answers, the identity
//! provider has been discovered), so a load balancer
//! only sends traffic to replicas that can handle it and an operator sees what is wrong.

use super::AppState;
use crate::db::{DbAnswer, PROBE_TIMEOUT};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// Ready when the database answered within the last seconds (`db::Prober`: a background task
/// asks, so the probe does no I/O of its own while that answer is fresh), the cluster side has
/// no problem and the identity provider has been discovered.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    match state.services.observe().database_answers().await {
        DbAnswer::Answers => {
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
        DbAnswer::Fails(error) => {
            tracing::warn!(%error, "readiness: database unreachable");
            unavailable("database unreachable")
        }
        DbAnswer::Silent => {
            tracing::warn!("readiness: database did not answer in time");
            unavailable(&format!(
                "database did not answer within {} seconds",
                PROBE_TIMEOUT.as_secs()
            ))
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
