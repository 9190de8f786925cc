//! `/api/v1/workloads/generic`: generic jobs after T9k's GenericJob (seeds/004), with the same
//! submit, list, get, suspend, resume and delete as trainings. A job that starts paused
//! (`runMode.pause`) is stored suspended; resume runs it with its `resumeSpecs`.

use super::error::{BadRequest, Conflict, Failed, Forbidden, NotFound, Unauthorized};
use super::trainings::{act, fetch, list, submit};
use super::{Accepted, Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde::Serialize;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::action::Action;
use tephra_core::model::workload::{Workload, WorkloadQuery};

const GENERIC: WorkloadKind = WorkloadKind::Generic;

#[rustfmt::skip]
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/workloads/generic", post(submit_generic).get(list_generic))
        .route("/api/v1/workloads/generic/{id}", get(get_generic).delete(delete_generic))
        .route("/api/v1/workloads/generic/{id}/suspend", post(suspend_generic))
        .route("/api/v1/workloads/generic/{id}/resume", post(resume_generic))
}

/// A page of generic jobs.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct GenericPage {
    pub generic: Vec<Workload>,
    pub total: i64,
    pub next: Option<i64>,
}

/// Submit a generic job: replica types with their own specs, success and failure rules,
/// restart limits, run modes and a clean-up policy (T9k's GenericJob).
#[utoipa::path(post, path = "/api/v1/workloads/generic", tag = "generic",
    request_body(content = tephra_core::model::training::generic::GenericRequest, description = "A generic job: name, projectId and spec.replicaSpecs"),
    responses((status = 202, description = "Accepted: stored (suspended if it starts paused), the cluster follows", body = Workload),
        BadRequest, Unauthorized, Forbidden, Conflict, Failed))]
pub async fn submit_generic(
    State(services): State<Services>,
    Acting(p): Acting,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    submit(GENERIC, services, p, body).await
}

/// List generic jobs.
#[utoipa::path(get, path = "/api/v1/workloads/generic", tag = "generic", params(WorkloadQuery),
    responses((status = 200, body = GenericPage), BadRequest, Unauthorized, Forbidden))]
pub async fn list_generic(
    State(services): State<Services>,
    Acting(p): Acting,
    query: Result<Query<WorkloadQuery>, QueryRejection>,
) -> Result<Json<GenericPage>, ApiError> {
    let (generic, total, next) = list(GENERIC, services.workloads(), &p, query).await?;
    Ok(Json(GenericPage {
        generic,
        total,
        next,
    }))
}

/// A generic job with its live status.
#[utoipa::path(get, path = "/api/v1/workloads/generic/{id}", tag = "generic",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = Workload), Unauthorized, Forbidden, NotFound))]
pub async fn get_generic(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<Json<Workload>, ApiError> {
    fetch(GENERIC, services, p, id).await
}

/// Suspend a generic job: its Job and pods are deleted; storage and services stay.
#[utoipa::path(post, path = "/api/v1/workloads/generic/{id}/suspend", tag = "generic",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 202, body = Accepted), Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn suspend_generic(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    act(GENERIC, Action::Suspend, services, p, id).await
}

/// Resume a suspended or paused generic job: its Job is created from the stored request, with
/// `runMode.pause.resumeSpecs` applied.
#[utoipa::path(post, path = "/api/v1/workloads/generic/{id}/resume", tag = "generic",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 202, body = Accepted), Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn resume_generic(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    act(GENERIC, Action::Resume, services, p, id).await
}

/// Delete a generic job: the Job, its pods, PVCs and Services go; the row stays as history.
#[utoipa::path(delete, path = "/api/v1/workloads/generic/{id}", tag = "generic",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 202, body = Accepted), Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn delete_generic(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    act(GENERIC, Action::Delete, services, p, id).await
}
