//! Who may act in which project. Every handler that touches a project's workloads calls
//! [`require_member`] with the principal it acts for, so membership, roles and quotas land here
//! without changing the handlers.
//!
//! Until projects have members, the development login (loopback only) is a member of every
//! project and no one else is a member of any: there is no other way to sign in yet.

use crate::db::projects::Project;
use app::error::AppError;
use app::model::principal::Principal;

/// Whether `principal` may see every project's workloads at once.
pub fn sees_every_project(principal: &Principal) -> bool {
    principal.admin || principal.dev_login
}

/// Fails with 403 unless `principal` may see and change workloads in `project`.
pub fn require_member(principal: &Principal, project: &Project) -> Result<(), AppError> {
    // Until access rules exist, system administrators (and the development login, which acts as
    // one) are members of every project.
    if sees_every_project(principal) {
        Ok(())
    } else {
        Err(AppError::Forbidden(format!(
            "{} is not a member of project {:?}",
            principal.display_name, project.name
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(dev_login: bool) -> Principal {
        Principal {
            user_id: "u".into(),
            subject: "s".into(),
            display_name: "Ada".into(),
            email: None,
            groups: Vec::new(),
            admin: dev_login,
            dev_login,
        }
    }

    fn project() -> Project {
        let at = chrono::Utc::now();
        Project {
            id: uuid::Uuid::new_v4(),
            name: "vision".into(),
            namespace: "tephra-vision".into(),
            queue: "tephra-vision".into(),
            created_at: at,
            updated_at: at,
        }
    }

    #[test]
    fn the_development_user_is_a_member_of_every_project() {
        assert!(require_member(&principal(true), &project()).is_ok());
    }

    #[test]
    fn anyone_else_is_refused_with_the_project_named() {
        let err = require_member(&principal(false), &project()).unwrap_err();
        assert_eq!(err.status_code(), 403);
        assert!(err.to_string().contains("\"vision\""), "{err}");
    }
}
