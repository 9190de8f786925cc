//! The grants a principal acts with, worked out once per request from the access rules: its
//! own rules, the administrator settings, and for an application no more than its creator's.

use super::Authenticator;
use app::error::AppError;
use tephra_core::domain::authz::{self, AccessRule, Caller, Role, Scope};
use tephra_core::model::principal::Principal;

impl Authenticator {
    /// Adds the roles the access rules give the principal, and the system administrator role
    /// to administrators named in the settings and the development user.
    pub(super) async fn with_grants(
        &self,
        mut principal: Principal,
    ) -> Result<Principal, AppError> {
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
        let rules = self.rules_naming(&caller).await?;
        let mut grants = authz::grants_of(&rules, &caller);
        if principal.admin {
            grants.insert(0, (Role::SystemAdministrator, Scope::System));
            grants.dedup();
        }
        let names = if grants.iter().any(|(_, s)| matches!(s, Scope::Project(_))) {
            self.db.projects().names().await?
        } else {
            Vec::new()
        };
        if let Some(app) = &principal.application {
            let creator = self.creator_grants(app).await?;
            grants = authz::bounded_by(grants, &creator, |id| {
                names
                    .iter()
                    .find(|(project, _, _)| project.to_string() == id)
                    .map(|(_, _, department)| department.to_string())
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
        principal.grants = crate::authorize::described(&grants, |scope| match scope {
            Scope::Department(id) => departments
                .iter()
                .find(|d| d.department.id.to_string() == *id)
                .map_or_else(|| id.clone(), |d| d.department.name.clone()),
            _ => names
                .iter()
                .find(|(project, _, _)| project.to_string() == scope.id())
                .map_or_else(|| scope.id().to_owned(), |(_, name, _)| name.clone()),
        });
        Ok(principal)
    }

    /// The access rules that name `caller`.
    pub(super) async fn rules_naming(&self, caller: &Caller) -> Result<Vec<AccessRule>, AppError> {
        Ok(self
            .db
            .access_rules()
            .matching(caller)
            .await?
            .into_iter()
            .map(|stored| stored.rule)
            .collect())
    }
}
