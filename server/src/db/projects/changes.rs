//! Making, changing and removing projects: each write checks the project's quota against its
//! department's inside the transaction, with the department's row locked (so two administrators
//! changing two projects at once cannot together pass the department's quota), and records the
//! change in the audit trail in the same transaction.

use super::super::audit::{before_after, record_in};
use super::super::departments::{
    COLUMNS as DEPARTMENT_COLUMNS, Department, LOCK_SQL as DEPARTMENT_LOCK_SQL,
};
use super::super::scoped::forget_scope;
use super::super::{DbError, DbResult, conflict_as, now, write_transaction};
use super::{COLUMNS, NewProject, Project, ProjectFields, Projects};
use sqlx::types::Json;
use std::convert::Infallible;
use tephra_core::model::history::{AuditAction, AuditTarget};
use tephra_core::model::org::PoolResources;
use uuid::Uuid;

/// How often a create retries when another took the same number at the same moment.
const NUMBER_RETRIES: usize = 3;

/// A project's department as the transaction holds it locked, and the quotas its other
/// projects have: what the project's own quota is checked against.
#[derive(Debug)]
pub struct Within {
    pub department: Department,
    pub others: Vec<Vec<PoolResources>>,
}

/// Locks `$department` (the default department when `None`) for the transaction `$tx` and reads
/// it with every other project's resources (all but `$except`). Expands to a [`Within`].
macro_rules! within {
    ($tx:expr, $department:expr, $except:expr) => {{
        let department: Department = sqlx::query_as(&format!(
            "UPDATE departments SET updated_at = updated_at
              WHERE id = COALESCE($1, (SELECT id FROM departments WHERE name = 'default'))
              RETURNING {DEPARTMENT_COLUMNS}"
        ))
        .bind($department)
        .fetch_one(&mut **$tx)
        .await?;
        let others: Vec<Json<Vec<PoolResources>>> = sqlx::query_scalar(
            "SELECT resources FROM projects WHERE department_id = $1 AND id <> $2",
        )
        .bind(department.id)
        .bind($except)
        .fetch_all(&mut **$tx)
        .await?;
        Within {
            department,
            others: others.into_iter().map(|r| r.0).collect(),
        }
    }};
}

