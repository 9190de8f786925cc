//! The one authorization point. Every handler, server function, the no-JavaScript form and the
//! event stream ask here whether their principal may act, with the permission the action needs;
//! a refusal is a 403 naming the missing permission. The principal carries its grants, worked
//! out from the access rules when the request was authenticated (`crate::auth`).

use crate::db::projects::Project;
use app::error::AppError;
use tephra_core::domain::authz::{self, Grant, Permission, Reach, Scope, Target};
use tephra_core::model::principal::{self, Principal};

/// The principal's grants in the domain's terms.
pub fn grants(principal: &Principal) -> Vec<Grant> {
    principal
        .grants
        .iter()
        .map(|g| (g.role, g.scope.clone()))
        .collect()
}

/// The grants as the principal carries them, with the scopes' names for people.
pub fn described(grants: &[Grant], scope_name: impl Fn(&Scope) -> String) -> Vec<principal::Grant> {
    grants
        .iter()
        .map(|(role, scope)| principal::Grant {
            role: *role,
            scope: scope.clone(),
            scope_name: scope_name(scope),
        })
        .collect()
}

pub fn project_target(project: &Project) -> Target {
    Target::Project {
        id: project.id.to_string(),
        department: Some(project.department_id.to_string()),
    }
}

/// Fails with 403 unless `principal` holds `permission` in `project`. The refusal names the
/// project only to someone who may see it, so it never tells a stranger a project's name.
pub fn require(
    principal: &Principal,
    permission: Permission,
    project: &Project,
) -> Result<(), AppError> {
    let grants = grants(principal);
    let target = project_target(project);
    authz::check(&grants, permission, &target, || {
        if authz::allows(&grants, Permission::ReadProject, &target) {
            format!("project {:?}", project.name)
        } else {
            format!("project {}", project.id)
        }
    })
    .map_err(|denied| AppError::Forbidden(denied.to_string()))
}

/// Whether `principal` holds anything in `project`. One it holds nothing in is answered as if
/// it did not exist, so its name and id cannot be probed (`service::lookup`).
pub fn sees(principal: &Principal, project: &Project) -> bool {
    authz::sees(&grants(principal), &project_target(project))
}

/// [`sees`] for a department or the system.
pub fn sees_scope(principal: &Principal, scope: &Scope) -> bool {
    authz::sees(&grants(principal), &scope.target())
}

/// [`sees`] for project `id` of department `department`, as the project list names them.
pub fn sees_project(principal: &Principal, id: &uuid::Uuid, department: i64) -> bool {
    let target = Target::Project {
        id: id.to_string(),
        department: Some(department.to_string()),
    };
    authz::sees(&grants(principal), &target)
}

/// Fails with 403 unless `principal` holds `permission` on the whole system.
pub fn require_system(principal: &Principal, permission: Permission) -> Result<(), AppError> {
    authz::check(&grants(principal), permission, &Target::System, || {
        "the system".into()
    })
    .map_err(|denied| AppError::Forbidden(denied.to_string()))
}

/// Fails with 403 unless `principal` holds `permission` on `scope`.
pub fn require_on(
    principal: &Principal,
    permission: Permission,
    scope: &Scope,
) -> Result<(), AppError> {
    authz::check(&grants(principal), permission, &scope.target(), || {
        authz::describe(scope)
    })
    .map_err(|denied| AppError::Forbidden(denied.to_string()))
}

/// Where `principal` holds `permission`, to filter lists and the event stream.
pub fn reach(principal: &Principal, permission: Permission) -> Reach {
    Reach::of(&grants(principal), permission)
}

/// Whether `principal` holds `permission` in `project`.
pub fn may(principal: &Principal, permission: Permission, project: &Project) -> bool {
    authz::allows(&grants(principal), permission, &project_target(project))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tephra_core::domain::authz::Role;

    fn principal(grants: &[Grant]) -> Principal {
        Principal {
            user_id: "u".into(),
            subject: "s".into(),
            display_name: "Ada".into(),
            email: None,
            groups: Vec::new(),
            admin: false,
            dev_login: false,
            application: None,
            uid: None,
            gid: None,
            grants: described(grants, |s| s.id().to_owned()),
        }
    }

    fn project(name: &str) -> Project {
        let at = chrono::Utc::now();
        Project {
            id: uuid::Uuid::new_v4(),
            number: 1,
            name: name.into(),
            namespace: format!("tephra-{name}"),
            queue: format!("tephra-{name}"),
            department_id: 1,
            description: String::new(),
            resources: sqlx::types::Json(Vec::new()),
            default_node_pools: None,
            scheduling_rules: None,
            created_at: at,
            updated_at: at,
        }
    }

    #[test]
    fn a_system_administrator_may_act_in_every_project() {
        let admin = principal(&[(Role::SystemAdministrator, Scope::System)]);
        assert!(require(&admin, Permission::ManageWorkloads, &project("vision")).is_ok());
        assert!(require_system(&admin, Permission::ReadAudit).is_ok());
        assert!(reach(&admin, Permission::ReadWorkloads).everything);
    }

    #[test]
    fn a_viewer_reads_but_is_refused_changes_with_the_permission_and_project_named() {
        let vision = project("vision");
        let viewer = principal(&[(Role::Viewer, Scope::Project(vision.id.to_string()))]);
        assert!(require(&viewer, Permission::ReadWorkloads, &vision).is_ok());
        let err = require(&viewer, Permission::ManageWorkloads, &vision).unwrap_err();
        assert!(matches!(err, AppError::Forbidden(_)));
        assert!(
            err.to_string()
                .ends_with("missing permission workloads:manage on project \"vision\""),
            "{err}"
        );
    }

    #[test]
    fn a_stranger_is_refused_without_learning_the_projects_name() {
        let (vision, speech) = (project("vision"), project("speech"));
        let member = principal(&[(Role::Researcher, Scope::Project(speech.id.to_string()))]);
        let err = require(&member, Permission::ReadWorkloads, &vision).unwrap_err();
        assert!(!err.to_string().contains("vision"), "{err}");
        assert!(err.to_string().contains("workloads:read"), "{err}");
        assert!(require_system(&member, Permission::ReadAudit).is_err());
        let reach = reach(&member, Permission::ReadWorkloads);
        assert!(reach.includes(&speech.id.to_string(), None));
        assert!(!reach.includes(&vision.id.to_string(), None));
    }

    #[test]
    fn a_grant_the_server_did_not_write_cannot_be_read() {
        // Grants are typed: a role or scope Tephra does not have never becomes a grant.
        let forged = serde_json::json!({
            "role": "owner", "scope": { "type": "system" }, "scope_name": ""
        });
        assert!(serde_json::from_value::<principal::Grant>(forged).is_err());
        let kept = serde_json::json!({
            "role": "researcher", "scope": { "type": "project", "id": "7" }, "scope_name": "vision"
        });
        let grant: principal::Grant = serde_json::from_value(kept).unwrap();
        assert_eq!(
            (grant.role, grant.scope),
            (Role::Researcher, Scope::Project("7".into()))
        );
    }
}
