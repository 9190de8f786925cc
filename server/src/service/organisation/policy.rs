//! Policies: the layers a project's requests are checked against (the system's, its
//! department's, its own), and reading and setting one scope's policy. System administrators set
//! the system's and departments' policies; a department's administrators set its projects'.

use super::Organisation;
use crate::authorize;
use crate::service::lookup::{actor, department_by_key, policy_layers, project_by_key};
use app::error::AppError;
use serde_json::{Value, json};
use tephra_core::domain::authz::{Permission, Scope};
use tephra_core::domain::policy::PolicyKind;
use tephra_core::domain::policy::{self, Policy};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::policy::FormPolicy;
use tephra_core::model::principal::Principal;

/// One scope's policy as the API shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopePolicy {
    pub scope: Scope,
    /// Its own policy, if it has one (the system always has: the built-in one until set).
    pub own: Option<Value>,
    /// Its and the outer scopes' together.
    pub effective: Value,
}

impl Organisation {
    async fn layers_for(
        &self,
        scope: &Scope,
        kind: PolicyKind,
        with_own: bool,
    ) -> Result<Vec<Policy>, AppError> {
        Ok(self.db.policies().layers(scope, kind, with_own).await?)
    }

    /// The policies of `key`'s project for each kind of training, for the form: the caller
    /// must be able to submit there.
    pub async fn form_policy(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<FormPolicy, AppError> {
        let project = project_by_key(&self.db, principal, key, "projectId").await?;
        authorize::require(principal, Permission::ManageWorkloads, &project)?;
        Ok(FormPolicy {
            trainings: policy_layers(&self.db, &project, WorkloadKind::Training).await?,
            distributed: policy_layers(&self.db, &project, WorkloadKind::Distributed).await?,
        })
    }

    /// The scope a policy request names: `scope` (`system`, also Run:ai's `tenant` and
    /// `cluster`; `department`; `project`) with `departmentId` or `projectId`.
    pub async fn policy_scope(
        &self,
        principal: &Principal,
        scope: &str,
        department: Option<&str>,
        project: Option<&str>,
    ) -> Result<Scope, AppError> {
        match scope {
            "system" | "tenant" | "cluster" => Ok(Scope::System),
            "department" => {
                let key = department.ok_or_else(|| {
                    AppError::field("departmentId", "is required with scope department")
                })?;
                let d = department_by_key(&self.db, principal, key, "departmentId").await?;
                Ok(Scope::Department(d.id.to_string()))
            }
            "project" => {
                let key = project.ok_or_else(|| {
                    AppError::field("projectId", "is required with scope project")
                })?;
                let p = project_by_key(&self.db, principal, key, "projectId").await?;
                Ok(Scope::Project(p.id.to_string()))
            }
            other => Err(AppError::field(
                "scope",
                format!(
                    "{other:?} is not a scope: system (or tenant, cluster), department or project"
                ),
            )),
        }
    }

    /// Who may set `scope`'s policy: system administrators for the system and departments, a
    /// department's administrators for its projects.
    async fn may_set_policy(&self, principal: &Principal, scope: &Scope) -> Result<(), AppError> {
        match scope {
            Scope::System | Scope::Department(_) => {
                authorize::require_system(principal, Permission::ManageSystem)
            }
            Scope::Project(id) => {
                let p = self.db.projects().by_key(id).await?;
                authorize::require_on(
                    principal,
                    Permission::ManageProjects,
                    &Scope::Department(p.department_id.to_string()),
                )
            }
        }
    }

    pub async fn policy(
        &self,
        principal: &Principal,
        scope: &Scope,
        kind: PolicyKind,
    ) -> Result<ScopePolicy, AppError> {
        if let Scope::Project(id) = scope {
            let p = self.db.projects().by_key(id).await?;
            authorize::require(principal, Permission::ReadProject, &p)?;
        } else if let Scope::Department(_) = scope {
            authorize::require_on(principal, Permission::ReadProject, scope)?;
        }
        let own = match self.db.policies().get(scope, kind).await? {
            Some(stored) => Some(stored.body.0),
            None if *scope == Scope::System => Some(policy::node_protection()),
            None => None,
        };
        let layers = self.layers_for(scope, kind, true).await?;
        Ok(ScopePolicy {
            scope: scope.clone(),
            own,
            effective: json!({
                "defaults": policy::merged_defaults(&layers),
                "rules": policy::effective_rules(&layers),
            }),
        })
    }

    /// Sets `scope`'s policy after checking it parses, narrows the scopes around it, and that
    /// its defaults keep every rule.
    pub async fn set_policy(
        &self,
        principal: &Principal,
        scope: &Scope,
        kind: PolicyKind,
        body: &Value,
    ) -> Result<ScopePolicy, AppError> {
        self.validated_policy(principal, scope, kind, body).await?;
        let by = actor(principal);
        let replaced = if *scope == Scope::System {
            policy::node_protection_overridden(body)
        } else {
            Vec::new()
        };
        match self
            .db
            .policies()
            .put(scope, kind, body, by, &replaced)
            .await
        {
            Err(crate::db::DbError::NotFound) => {
                return Err(crate::service::lookup::scope_gone(scope));
            }
            other => other?,
        };
        if !replaced.is_empty() {
            tracing::warn!(
                ?replaced,
                %kind,
                "the system policy replaces node protection rules"
            );
        }
        self.cluster.org_changed();
        self.policy(principal, scope, kind).await
    }

    /// The layers `scope` would have with `body` as its own policy, if the principal may set it
    /// there and it parses, narrows the scopes around it, and its defaults keep every rule.
    pub async fn validated_policy(
        &self,
        principal: &Principal,
        scope: &Scope,
        kind: PolicyKind,
        body: &Value,
    ) -> Result<Vec<Policy>, AppError> {
        self.may_set_policy(principal, scope).await?;
        let own = Policy::parse("this policy", body).map_err(AppError::Rejected)?;
        let misfits = policy::RequestSchema::for_kind(kind).refusals(&own.defaults, &own.rules);
        if !misfits.is_empty() {
            return Err(AppError::Rejected(misfits));
        }
        // The system policy is checked as it will apply: over node protection, which its
        // defaults must keep unless it names a protection's rule itself.
        let applied = match scope {
            Scope::System => policy::system_layer(Some(body)),
            _ => body.clone(),
        };
        let parsed = Policy::parse("this policy", &applied).map_err(AppError::Rejected)?;
        let outer = self.layers_for(scope, kind, false).await?;
        let mut errors = policy::widenings(&parsed, &outer);
        let mut all = outer;
        all.push(parsed.clone());
        errors.extend(policy::check_defaults(&parsed.defaults, &all));
        if !errors.is_empty() {
            return Err(AppError::Rejected(errors));
        }
        Ok(all)
    }

    /// Removes `scope`'s policy (the system's goes back to the built-in node protection).
    pub async fn delete_policy(
        &self,
        principal: &Principal,
        scope: &Scope,
        kind: PolicyKind,
    ) -> Result<(), AppError> {
        self.may_set_policy(principal, scope).await?;
        let by = actor(principal);
        if !self.db.policies().delete(scope, kind, by).await? && *scope != Scope::System {
            return Err(AppError::NotFound(
                "this scope has no policy of its own".into(),
            ));
        }
        self.cluster.org_changed();
        Ok(())
    }
}
