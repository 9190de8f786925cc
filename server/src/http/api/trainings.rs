//! `/api/v1/workloads/trainings` and `/api/v1/workloads/distributed`: submit, list, get, suspend,
//! resume and delete. Handlers write the row (and its history) and poke the controller; none of
//! them waits for the cluster.

use super::error::{BadRequest, Conflict, Failed, Forbidden, NotFound, Unauthorized};
use super::{Accepted, Acting, ApiError, ErrorBody};
use crate::http::AppState;
use crate::service::Services;
use crate::service::workloads::{Workloads, workload_response};
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
use tephra_core::model::fit::Fit;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::{Workload, WorkloadQuery};

// One route a line: the two kinds' routes read as the parallel table they are.
#[rustfmt::skip]
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/workloads/trainings", post(submit_training).get(list_trainings))
        .route("/api/v1/workloads/trainings/fit", post(fit_training))
        .route("/api/v1/workloads/trainings/{id}", get(get_training).delete(delete_training).patch(edit_training))
        .route("/api/v1/workloads/trainings/{id}/suspend", post(suspend_training))
        .route("/api/v1/workloads/trainings/{id}/resume", post(resume_training))
        .route("/api/v1/workloads/distributed", post(submit_distributed).get(list_distributed))
        .route("/api/v1/workloads/distributed/fit", post(fit_distributed))
        .route("/api/v1/workloads/distributed/{id}", get(get_distributed).delete(delete_distributed).patch(edit_distributed))
        .route("/api/v1/workloads/distributed/{id}/suspend", post(suspend_distributed))
        .route("/api/v1/workloads/distributed/{id}/resume", post(resume_distributed))
        .route("/api/v1/workloads/{id}/history", get(super::projects::history))
}

/// A page of trainings.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TrainingPage {
    pub trainings: Vec<Workload>,
    /// How many match the filters in all.
    pub total: i64,
    /// The offset of the next page; absent on the last one.
    pub next: Option<i64>,
}

/// A page of distributed trainings.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct DistributedPage {
    pub distributed: Vec<Workload>,
    pub total: i64,
    pub next: Option<i64>,
}

pub(super) async fn submit(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    let value: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("the body is not valid JSON: {e}")))?;
    let accepted = services.workloads().submit(kind, &principal, value).await?;
    Ok((StatusCode::ACCEPTED, Json(accepted.response())))
}

async fn fit(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    body: Bytes,
) -> Result<Json<Fit>, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("the body is not valid JSON: {e}")))?;
    Ok(Json(
        services.workloads().fit(kind, &principal, &value).await?,
    ))
}

/// Whether a training fits now: refused (with the fields), within quota, over quota
/// (preemptible), or waiting for GPUs. Stores nothing; a request that is not valid gets the
/// submit's 400.
#[utoipa::path(post, path = "/api/v1/workloads/trainings/fit", tag = "trainings",
    request_body(content = tephra_core::model::training::request::TrainingRequest, description = "A Run:ai training request"),
    responses((status = 200, body = Fit), BadRequest, Unauthorized, Forbidden))]
pub async fn fit_training(
    State(services): State<Services>,
    Acting(principal): Acting,
    body: Bytes,
) -> Result<Json<Fit>, ApiError> {
    fit(WorkloadKind::Training, services, principal, body).await
}

/// Whether a distributed training fits now (see the trainings' `fit`).
#[utoipa::path(post, path = "/api/v1/workloads/distributed/fit", tag = "distributed",
    request_body(content = tephra_core::model::training::distributed::DistributedRequest, description = "A Run:ai distributed training request"),
    responses((status = 200, body = Fit), BadRequest, Unauthorized, Forbidden))]
pub async fn fit_distributed(
    State(services): State<Services>,
    Acting(principal): Acting,
    body: Bytes,
) -> Result<Json<Fit>, ApiError> {
    fit(WorkloadKind::Distributed, services, principal, body).await
}