impl Projects<'_> {
    /// Makes a project without a check of its quota (the default project, and stories that set
    /// one up), with `project.create` in the audit trail.
    pub async fn create(&self, new: &NewProject, by: Option<Uuid>) -> DbResult<Project> {
        let made = self.create_within(new, by, |_| Ok::<(), Infallible>(()));
        Ok(made.await?.unwrap_or_else(|never| match never {}))
    }

    /// Makes a project if `fits` accepts it within its department as the transaction holds it,
    /// with `project.create` in the audit trail in the same transaction.
    pub async fn create_within<E>(
        &self,
        new: &NewProject,
        by: Option<Uuid>,
        fits: impl Fn(&Within) -> Result<(), E>,
    ) -> DbResult<Result<Project, E>> {
        for _ in 0..NUMBER_RETRIES {
            match self.try_create(new, by, &fits).await {
                Err(DbError::Conflict(message)) if message.is_empty() => continue,
                done => return done,
            }
        }
        Err(DbError::Conflict(
            "too many projects are being created at once; try again".into(),
        ))
    }

    /// One attempt; a conflict with an empty message means the number was taken meanwhile.
    async fn try_create<E>(
        &self,
        new: &NewProject,
        by: Option<Uuid>,
        fits: &impl Fn(&Within) -> Result<(), E>,
    ) -> DbResult<Result<Project, E>> {
        let at = now();
        let id = Uuid::new_v4();
        let sql = format!(
            "INSERT INTO projects (id, number, name, namespace, queue, department_id,
                                        description, resources, default_node_pools,
                                        scheduling_rules, created_at, updated_at)
             VALUES ($1, (SELECT COALESCE(MAX(number), 0) + 1 FROM projects), $2, $3, $4, $5,
                     $6, $7, $8, $9, $10, $10)
             RETURNING {COLUMNS}"
        );
        let created = write_transaction!(self.0, tx => {
            let within = within!(&mut tx, new.department_id, id);
            if let Err(refused) = fits(&within) {
                return Ok(Err(refused));
            }
            let created: Project = sqlx::query_as(&sql)
                .bind(id)
                .bind(&new.name)
                .bind(&new.namespace)
                .bind(&new.queue)
                .bind(within.department.id)
                .bind(&new.fields.description)
                .bind(Json(&new.fields.resources))
                .bind(new.fields.default_node_pools.as_ref().map(Json))
                .bind(new.fields.scheduling_rules.as_ref().map(Json))
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| refused_create(new, e))?;
            let detail = audited(&created, None, Some(&created));
            record_in!(&mut *tx, by, AuditAction::ProjectCreate, AuditTarget::Project, created.id, &detail)
                .await?;
            tx.commit().await?;
            created
        });
        Ok(Ok(created))
    }

    /// Changes what an administrator sets (not the name: the namespace and queue carry it) if
    /// `fits` accepts it within the department as the transaction holds it, with
    /// `project.update`, what it was and what it is, in the audit trail in the same transaction.
    pub async fn update<E>(
        &self,
        project: &Project,
        fields: &ProjectFields,
        by: Option<Uuid>,
        fits: impl FnOnce(&Within) -> Result<(), E>,
    ) -> DbResult<Result<Project, E>> {
        let read = format!("SELECT {COLUMNS} FROM projects WHERE id = $1");
        let write = format!(
            "UPDATE projects SET description = $2, resources = $3, default_node_pools = $4,
                                 scheduling_rules = $5, updated_at = $6
              WHERE id = $1 RETURNING {COLUMNS}"
        );
        let id = project.id;
        let updated = write_transaction!(self.0, tx => {
            // The department's lock comes first, as a submit's does, so the two never wait on
            // each other in opposite orders; what the trail says the project was is then what
            // this change replaced.
            let within = within!(&mut tx, Some(project.department_id), id);
            if let Err(refused) = fits(&within) {
                return Ok(Err(refused));
            }
            let before: Project = sqlx::query_as(&read).bind(id).fetch_one(&mut *tx).await?;
            let updated: Project = sqlx::query_as(&write)
                .bind(id)
                .bind(&fields.description)
                .bind(Json(&fields.resources))
                .bind(fields.default_node_pools.as_ref().map(Json))
                .bind(fields.scheduling_rules.as_ref().map(Json))
                .bind(now())
                .fetch_one(&mut *tx)
                .await?;
            let detail = audited(&updated, Some(&before), Some(&updated));
            record_in!(&mut *tx, by, AuditAction::ProjectUpdate, AuditTarget::Project, id, &detail)
                .await?;
            tx.commit().await?;
            updated
        });
        Ok(Ok(updated))
    }

    /// Deletes a project without live workloads, with its deleted workloads' rows (their history
    /// stays in the audit trail), the access rules and policies scoped to it, and
    /// `project.delete` (naming the rules and policies that went) in the trail in the same
    /// transaction. Returns the names of its live workloads instead when it has any.
    pub async fn delete(
        &self,
        project: &Project,
        by: Option<Uuid>,
    ) -> DbResult<Result<(), Vec<String>>> {
        let id = project.id;
        write_transaction!(self.0, tx => {
            // Takes its department's lock first, as a submit's admission does: a workload is
            // either stored before the look for live ones below, or its admission finds the
            // project gone. The project's own row lock alone would not do on PostgreSQL: a
            // workload's insert does not wait for it, and the delete then failed on the
            // workload's reference (a 500).
            sqlx::query(DEPARTMENT_LOCK_SQL)
                .bind(project.department_id)
                .execute(&mut *tx)
                .await?;
            // Then its own, which a rule or policy written for it takes first: one written
            // before is removed below, and one after finds the project gone.
            sqlx::query(super::LOCK_SQL).bind(id).execute(&mut *tx).await?;
            let live: Vec<String> = sqlx::query_scalar(
                "SELECT name FROM workloads WHERE project_id = $1 AND deleted_at IS NULL
                  ORDER BY name",
            )
            .bind(id)
            .fetch_all(&mut *tx)
            .await?;
            if !live.is_empty() {
                return Ok(Err(live));
            }
            sqlx::query("DELETE FROM workloads WHERE project_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            let removed = forget_scope!(tx, "project", id.to_string());
            let gone: Project = sqlx::query_as(&format!(
                "DELETE FROM projects WHERE id = $1 RETURNING {COLUMNS}"
            ))
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
            let mut detail = audited(&gone, Some(&gone), None);
            detail["removed"] = removed;
            record_in!(&mut *tx, by, AuditAction::ProjectDelete, AuditTarget::Project, id, &detail)
                .await?;
            tx.commit().await?;
        });
        Ok(Ok(()))
    }
}

/// A failed insert: the number taken meanwhile (a conflict with an empty message, which the
/// caller retries), or a name, namespace or queue another project has.
fn refused_create(new: &NewProject, e: sqlx::Error) -> DbError {
    let number_taken = e
        .as_database_error()
        .and_then(|d| d.constraint().map(|c| c.contains("number")))
        .unwrap_or(false)
        || e.to_string().contains("projects.number");
    if number_taken {
        return DbError::Conflict(String::new());
    }
    conflict_as(|| {
        format!(
            "a project named {:?}, or one using namespace {:?} or queue {:?}, already exists",
            new.name, new.namespace, new.queue
        )
    })(e)
}

/// A project's audit detail: its name, department and namespace, and what an administrator sets
/// on it, before and after the change (only what changed, for a change).
fn audited(
    project: &Project,
    before: Option<&Project>,
    after: Option<&Project>,
) -> serde_json::Value {
    let set = |p: &Project| {
        serde_json::json!({
            "description": p.description,
            "resources": p.resources.0,
            "defaultNodePools": p.default_node_pools.as_ref().map(|j| &j.0),
            "schedulingRules": p.scheduling_rules.as_ref().map(|j| &j.0),
        })
    };
    let (before, after) = before_after(before.map(set), after.map(set));
    serde_json::json!({
        "name": project.name,
        "departmentId": project.department_id.to_string(),
        "namespace": project.namespace,
        "before": before,
        "after": after,
    })
}
