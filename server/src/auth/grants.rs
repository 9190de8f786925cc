//! The grants a principal acts with, worked out once per request from the access rules: its
//! own rules, the administrator settings, and for an application no more than its creator's.

use super::Authenticator;
use crate::domain::authz::{self, Caller, Role, Scope};
use app::error::AppError;
use app::model::principal::Principal;

impl Authenticator {
    /// Adds the roles the access rules give the principal, and the system administrator role
    /// to administrators named in the settings and the development user.
    pub(super) async fn with_grants(
        &self,
        mut principal: Principal,
    ) -> Result<Principal, AppError> {
        let rules: Vec<_> = self
            .db
            .access_rules()
            .all()
            .await?
            .into_iter()
            .map(|stored| stored.rule)
            .collect();
        let caller = match &principal.application {
            Some(app) => Caller {
                app: Some(app.clone()),
                ..Caller::default()
            },
            None => Caller {
                subject: Some(principal.subject.clone()),
                email: principal.email.clone(),
                groups: principal.groups.clone(),
                app: None,
            },
        };
        let mut grants = authz::grants_of(&rules, &caller);
        if principal.admin {
            grants.insert(0, (Role::SystemAdministrator, Scope::System));
            grants.dedup();
        }
        let names = if grants.iter().any(|(_, s)| matches!(s, Scope::Project(_))) {
            self.db.projects().list().await?
        } else {
            Vec::new()
        };
        if let Some(app) = &principal.application {
            let creator = self.creator_grants(app, &rules).await?;
            grants = authz::bounded_by(grants, &creator, |id| {
                names
                    .iter()
                    .find(|p| p.project.id.to_string() == id)
                    .map(|p| p.project.department_id.to_string())
            });
        }
        let departments = if grants
            .iter()
            .any(|(_, s)| matches!(s, Scope::Department(_)))
        {
            self.db.departments().list().await?
        } else {
            Vec::new()
        };
        principal.grants = crate::access::described(&grants, |scope| match scope {
            Scope::Department(id) => departments
                .iter()
                .find(|d| d.department.id.to_string() == *id)
                .map_or_else(|| id.clone(), |d| d.department.name.clone()),
            _ => names
                .iter()
                .find(|p| p.project.id.to_string() == scope.id())
                .map_or_else(|| scope.id().to_owned(), |p| p.project.name.clone()),
        });
        Ok(principal)
    }
}
