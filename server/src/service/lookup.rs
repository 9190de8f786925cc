//! Lookups more than one noun makes, as free functions over the database, so no noun reaches
//! into another: a project by the key a request names, the projects a principal holds a
//! permission in, and the policy layers a project's requests are checked against.

use crate::authorize;
use crate::db::departments::Department;
use crate::db::projects::{Project, ProjectWithCounts};
use crate::db::{Database, DbError};
use app::error::AppError;
use tephra_core::domain::authz::{Permission, Scope};
use tephra_core::domain::policy::{Policy, PolicyKind};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::principal::Principal;
use uuid::Uuid;

/// The acting user's id, for the audit trail and ownership; applications have a user row too.
pub(super) fn actor(principal: &Principal) -> Option<Uuid> {
    principal.user_id.parse().ok()
}

/// The project `key` names (Run:ai's integer, the UUID or the name) if the principal holds
/// anything in it; `None` when there is none or it is a stranger's, which answer alike so a
/// stranger cannot probe which names and ids are taken.
pub(super) async fn seen_project(
    db: &Database,
    principal: &Principal,
    key: &str,
) -> Result<Option<Project>, AppError> {
    match db.projects().by_key(key).await {
        Ok(project) => Ok(authorize::sees(principal, &project).then_some(project)),
        Err(DbError::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// What a caller is told of a project key that names none it can see.
pub(super) fn no_project(key: &str) -> String {
    format!(
        "no project you can see has the id or name {key:?}; GET /api/v1/org-unit/projects lists yours"
    )
}

/// [`seen_project`], or a 400 naming `field`, the request field that held `key`.
pub(super) async fn project_by_key(
    db: &Database,
    principal: &Principal,
    key: &str,
    field: &str,
) -> Result<Project, AppError> {
    seen_project(db, principal, key)
        .await?
        .ok_or_else(|| AppError::field(field, no_project(key)))
}

/// The department `key` names if the principal holds anything in it or in one of its projects
/// (whose pages name it); `None` alike when there is none and when it is not theirs.
pub(super) async fn seen_department(
    db: &Database,
    principal: &Principal,
    key: &str,
) -> Result<Option<Department>, AppError> {
    let department = match db.departments().by_key(key).await {
        Ok(d) => d,
        Err(DbError::NotFound) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if authorize::sees_scope(principal, &Scope::Department(department.id.to_string())) {
        return Ok(Some(department));
    }
    let projects = db.projects().names().await?;
    let member = projects
        .iter()
        .any(|(id, _, d)| *d == department.id && authorize::sees_project(principal, id, *d));
    Ok(member.then_some(department))
}

/// What a caller is told of a department key that names none it can see.
pub(super) fn no_department(key: &str) -> String {
    format!(
        "no department you can see has the id or name {key:?}; \
         GET /api/v1/org-unit/departments lists yours"
    )
}

/// [`seen_department`], or a 400 naming `field`.
pub(super) async fn department_by_key(
    db: &Database,
    principal: &Principal,
    key: &str,
    field: &str,
) -> Result<Department, AppError> {
    seen_department(db, principal, key)
        .await?
        .ok_or_else(|| AppError::field(field, no_department(key)))
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
