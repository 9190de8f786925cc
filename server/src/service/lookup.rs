//! Lookups more than one noun makes, as free functions over the database, so no noun reaches
//! into another: a project by the key a request names, the projects a principal holds a
//! permission in, and the policy layers a project's requests are checked against.

use crate::authorize;
use crate::db::projects::{Project, ProjectWithCounts};
use crate::db::{Database, DbError};
use app::error::AppError;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::policy::{Policy, PolicyKind};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::principal::Principal;
use uuid::Uuid;

/// The acting user's id, for the audit trail and ownership; applications have a user row too.
pub(super) fn actor(principal: &Principal) -> Option<Uuid> {
    principal.user_id.parse().ok()
}

/// Finds a project by id (Run:ai's integer, or the UUID) or name, as requests name them; the error names the request
/// field that held `key`.
pub(super) async fn project_by_key(
    db: &Database,
    key: &str,
    field: &str,
) -> Result<Project, AppError> {
    match db.projects().by_key(key).await {
        Ok(project) => Ok(project),
        Err(DbError::NotFound) => Err(AppError::field(
            field,
            format!(
                "no project has the id or name {key:?}; GET /api/v1/org-unit/projects lists them"
            ),
        )),
        Err(e) => Err(e.into()),
    }
}

/// The refusal of a rule or policy whose project or department was deleted after the request
/// named it (the store found it gone under its lock).
pub(super) fn scope_gone(scope: &tephra_core::domain::authz::Scope) -> AppError {
    AppError::NotFound(format!(
        "{} was deleted meanwhile; nothing was stored",
        tephra_core::domain::authz::describe(scope)
    ))
}

/// The ids and names of the projects where the principal holds `permission`: what a list or an
/// event stream limited to them needs, without counting anyone's workloads.
pub(super) async fn project_names_where(
    db: &Database,
    principal: &Principal,
    permission: Permission,
) -> Result<Vec<(Uuid, String)>, AppError> {
    let reach = authorize::reach(principal, permission);
    let projects = db.projects().names().await?;
    Ok(projects
        .into_iter()
        .filter(|(id, _, department)| {
            reach.includes(&id.to_string(), Some(&department.to_string()))
        })
        .map(|(id, name, _)| (id, name))
        .collect())
}

/// The projects where the principal holds `permission`.
pub(super) async fn projects_where(
    db: &Database,
    principal: &Principal,
    permission: Permission,
) -> Result<Vec<ProjectWithCounts>, AppError> {
    let reach = authorize::reach(principal, permission);
    let projects = db.projects().list().await?;
    Ok(projects
        .into_iter()
        .filter(|p| {
            reach.includes(
                &p.project.id.to_string(),
                Some(&p.project.department_id.to_string()),
            )
        })
        .collect())
}

/// The layers a workload of `kind` in `project` is checked against, outermost first; the
/// project as already read, not again by its key.
pub(super) async fn policy_layers(
    db: &Database,
    project: &Project,
    kind: WorkloadKind,
) -> Result<Vec<Policy>, AppError> {
    Ok(db
        .policies()
        .layers_of_project(project)
        .await?
        .take(PolicyKind::of(kind)))
}