pub(super) async fn fetch(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    id: String,
) -> Result<Json<Workload>, ApiError> {
    let listing = services
        .workloads()
        .find(Some(kind), &principal, &id)
        .await?;
    Ok(Json(workload_response(&listing)))
}

pub(super) async fn act(
    kind: WorkloadKind,
    action: Action,
    services: Services,
    principal: Principal,
    id: String,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    services
        .workloads()
        .act(Some(kind), action, &principal, &id)
        .await?;
    Ok(Accepted::response())
}

pub(super) async fn list(
    kind: WorkloadKind,
    workloads: &Workloads,
    principal: &Principal,
    query: Result<Query<WorkloadQuery>, QueryRejection>,
) -> Result<(Vec<Workload>, i64, Option<i64>), ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))?;
    let page = workloads.list(Some(kind), principal, &query).await?;
    Ok((page.workloads, page.total, page.next))
}

/// Submit a training.
#[utoipa::path(post, path = "/api/v1/workloads/trainings", tag = "trainings",
    request_body(content = tephra_core::model::training::request::TrainingRequest, description = "A Run:ai training request"),
    responses((status = 202, description = "Accepted: stored, the cluster follows", body = Workload),
        (status = 400, description = "Bad submission request", body = ErrorBody), Unauthorized, Forbidden,
        (status = 409, description = "The name is taken in the project", body = ErrorBody), Failed))]
pub async fn submit_training(
    State(services): State<Services>,
    Acting(p): Acting,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    submit(WorkloadKind::Training, services, p, body).await
}

/// Submit a distributed training (PyTorch, MPI, TF, XGBoost).
#[utoipa::path(post, path = "/api/v1/workloads/distributed", tag = "distributed",
    request_body(content = tephra_core::model::training::distributed::DistributedRequest, description = "A Run:ai distributed training request: the training's spec plus distributedFramework, numWorkers and master"),
    responses((status = 202, body = Workload), BadRequest, Unauthorized, Forbidden, Conflict, Failed))]
pub async fn submit_distributed(
    State(services): State<Services>,
    Acting(p): Acting,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    submit(WorkloadKind::Distributed, services, p, body).await
}

/// List trainings.
#[utoipa::path(get, path = "/api/v1/workloads/trainings", tag = "trainings", params(WorkloadQuery),
    responses((status = 200, body = TrainingPage), BadRequest, Unauthorized, Forbidden))]
pub async fn list_trainings(
    State(services): State<Services>,
    Acting(p): Acting,
    query: Result<Query<WorkloadQuery>, QueryRejection>,
) -> Result<Json<TrainingPage>, ApiError> {
    let (trainings, total, next) =
        list(WorkloadKind::Training, services.workloads(), &p, query).await?;
    Ok(Json(TrainingPage {
        trainings,
        total,
        next,
    }))
}

/// List distributed trainings.
#[utoipa::path(get, path = "/api/v1/workloads/distributed", tag = "distributed", params(WorkloadQuery),
    responses((status = 200, body = DistributedPage), BadRequest, Unauthorized, Forbidden))]
pub async fn list_distributed(
    State(services): State<Services>,
    Acting(p): Acting,
    query: Result<Query<WorkloadQuery>, QueryRejection>,
) -> Result<Json<DistributedPage>, ApiError> {
    let (distributed, total, next) =
        list(WorkloadKind::Distributed, services.workloads(), &p, query).await?;
    Ok(Json(DistributedPage {
        distributed,
        total,
        next,
    }))
}

