//! Server functions: the UI's reads and writes. Each one resolves the acting principal, calls the
//! backend and returns its answer; nothing else happens here. Endpoints are named explicitly so
//! their URLs (`/api/fn/<name>`) stay stable across builds.

use crate::draft::Draft;
use crate::error::AppError;
use codec::JsonAnswer;
use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use tephra_core::model::access::{ApplicationView, AuditPage, AuditQuery, CreatedApplication};
use tephra_core::model::action::Action;
use tephra_core::model::workload::{Workload, WorkloadDetail, WorkloadPage, WorkloadQuery};
use tephra_core::model::{
    overview::Overview, principal::Principal, project::ProjectSummary, system::SystemInfo,
};

pub mod codec;
mod form;
mod members;
mod org;
pub use form::*;
pub use members::*;
pub use org::*;

#[server(prefix = "/api/fn", endpoint = "get_me", output = JsonAnswer)]
pub async fn get_me() -> Result<Principal, AppError> {
    let (_, principal) = crate::backend::acting().await?;
    Ok(principal)
}

#[server(prefix = "/api/fn", endpoint = "get_overview", output = JsonAnswer)]
pub async fn get_overview() -> Result<Overview, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.overview(&principal).await
}

#[server(prefix = "/api/fn", endpoint = "list_workloads", input = Json, output = JsonAnswer)]
pub async fn list_workloads(query: WorkloadQuery) -> Result<WorkloadPage, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.list_workloads(&principal, &query).await
}

#[server(prefix = "/api/fn", endpoint = "get_workload", input = Json, output = JsonAnswer)]
pub async fn get_workload(id: String) -> Result<WorkloadDetail, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.workload_detail(&principal, &id).await
}

/// One workload's GPU use per pod over the last half hour.
#[server(prefix = "/api/fn", endpoint = "get_gpu_use", input = Json, output = JsonAnswer)]
pub async fn get_gpu_use(id: String) -> Result<tephra_core::model::gpu_use::GpuUse, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.gpu_use(&principal, &id).await
}

/// The stored request of a workload, as a draft for the form ("Clone").
#[server(prefix = "/api/fn", endpoint = "clone_workload", input = Json, output = JsonAnswer)]
pub async fn clone_workload(id: String) -> Result<Draft, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    let detail = backend.workload_detail(&principal, &id).await?;
    Ok(Draft::from_stored(&detail.workload.request()))
}

#[server(prefix = "/api/fn", endpoint = "preview_training", input = Json, output = JsonAnswer)]
pub async fn preview_training(draft: Draft) -> Result<String, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend
        .preview_workload(&principal, draft.kind(), draft.to_request())
        .await
}

/// Whether the draft would fit if submitted now: within quota, over quota, waiting, or refused.
#[server(prefix = "/api/fn", endpoint = "fit_training", input = Json, output = JsonAnswer)]
pub async fn fit_training(draft: Draft) -> Result<tephra_core::model::fit::FitShown, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend
        .fit_workload(&principal, draft.kind(), draft.to_request())
        .await
        .map(tephra_core::model::fit::FitShown::of)
}

/// Answers with only what the form needs to go on (the new training's id and name): decoding
/// a whole [`Workload`] would put the workload types in the form's chunk.
#[server(prefix = "/api/fn", endpoint = "submit_training", input = Json, output = JsonAnswer)]
pub async fn submit_training(draft: Draft) -> Result<Submitted, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    let workload = backend
        .submit_workload(&principal, draft.kind(), draft.to_request())
        .await?;
    Ok(Submitted {
        workload_id: workload.workload_id,
        name: workload.name,
    })
}

/// A training the form submitted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Submitted {
    pub workload_id: String,
    pub name: String,
}

#[server(prefix = "/api/fn", endpoint = "act_on_workload", input = Json, output = JsonAnswer)]
pub async fn act_on_workload(id: String, action: Action) -> Result<Workload, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.act_on_workload(&principal, &id, action).await
}

#[server(prefix = "/api/fn", endpoint = "edit_workload", input = Json, output = JsonAnswer)]
pub async fn edit_workload(
    id: String,
    edit: tephra_core::model::edit::Edit,
) -> Result<Workload, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.edit_workload(&principal, &id, &edit).await
}

#[server(prefix = "/api/fn", endpoint = "list_projects", output = JsonAnswer)]
pub async fn list_projects() -> Result<Vec<ProjectSummary>, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.list_projects(&principal).await
}

#[server(prefix = "/api/fn", endpoint = "project_usage", output = JsonAnswer)]
pub async fn project_usage(
    project: String,
) -> Result<tephra_core::model::project::ProjectUsage, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.project_usage(&principal, &project).await
}

/// The policies a training in `project` is checked against, for the form to show and check.
#[server(prefix = "/api/fn", endpoint = "form_policy", input = Json, output = JsonAnswer)]
pub async fn form_policy(
    project: String,
) -> Result<tephra_core::model::policy::FormHints, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    let policy = backend.form_policy(&principal, &project).await?;
    Ok(tephra_core::model::policy::FormHints::of(&policy))
}

#[server(prefix = "/api/fn", endpoint = "get_system_info", output = JsonAnswer)]
pub async fn get_system_info() -> Result<SystemInfo, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.system_info(&principal).await
}

#[server(prefix = "/api/fn", endpoint = "list_applications", output = JsonAnswer)]
pub async fn list_applications() -> Result<Vec<ApplicationView>, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.list_applications(&principal).await
}

/// Creates an application with at most one role, `role_id` on `project` (none when `project` is
/// empty), as the Applications page's form sends it.
#[server(prefix = "/api/fn", endpoint = "create_application", output = JsonAnswer)]
pub async fn create_application(
    name: String,
    role_id: i64,
    project: String,
    expires_days: Option<i64>,
) -> Result<CreatedApplication, AppError> {
    use tephra_core::model::access::{AppRole, NewApplication};
    let (backend, principal) = crate::backend::acting().await?;
    let roles = if project.is_empty() {
        Vec::new()
    } else {
        vec![AppRole {
            role_id,
            scope_type: "project".into(),
            scope_id: project,
        }]
    };
    backend
        .create_application(
            &principal,
            &NewApplication {
                name,
                roles,
                expires_at: expires_days.map(days_ahead),
                ..NewApplication::default()
            },
        )
        .await
}

/// RFC 3339 for `days` from now, as the Applications page's "expires in" choice sends it.
#[cfg(feature = "ssr")]
fn days_ahead(days: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A new secret for an application, expiring `expires_days` from now (90 when left out).
#[server(prefix = "/api/fn", endpoint = "rotate_application_secret", output = JsonAnswer)]
pub async fn rotate_application_secret(
    id: String,
    expires_days: Option<i64>,
) -> Result<CreatedApplication, AppError> {
    use tephra_core::model::access::NewAppSecret;
    let (backend, principal) = crate::backend::acting().await?;
    let new = NewAppSecret {
        expires_at: expires_days.map(days_ahead),
    };
    backend
        .rotate_application_secret(&principal, &id, &new)
        .await
}

#[server(prefix = "/api/fn", endpoint = "revoke_application", output = JsonAnswer)]
pub async fn revoke_application(id: String) -> Result<ApplicationView, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.revoke_application(&principal, &id).await
}

#[server(prefix = "/api/fn", endpoint = "get_audit", input = Json, output = JsonAnswer)]
pub async fn get_audit(query: AuditQuery) -> Result<AuditPage, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.audit(&principal, &query).await
}
