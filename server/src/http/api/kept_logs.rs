//! `GET /api/v1/workloads/{id}/kept-logs`: the last lines of a failing training's container logs
//! that Tephra kept, with what they hint at (NVIDIA Xid lines, NCCL errors, CUDA out of memory),
//! readable after its pods are gone; by whoever may read the workload's logs.

use super::error::{NotFound, Unauthorized};
use super::{Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use tephra_core::model::kept::KeptLog;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/workloads/{id}/kept-logs", get(kept_logs))
}

/// What was kept, by pod and container; empty when nothing failed (or the retention passed).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct KeptLogs {
    pub logs: Vec<KeptLog>,
}

/// The kept last lines of a failing training's logs.
#[utoipa::path(get, path = "/api/v1/workloads/{id}/kept-logs", tag = "workloads",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = KeptLogs), Unauthorized, NotFound))]
pub async fn kept_logs(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<KeptLogs>, ApiError> {
    let logs = services.workloads().kept_logs(&principal, &id).await?;
    Ok(Json(KeptLogs { logs }))
}
