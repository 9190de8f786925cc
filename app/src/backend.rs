//! The port server functions call through (hexagonal style): `app` declares it, `server`
//! implements it. This keeps SQL, Kubernetes and authentication out of the UI crate and avoids a
//! dependency cycle between `app` and `server`.

use crate::error::AppError;
use std::sync::Arc;
use tephra_core::model::access::{
    ApplicationView, AuditPage, AuditQuery, CreatedApplication, NewAppSecret, NewApplication,
};
use tephra_core::model::action::Action;
use tephra_core::model::kind::WorkloadKind;
use tephra_core::model::org::{Department, Organisation, Project};
use tephra_core::model::org_form::QuotaFields;
use tephra_core::model::policy::{PolicyField, PolicyKind};
use tephra_core::model::workload::{Workload, WorkloadDetail, WorkloadPage, WorkloadQuery};
use tephra_core::model::{
    overview::Overview, principal::Principal, project::ProjectSummary, system::SystemInfo,
};

#[async_trait::async_trait]
pub trait Backend: Send + Sync + 'static {
    /// Resolves who sent the request (session cookie or bearer token); fails with
    /// [`AppError::Unauthorized`] when nobody is signed in.
    async fn authenticate(&self, request: &http::request::Parts) -> Result<Principal, AppError>;

    async fn overview(&self, principal: &Principal) -> Result<Overview, AppError>;

    /// A page of the workloads (trainings and distributed trainings) the principal may see.
    async fn list_workloads(
        &self,
        principal: &Principal,
        query: &WorkloadQuery,
    ) -> Result<WorkloadPage, AppError>;

    /// One workload's GPU use per pod over the last half hour, from Prometheus.
    async fn gpu_use(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<tephra_core::model::gpu_use::GpuUse, AppError>;

    /// One workload with its history and rendered Job.
    async fn workload_detail(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadDetail, AppError>;

    /// Stores a workload of `kind` (as [`Draft::kind`](crate::draft::Draft::kind) says)
    /// exactly as the REST API would.
    async fn submit_workload(
        &self,
        principal: &Principal,
        kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Result<Workload, AppError>;

    /// The YAML the request would be created as, after the same checks as a submit.
    async fn preview_workload(
        &self,
        principal: &Principal,
        kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Result<String, AppError>;

    /// Suspends, resumes or deletes; answers with the workload's new state.
    /// Whether a request would fit now, without storing anything.
    async fn fit_workload(
        &self,
        principal: &Principal,
        kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Result<tephra_core::model::fit::Fit, AppError>;

    async fn act_on_workload(
        &self,
        principal: &Principal,
        id: &str,
        action: Action,
    ) -> Result<Workload, AppError>;

    /// Changes what Volcano lets change on a running training (seed 001).
    async fn edit_workload(
        &self,
        principal: &Principal,
        id: &str,
        edit: &tephra_core::model::edit::Edit,
    ) -> Result<Workload, AppError>;

    /// Projects the principal may see, by name.
    async fn list_projects(&self, principal: &Principal) -> Result<Vec<ProjectSummary>, AppError>;

    /// A project's use per resource, node pool and user (`project`: an id or a name).
    async fn project_usage(
        &self,
        principal: &Principal,
        project: &str,
    ) -> Result<tephra_core::model::project::ProjectUsage, AppError>;

    /// The policies a training in `project` (an id or a name) is checked against.
    async fn form_policy(
        &self,
        principal: &Principal,
        project: &str,
    ) -> Result<tephra_core::model::policy::FormPolicy, AppError>;

    async fn system_info(&self, principal: &Principal) -> Result<SystemInfo, AppError>;

    /// Departments and projects the principal may read.
    async fn organisation(&self, principal: &Principal) -> Result<Organisation, AppError>;

    /// Creates department `name`, or sets its GPU share in the pool `quota` names.
    async fn save_department(
        &self,
        principal: &Principal,
        name: &str,
        quota: QuotaFields,
    ) -> Result<Department, AppError>;

    /// Creates project `name` in `department`, or sets its GPU share in the pool `quota` names;
    /// either way sets its idle-GPU timeout to `idle_minutes` (empty: none).
    async fn save_project(
        &self,
        principal: &Principal,
        name: &str,
        department: &str,
        quota: QuotaFields,
        idle_minutes: &str,
    ) -> Result<Project, AppError>;

    async fn delete_project(&self, principal: &Principal, name: &str) -> Result<(), AppError>;

    /// Adds an access rule (a member of a project, or of the system).
    async fn add_member(
        &self,
        principal: &Principal,
        rule: &tephra_core::model::access::NewAccessRule,
    ) -> Result<tephra_core::model::access::AccessRuleView, AppError>;

    async fn remove_member(&self, principal: &Principal, id: i64) -> Result<(), AppError>;

    /// One scope's own policy as JSON text.
    async fn policy_text(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
    ) -> Result<String, AppError>;

    /// Checks `body` as a scope's policy and answers the form's view of it; stores it if `save`.
    async fn try_policy(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
        body: &str,
        save: bool,
    ) -> Result<Vec<PolicyField>, AppError>;

    /// The principal's applications (everyone's for a system administrator).
    async fn list_applications(
        &self,
        principal: &Principal,
    ) -> Result<Vec<ApplicationView>, AppError>;

    /// Creates an application; the answer carries its secret, the only time it is shown.
    async fn create_application(
        &self,
        principal: &Principal,
        new: &NewApplication,
    ) -> Result<CreatedApplication, AppError>;

    async fn revoke_application(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<ApplicationView, AppError>;

    /// A new secret for the application; the old one and its tokens stop working.
    async fn rotate_application_secret(
        &self,
        principal: &Principal,
        id: &str,
        new: &NewAppSecret,
    ) -> Result<CreatedApplication, AppError>;

    /// The audit trail, for system administrators.
    async fn audit(&self, principal: &Principal, query: &AuditQuery)
    -> Result<AuditPage, AppError>;
}

/// How the backend is provided to server functions as Leptos context.
pub type SharedBackend = Arc<dyn Backend>;

/// The backend and the principal of the current request, for the first line of a server function.
pub async fn acting() -> Result<(SharedBackend, Principal), AppError> {
    let backend = leptos::prelude::use_context::<SharedBackend>().ok_or_else(|| {
        leptos::logging::error!("server function called without a Backend in context");
        AppError::Internal
    })?;
    let parts: http::request::Parts = leptos_axum::extract()
        .await
        .map_err(|e| AppError::Transport(e.to_string()))?;
    let principal = backend.authenticate(&parts).await?;
    Ok((backend, principal))
}
