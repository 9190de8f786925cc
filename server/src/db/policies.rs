//! Policies by scope and workload kind, stored whole as Run:ai's `{defaults, rules}`.

use super::audit::record_in;
use super::departments::Department;
use super::projects::Project;
use super::scoped::hold_scope;
use super::{DbError, DbResult, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::domain::authz::Scope;
use tephra_core::domain::policy::{self, PerKind, Policy, PolicyKind};
use tephra_core::model::history::{AuditAction, AuditTarget};
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct StoredPolicy {
    pub scope_type: String,
    pub scope_id: String,
    pub kind: String,
    pub body: Json<serde_json::Value>,
    pub updated_by: Option<Uuid>,
    pub updated_at: DateTime<Utc>,
}

pub struct Policies<'a>(pub(super) &'a super::Database);

const COLUMNS: &str = "scope_type, scope_id, kind, body, updated_by, updated_at";

impl Policies<'_> {
    pub async fn get(&self, scope: &Scope, kind: PolicyKind) -> DbResult<Option<StoredPolicy>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM policies WHERE scope_type = $1 AND scope_id = $2 AND kind = $3"
        );
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql)
            .bind(scope.kind())
            .bind(scope.id())
            .bind(kind.as_str())
            .fetch_optional(pool)
            .await)?)
    }

    /// Sets a scope's policy, replacing what it had. The audit trail gets `policy.set` with the
    /// whole body and, when the system's policy replaces node protection's `replaced` rules,
    /// `policy.node-protection`, both in the same transaction: a change the trail does not show
    /// is not stored.
    pub async fn put(
        &self,
        scope: &Scope,
        kind: PolicyKind,
        body: &serde_json::Value,
        by: Option<Uuid>,
        replaced: &[String],
    ) -> DbResult<StoredPolicy> {
        let sql = format!(
            "INSERT INTO policies (scope_type, scope_id, kind, body, updated_by, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (scope_type, scope_id, kind)
             DO UPDATE SET body = excluded.body, updated_by = excluded.updated_by,
                           updated_at = excluded.updated_at
             RETURNING {COLUMNS}"
        );
        let mut detail = audited(scope, kind);
        detail["policy"] = body.clone();
        let stored = write_transaction!(self.0, tx => {
            if !hold_scope!(tx, scope) {
                return Err(DbError::NotFound);
            }
            let stored: StoredPolicy = sqlx::query_as(&sql)
                .bind(scope.kind())
                .bind(scope.id())
                .bind(kind.as_str())
                .bind(Json(body))
                .bind(by)
                .bind(now())
                .fetch_one(&mut *tx)
                .await?;
            record_in!(&mut *tx, by, AuditAction::PolicySet, AuditTarget::Policy, Uuid::nil(), &detail)
                .await?;
            if !replaced.is_empty() {
                let replacing = serde_json::json!({ "kind": kind, "rules": replaced });
                record_in!(&mut *tx, by, AuditAction::NodeProtectionReplaced, AuditTarget::System, Uuid::nil(), &replacing)
                    .await?;
            }
            tx.commit().await?;
            stored
        });
        Ok(stored)
    }

    /// The policies that apply at `scope`, outermost first, each labelled for refusals: the
    /// system's (the built-in node protection when none is stored), the department's, the
    /// project's; without `scope`'s own unless `with_own`.
    pub async fn layers(
        &self,
        scope: &Scope,
        kind: PolicyKind,
        with_own: bool,
    ) -> DbResult<Vec<Policy>> {
        let every = self.layers_of_every_kind(scope, with_own).await?;
        Ok(every.take(kind))
    }

    /// [`Self::layers`] of each kind, read at once: the scope's
    /// chain, then every policy stored along it in one query (a create checks both kinds; read
    /// one layer at a time, that was fifteen queries).
    pub async fn layers_of_every_kind(
        &self,
        scope: &Scope,
        with_own: bool,
    ) -> DbResult<PerKind<Vec<Policy>>> {
        let scopes = self.chain(scope, with_own).await?;
        self.along(&scopes).await
    }

    /// A project's [`Self::layers_of_every_kind`], its own included, from the project already
    /// read: what a create checks, without reading the project again.
    pub async fn layers_of_project(&self, project: &Project) -> DbResult<PerKind<Vec<Policy>>> {
        let scopes = self.project_chain(project).await?;
        self.along(&scopes).await
    }

    /// [`Self::layers_of_project`] with its department already read too: what a submit checks,
    /// in one query.
    pub async fn layers_in(
        &self,
        project: &Project,
        department: &Department,
    ) -> DbResult<PerKind<Vec<Policy>>> {
        self.along(&chain_of(project, department)).await
    }

    /// The policies of each kind stored along `scopes` (outermost first), read in one query.
    async fn along(&self, scopes: &[(Scope, String)]) -> DbResult<PerKind<Vec<Policy>>> {
        if scopes.is_empty() {
            // The system's policy without its own: nothing lies outside it.
            return Ok(PerKind::default());
        }
        let conditions = (0..scopes.len())
            .map(|i| {
                format!(
                    "(scope_type = ${} AND scope_id = ${})",
                    2 * i + 1,
                    2 * i + 2
                )
            })
            .collect::<Vec<_>>()
            .join(" OR ");
        let sql = format!("SELECT {COLUMNS} FROM policies WHERE {conditions}");
        let stored: Vec<StoredPolicy> = on_pool!(self.0, pool => {
            let mut query = sqlx::query_as(&sql);
            for (s, _) in scopes {
                query = query.bind(s.kind()).bind(s.id());
            }
            query.fetch_all(pool).await
        })?;
        Ok(PerKind::from_fn(|kind| {
            let mut layers = Vec::new();
            for (s, source) in scopes {
                let body = stored
                    .iter()
                    .find(|p| {
                        p.scope_type == s.kind() && p.scope_id == s.id() && p.kind == kind.as_str()
                    })
                    .map(|p| p.body.0.clone());
                let body = match body {
                    _ if *s == Scope::System => policy::system_layer(body.as_ref()),
                    Some(body) => body,
                    None => continue,
                };
                match Policy::parse(source, &body) {
                    Ok(p) => layers.push(p),
                    // Checked when saved. One that no longer parses refuses every request
                    // rather than letting them through without its rules.
                    Err(errors) => {
                        tracing::error!(?errors, %source, "a stored policy no longer parses");
                        layers.push(Policy::unreadable(source, &errors));
                    }
                }
            }
            layers
        }))
    }

    /// The scopes whose policies apply at `scope`, outermost first, each with how a refusal
    /// names it; without `scope` itself unless `with_own`.
    async fn chain(&self, scope: &Scope, with_own: bool) -> DbResult<Vec<(Scope, String)>> {
        let mut scopes = vec![(Scope::System, "the system policy".to_owned())];
        match scope {
            Scope::System => {}
            Scope::Department(id) => {
                let d = self.0.departments().by_key(id).await?;
                scopes.push((scope.clone(), format!("department {:?}'s policy", d.name)));
            }
            Scope::Project(id) => {
                let p = self.0.projects().by_key(id).await?;
                scopes = self.project_chain(&p).await?;
            }
        }
        if !with_own {
            scopes.pop();
        }
        Ok(scopes)
    }

    /// The scopes whose policies apply in `project`, its own last.
    async fn project_chain(&self, project: &Project) -> DbResult<Vec<(Scope, String)>> {
        let d = self.0.departments().get(project.department_id).await?;
        Ok(chain_of(project, &d))
    }

    /// Removes a scope's policy, with `policy.delete` in the audit trail in the same
    /// transaction; false when it had none (and nothing is recorded).
    pub async fn delete(
        &self,
        scope: &Scope,
        kind: PolicyKind,
        by: Option<Uuid>,
    ) -> DbResult<bool> {
        let detail = audited(scope, kind);
        let done = write_transaction!(self.0, tx => {
            let done = sqlx::query(
                "DELETE FROM policies WHERE scope_type = $1 AND scope_id = $2 AND kind = $3"
            )
            .bind(scope.kind())
            .bind(scope.id())
            .bind(kind.as_str())
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if done == 1 {
                record_in!(&mut *tx, by, AuditAction::PolicyDelete, AuditTarget::Policy, Uuid::nil(), &detail)
                    .await?;
                tx.commit().await?;
            }
            done
        });
        Ok(done == 1)
    }
}

/// Which policy an audit entry is about: its scope and kind.
fn audited(scope: &Scope, kind: PolicyKind) -> serde_json::Value {
    serde_json::json!({ "scope": scope.kind(), "scopeId": scope.id(), "kind": kind })
}

/// The scopes whose policies apply in `project` of `department`, its own last.
fn chain_of(project: &Project, department: &Department) -> Vec<(Scope, String)> {
    vec![
        (Scope::System, "the system policy".to_owned()),
        (
            Scope::Department(department.id.to_string()),
            format!("department {:?}'s policy", department.name),
        ),
        (
            Scope::Project(project.id.to_string()),
            format!("project {:?}'s policy", project.name),
        ),
    ]
}
