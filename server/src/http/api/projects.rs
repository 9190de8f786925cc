//! A workload's history, and the cluster's state
//! as the reconciler sees it (reachability, orphaned Jobs).

use super::error::{Forbidden, NotFound, Unauthorized};
use super::{Acting, ApiError};
use crate::cluster::Orphan;
use crate::http::AppState;
use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use serde::Serialize;
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
    State(state): State<AppState>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<Vec<HistoryEntry>>, ApiError> {
    Ok(Json(state.control.history(&principal, &id).await?))
}

/// The cluster as the reconciler sees it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterState {
    pub id: String,
    /// Whether Tephra has a cluster configured at all.
    pub configured: bool,
    /// The last error talking to the API server, if the last attempt failed.
    pub last_error: Option<String>,
    /// Volcano Jobs with Tephra's labels in project namespaces that no workload owns.
    pub orphans: Vec<Orphan>,
}

/// The cluster's state: reachability and orphaned Jobs. The API server's error and the
/// orphaned Jobs (every project's names) are for system administrators; others learn whether
/// the cluster answers.
#[utoipa::path(get, path = "/api/v1/cluster", tag = "cluster",
    responses((status = 200, body = ClusterState), Unauthorized))]
pub async fn cluster_state(
    State(state): State<AppState>,
    Acting(principal): Acting,
) -> Json<ClusterState> {
    let admin = crate::access::require_system(
        &principal,
        tephra_core::domain::authz::Permission::ManageSystem,
    )
    .is_ok();
    let shared = &state.control.cluster.shared;
    let last_error = shared
        .last_error
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let orphans = if admin {
        shared
            .orphans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    } else {
        Vec::new()
    };
    Json(ClusterState {
        id: state.control.cluster.id.clone(),
        configured: state.control.cluster.is_configured(),
        last_error: last_error.map(|error| {
            if admin {
                error
            } else {
                "the cluster's API server does not answer; system administrators see why".into()
            }
        }),
        orphans,
    })
}