/// A training with its live status.
#[utoipa::path(get, path = "/api/v1/workloads/trainings/{id}", tag = "trainings",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = Workload), Unauthorized, Forbidden, NotFound))]
pub async fn get_training(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<Json<Workload>, ApiError> {
    fetch(WorkloadKind::Training, services, p, id).await
}

/// A distributed training with its live status.
#[utoipa::path(get, path = "/api/v1/workloads/distributed/{id}", tag = "distributed",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = Workload), Unauthorized, Forbidden, NotFound))]
pub async fn get_distributed(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<Json<Workload>, ApiError> {
    fetch(WorkloadKind::Distributed, services, p, id).await
}

async fn edit(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    id: String,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    let value: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("the body is not valid JSON: {e}")))?;
    let listing = services
        .workloads()
        .edit(Some(kind), &principal, &id, &value)
        .await?;
    Ok((StatusCode::ACCEPTED, Json(workload_response(&listing))))
}

/// Change a running training's priority class; the cluster follows (seed 001). Anything else is
/// refused by field: clone and resubmit.
#[utoipa::path(patch, path = "/api/v1/workloads/trainings/{id}", tag = "trainings",
    params(("id" = String, Path, description = "The workloadId")),
    request_body(content = tephra_core::model::edit::Edit, description = "The fields to change: priorityClass"),
    responses((status = 202, description = "Accepted: stored, the cluster follows", body = Workload),
        BadRequest, Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn edit_training(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    edit(WorkloadKind::Training, services, p, id, body).await
}

/// Scale a running distributed training (numWorkers, minReplicas) or change its priority class;
/// Volcano adds or removes workers and resizes the gang (seed 001). Anything else is refused by
/// field: clone and resubmit.
#[utoipa::path(patch, path = "/api/v1/workloads/distributed/{id}", tag = "distributed",
    params(("id" = String, Path, description = "The workloadId")),
    request_body(content = tephra_core::model::edit::Edit, description = "The fields to change: numWorkers, minReplicas, priorityClass"),
    responses((status = 202, description = "Accepted: stored, the cluster follows", body = Workload),
        BadRequest, Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn edit_distributed(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    edit(WorkloadKind::Distributed, services, p, id, body).await
}

macro_rules! action_handlers {
    ($($name:ident, $kind:expr, $action:expr, $path:literal, $tag:literal, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[utoipa::path(post, path = $path, tag = $tag,
            params(("id" = String, Path, description = "The workloadId")),
            responses((status = 202, body = Accepted), Unauthorized, Forbidden, NotFound, (status = 409, description = "Not allowed in the current phase", body = ErrorBody)))]
        pub async fn $name(
            State(services): State<Services>,
            Acting(p): Acting,
            Path(id): Path<String>,
        ) -> Result<(StatusCode, Json<Accepted>), ApiError> {
            act($kind, $action, services, p, id).await
        }
    )*};
}

action_handlers! {
    suspend_training, WorkloadKind::Training, Action::Suspend, "/api/v1/workloads/trainings/{id}/suspend", "trainings",
        "Suspend a training: its Job and pods are deleted; storage and services stay.";
    resume_training, WorkloadKind::Training, Action::Resume, "/api/v1/workloads/trainings/{id}/resume", "trainings",
        "Resume a suspended training: its Job is created again from the stored request.";
    suspend_distributed, WorkloadKind::Distributed, Action::Suspend, "/api/v1/workloads/distributed/{id}/suspend", "distributed",
        "Suspend a distributed training.";
    resume_distributed, WorkloadKind::Distributed, Action::Resume, "/api/v1/workloads/distributed/{id}/resume", "distributed",
        "Resume a suspended distributed training.";
}

/// Delete a training: the Job, its pods, PVCs and Services go; the row stays as history.
#[utoipa::path(delete, path = "/api/v1/workloads/trainings/{id}", tag = "trainings",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 202, body = Accepted), Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn delete_training(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    act(WorkloadKind::Training, Action::Delete, services, p, id).await
}

/// Delete a distributed training.
#[utoipa::path(delete, path = "/api/v1/workloads/distributed/{id}", tag = "distributed",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 202, body = Accepted), Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn delete_distributed(
    State(services): State<Services>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    act(WorkloadKind::Distributed, Action::Delete, services, p, id).await
}
