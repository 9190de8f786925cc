//! `/api/v1/workloads/trainings` and `/api/v1/workloads/distributed`: submit, list, get, suspend,
//! resume and delete. Handlers write the row (and its history) and poke the controller; none of
//! them waits for the cluster.

use super::error::{BadRequest, Conflict, Failed, Forbidden, NotFound, Unauthorized};
use super::per_kind::{self, json_body, submit};
use super::{Acting, ApiError, ErrorBody};
use crate::http::AppState;
use crate::service::Services;
use crate::service::workloads::workload_response;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::action::Action;
use tephra_core::model::fit::Fit;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::Workload;

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

async fn edit(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    id: String,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    let value = json_body(&body)?;
    let listing = services
        .workloads()
        .edit(Some(kind), &principal, &id, &value)
        .await?;
    Ok((StatusCode::ACCEPTED, Json(workload_response(&listing))))
}

/// A kind's submit, fit and edit handlers: the same code, with the kind's request type and words
/// in the OpenAPI document.
macro_rules! training_writes {
    ($($kind:expr, $tag:literal, $request:ty, $what:literal, $path:literal, $fit_path:literal,
       $item_path:literal, [$submit:ident, $submit_doc:literal], [$fit:ident, $fit_doc:literal],
       [$edit:ident, $edit_doc:literal, $edit_fields:literal];)*) => {$(
        #[doc = $submit_doc]
        #[utoipa::path(post, path = $path, tag = $tag,
            request_body(content = $request, description = $what),
            responses((status = 202, description = "Accepted: stored, the cluster follows", body = Workload),
                (status = 400, description = "Bad submission request", body = ErrorBody), Unauthorized, Forbidden,
                (status = 409, description = "The name is taken in the project", body = ErrorBody), Failed))]
        pub async fn $submit(
            State(services): State<Services>,
            Acting(p): Acting,
            body: Bytes,
        ) -> Result<(StatusCode, Json<Workload>), ApiError> {
            submit($kind, services, p, body).await
        }

        #[doc = $fit_doc]
        #[utoipa::path(post, path = $fit_path, tag = $tag,
            request_body(content = $request, description = $what),
            responses((status = 200, body = Fit), BadRequest, Unauthorized, Forbidden))]
        pub async fn $fit(
            State(services): State<Services>,
            Acting(principal): Acting,
            body: Bytes,
        ) -> Result<Json<Fit>, ApiError> {
            let value = json_body(&body)?;
            Ok(Json(services.workloads().fit($kind, &principal, &value).await?))
        }

        #[doc = $edit_doc]
        #[utoipa::path(patch, path = $item_path, tag = $tag,
            params(("id" = String, Path, description = "The workloadId")),
            request_body(content = tephra_core::model::edit::Edit, description = $edit_fields),
            responses((status = 202, description = "Accepted: stored, the cluster follows", body = Workload),
                BadRequest, Unauthorized, Forbidden, NotFound, Conflict))]
        pub async fn $edit(
            State(services): State<Services>,
            Acting(p): Acting,
            Path(id): Path<String>,
            body: Bytes,
        ) -> Result<(StatusCode, Json<Workload>), ApiError> {
            edit($kind, services, p, id, body).await
        }
    )*};
}

training_writes! {
    WorkloadKind::Training, "trainings", tephra_core::model::training::request::TrainingRequest,
        "A Run:ai training request", "/api/v1/workloads/trainings",
        "/api/v1/workloads/trainings/fit", "/api/v1/workloads/trainings/{id}",
        [submit_training, "Submit a training."],
        [fit_training, "Whether a training fits now: refused (with the fields), within quota, over quota (preemptible), or waiting for GPUs. Stores nothing; a request that is not valid gets the submit's 400."],
        [edit_training, "Change a running training's priority class; the cluster follows (seed 001). Anything else is refused by field: clone and resubmit.",
            "The fields to change: priorityClass"];
    WorkloadKind::Distributed, "distributed", tephra_core::model::training::distributed::DistributedRequest,
        "A Run:ai distributed training request: the training's spec plus distributedFramework, numWorkers and master",
        "/api/v1/workloads/distributed", "/api/v1/workloads/distributed/fit",
        "/api/v1/workloads/distributed/{id}",
        [submit_distributed, "Submit a distributed training (PyTorch, MPI, TF, XGBoost)."],
        [fit_distributed, "Whether a distributed training fits now (see the trainings' `fit`)."],
        [edit_distributed, "Scale a running distributed training (numWorkers, minReplicas) or change its priority class; Volcano adds or removes workers and resizes the gang (seed 001). Anything else is refused by field: clone and resubmit.",
            "The fields to change: numWorkers, minReplicas, priorityClass"];
}

per_kind::workload_reads! {
    list_trainings, get_training, delete_training, TrainingPage, trainings, WorkloadKind::Training,
        "/api/v1/workloads/trainings", "/api/v1/workloads/trainings/{id}", "trainings",
        "A page of trainings.", "List trainings.", "A training with its live status.",
        "Delete a training: the Job, its pods, PVCs and Services go; the row stays as history.";
    list_distributed, get_distributed, delete_distributed, DistributedPage, distributed, WorkloadKind::Distributed,
        "/api/v1/workloads/distributed", "/api/v1/workloads/distributed/{id}", "distributed",
        "A page of distributed trainings.", "List distributed trainings.",
        "A distributed training with its live status.", "Delete a distributed training.";
}

per_kind::action_handlers! {
    suspend_training, WorkloadKind::Training, Action::Suspend, post, "/api/v1/workloads/trainings/{id}/suspend", "trainings",
        "Suspend a training: its Job and pods are deleted; storage and services stay.";
    resume_training, WorkloadKind::Training, Action::Resume, post, "/api/v1/workloads/trainings/{id}/resume", "trainings",
        "Resume a suspended training: its Job is created again from the stored request.";
    suspend_distributed, WorkloadKind::Distributed, Action::Suspend, post, "/api/v1/workloads/distributed/{id}/suspend", "distributed",
        "Suspend a distributed training.";
    resume_distributed, WorkloadKind::Distributed, Action::Resume, post, "/api/v1/workloads/distributed/{id}/resume", "distributed",
        "Resume a suspended distributed training.";
}
