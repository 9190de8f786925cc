//! A workload's history, and the cluster's state
//! as the controller sees it (reachability, orphaned Jobs).

use super::error::{Forbidden, NotFound, Unauthorized};
use super::{Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
pub use crate::service::observe::ReconcilerView;
use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use tephra_core::model::workload::HistoryEntry;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/cluster", get(cluster_state))
}

/// Who submitted, suspended, resumed or deleted the workload, and every phase it went through,
/// oldest first. Deleted workloads keep their history.
#[utoipa::path(get, path = "/api/v1/workloads/{id}/history", tag = "trainings",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = [HistoryEntry]), Unauthorized, Forbidden, NotFound))]
pub async fn history(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<Vec<HistoryEntry>>, ApiError> {
    Ok(Json(services.workloads().history(&principal, &id).await?))
}

/// The cluster's state: reachability and orphaned Jobs. The API server's error and the
/// orphaned Jobs (every project's names) are for system administrators; others learn whether
/// the cluster answers.
#[utoipa::path(get, path = "/api/v1/cluster", tag = "cluster",
    responses((status = 200, body = ReconcilerView), Unauthorized))]
pub async fn cluster_state(
    State(services): State<Services>,
    Acting(principal): Acting,
) -> Json<ReconcilerView> {
    Json(services.observe().cluster_state(&principal))
}
