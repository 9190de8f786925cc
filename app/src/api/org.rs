//! Server functions of the organisation page: departments and projects with their GPU quota in
//! a node pool, and policies per scope with a preview of what the form will show.

use super::codec::JsonAnswer;
use crate::error::AppError;
use leptos::prelude::*;
use tephra_core::model::org::{Department, Organisation, Project};
use tephra_core::model::org_form::QuotaFields;
use tephra_core::model::policy::{PolicyField, PolicyKind};

#[server(prefix = "/api/fn", endpoint = "get_organisation", output = JsonAnswer)]
pub async fn get_organisation() -> Result<Organisation, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.organisation(&principal).await
}

/// Creates the department `name`, or sets its GPU share in `pool` if it exists.
#[server(prefix = "/api/fn", endpoint = "save_department", output = JsonAnswer)]
pub async fn save_department(name: String, quota: QuotaFields) -> Result<Department, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.save_department(&principal, &name, quota).await
}

/// Creates the project `name` in `department`, or sets its GPU share in `pool` if it exists;
/// either way sets its idle-GPU timeout to `idle_minutes` (empty: none).
#[server(prefix = "/api/fn", endpoint = "save_project", output = JsonAnswer)]
pub async fn save_project(
    name: String,
    department: String,
    quota: QuotaFields,
    idle_minutes: String,
) -> Result<Project, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend
        .save_project(&principal, &name, &department, quota, &idle_minutes)
        .await
}

#[server(prefix = "/api/fn", endpoint = "delete_project", output = JsonAnswer)]
pub async fn delete_project(name: String) -> Result<(), AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.delete_project(&principal, &name).await
}

/// One scope's own policy as JSON text (`{}` when it has none): `scope` is `system`,
/// `department` or `project`, `id` the department's or project's id or name.
#[server(prefix = "/api/fn", endpoint = "get_policy_text", output = JsonAnswer)]
pub async fn get_policy_text(
    scope: String,
    id: String,
    kind: PolicyKind,
) -> Result<String, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.policy_text(&principal, &scope, &id, kind).await
}

/// Checks `body` as `scope`'s policy (it parses, narrows the outer scopes, its defaults keep
/// the rules) and answers what the form would show with it; `save` also stores it.
#[server(prefix = "/api/fn", endpoint = "try_policy", output = JsonAnswer)]
pub async fn try_policy(
    scope: String,
    id: String,
    kind: PolicyKind,
    body: String,
    save: bool,
) -> Result<Vec<PolicyField>, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend
        .try_policy(&principal, &scope, &id, kind, &body, save)
        .await
}
