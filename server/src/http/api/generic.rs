//! `/api/v1/workloads/generic`: generic jobs after T9k's GenericJob (seeds/004), with the same
//! submit, list, get, suspend, resume and delete as trainings. A job that starts paused
//! (`runMode.pause`) is stored suspended; resume runs it with its `resumeSpecs`.

use super::error::{BadRequest, Conflict, Failed, Forbidden, Unauthorized};
use super::per_kind::{self, submit};
use super::{Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::action::Action;
use tephra_core::model::workload::Workload;

const GENERIC: WorkloadKind = WorkloadKind::Generic;

#[rustfmt::skip]
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/workloads/generic", post(submit_generic).get(list_generic))
        .route("/api/v1/workloads/generic/{id}", get(get_generic).delete(delete_generic))
        .route("/api/v1/workloads/generic/{id}/suspend", post(suspend_generic))
        .route("/api/v1/workloads/generic/{id}/resume", post(resume_generic))
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

per_kind::workload_reads! {
    list_generic, get_generic, delete_generic, GenericPage, generic, GENERIC,
        "/api/v1/workloads/generic", "/api/v1/workloads/generic/{id}", "generic",
        "A page of generic jobs.", "List generic jobs.", "A generic job with its live status.",
        "Delete a generic job: the Job, its pods, PVCs and Services go; the row stays as history.";
}

per_kind::action_handlers! {
    suspend_generic, GENERIC, Action::Suspend, post, "/api/v1/workloads/generic/{id}/suspend", "generic",
        "Suspend a generic job: its Job and pods are deleted; storage and services stay.";
    resume_generic, GENERIC, Action::Resume, post, "/api/v1/workloads/generic/{id}/resume", "generic",
        "Resume a suspended or paused generic job: its Job is created from the stored request, with `runMode.pause.resumeSpecs` applied.";
}
