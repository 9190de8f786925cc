//! Departments: each is the parent of projects and owns one parent Volcano queue.

use super::audit::{before_after, record_in};
use super::scoped::forget_scope;
use super::{DbResult, conflict_as, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::model::history::{AuditAction, AuditTarget};
use tephra_core::model::org::PoolResources;
use uuid::Uuid;

/// The department every installation starts with; projects created without one join it.
pub const DEFAULT_DEPARTMENT: &str = "default";

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Department {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub queue: String,
    pub resources: Json<Vec<PoolResources>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A department with how many projects it has.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct DepartmentWithCounts {
    #[sqlx(flatten)]
    pub department: Department,
    pub projects: i64,
}

/// What an administrator sets on a department.
#[derive(Debug, Clone)]
pub struct DepartmentFields {
    pub name: String,
    pub description: String,
    pub resources: Vec<PoolResources>,
}

/// A department's queue: `<prefix><name>.department`. Project queues are `<prefix><name>` and a
/// project name cannot hold a dot, so the two never collide.
pub fn queue_name(prefix: &str, name: &str) -> String {
    format!("{prefix}{name}.department")
}

pub struct Departments<'a>(pub(super) &'a super::Database);

/// Takes a department's row lock for the transaction it runs in. Admission, a project's quota
/// check (`within!`, which also reads the row) and the department's own changes take it first,
/// so each sees what the one before it wrote.
pub(in crate::db) const LOCK_SQL: &str =
    "UPDATE departments SET updated_at = updated_at WHERE id = $1";

pub(super) const COLUMNS: &str = "id, name, description, queue, resources, created_at, updated_at";

impl Departments<'_> {
    /// Makes a department, with `department.create` in the audit trail in the same transaction.
    pub async fn create(
        &self,
        prefix: &str,
        fields: &DepartmentFields,
        by: Option<Uuid>,
    ) -> DbResult<Department> {
        let at = now();
        let sql = format!(
            "INSERT INTO departments (name, description, queue, resources, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5) RETURNING {COLUMNS}"
        );
        let queue = queue_name(prefix, &fields.name);
        let created = write_transaction!(self.0, tx => {
            let created: Department = sqlx::query_as(&sql)
                .bind(&fields.name)
                .bind(&fields.description)
                .bind(&queue)
                .bind(Json(&fields.resources))
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(conflict_as(|| format!(
                    "a department named {:?} already exists", fields.name
                )))?;
            let detail = audited(&created, None, Some(&created));
            record_in!(&mut *tx, by, AuditAction::DepartmentCreate, AuditTarget::Department, Uuid::nil(), &detail)
                .await?;
            tx.commit().await?;
            created
        });
        Ok(created)
    }

    /// The default department (the migration creates it), with its queue named for this
    /// installation's prefix; safe on every start, from several replicas at once.
    pub async fn ensure_default(&self, prefix: &str) -> DbResult<Department> {
        on_pool!(self.0, pool => sqlx::query("UPDATE departments SET queue = $1 WHERE name = $2")
            .bind(queue_name(prefix, DEFAULT_DEPARTMENT))
            .bind(DEFAULT_DEPARTMENT)
            .execute(pool)
            .await
            .map(|done| done.rows_affected()))?;
        self.by_name(DEFAULT_DEPARTMENT).await
    }

    pub async fn get(&self, id: i64) -> DbResult<Department> {
        let sql = format!("SELECT {COLUMNS} FROM departments WHERE id = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?)
    }

    pub async fn by_name(&self, name: &str) -> DbResult<Department> {
        let sql = format!("SELECT {COLUMNS} FROM departments WHERE name = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(name).fetch_one(pool).await)?)
    }

    /// The department an id (`"4"`) or a name names.
    pub async fn by_key(&self, key: &str) -> DbResult<Department> {
        match key.parse::<i64>() {
            Ok(id) => self.get(id).await,
            Err(_) => self.by_name(key).await,
        }
    }

    /// Every department by name, with its project counts.
    pub async fn list(&self) -> DbResult<Vec<DepartmentWithCounts>> {
        let sql = "SELECT d.id, d.name, d.description, d.queue, d.resources, d.created_at,
                          d.updated_at,
                          (SELECT COUNT(*) FROM projects p WHERE p.department_id = d.id) AS projects
                     FROM departments d ORDER BY d.name";
        Ok(on_pool!(self.0, pool => sqlx::query_as(sql).fetch_all(pool).await)?)
    }

    /// Changes the description and resources (a department keeps its name: its queue is named
    /// after it), with `department.update`, what it was and what it is, in the audit trail in
    /// the same transaction.
    pub async fn update(
        &self,
        id: i64,
        fields: &DepartmentFields,
        by: Option<Uuid>,
    ) -> DbResult<Department> {
        let read = format!("SELECT {COLUMNS} FROM departments WHERE id = $1");
        let write = format!(
            "UPDATE departments SET description = $2, resources = $3, updated_at = $4
              WHERE id = $1 RETURNING {COLUMNS}"
        );
        let updated = write_transaction!(self.0, tx => {
            // Locks the row first, so what the trail says it was is what this change replaced.
            sqlx::query(LOCK_SQL)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            let before: Department = sqlx::query_as(&read).bind(id).fetch_one(&mut *tx).await?;
            let updated: Department = sqlx::query_as(&write)
                .bind(id)
                .bind(&fields.description)
                .bind(Json(&fields.resources))
                .bind(now())
                .fetch_one(&mut *tx)
                .await?;
            let detail = audited(&updated, Some(&before), Some(&updated));
            record_in!(&mut *tx, by, AuditAction::DepartmentUpdate, AuditTarget::Department, Uuid::nil(), &detail)
                .await?;
            tx.commit().await?;
            updated
        });
        Ok(updated)
    }

    /// Deletes a department that has no projects, with the access rules and policies scoped to
    /// it, and `department.delete` (naming what went with it) in the audit trail in the same
    /// transaction; `Ok(false)` when it has some (the caller names them).
    pub async fn delete(&self, id: i64, by: Option<Uuid>) -> DbResult<bool> {
        let sql = format!("DELETE FROM departments WHERE id = $1 RETURNING {COLUMNS}");
        let deleted = write_transaction!(self.0, tx => {
            // The row's lock first, as a project's create takes it: the look for projects that
            // follows then sees one made meanwhile, where a single DELETE's look would not (on
            // PostgreSQL, it would fail on the project's reference instead).
            sqlx::query(LOCK_SQL)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            let used: bool =
                sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM projects WHERE department_id = $1)")
                    .bind(id)
                    .fetch_one(&mut *tx)
                    .await?;
            if used {
                return Ok(false);
            }
            let gone: Department = sqlx::query_as(&sql).bind(id).fetch_one(&mut *tx).await?;
            let mut detail = audited(&gone, Some(&gone), None);
            detail["removed"] = forget_scope!(tx, "department", id.to_string());
            record_in!(&mut *tx, by, AuditAction::DepartmentDelete, AuditTarget::Department, Uuid::nil(), &detail)
                .await?;
            tx.commit().await?;
            true
        });
        Ok(deleted)
    }
}

/// A department's audit detail: which one (its id is a number, so it is here rather than the
/// entry's target) and what an administrator sets on it, before and after the change (only
/// what changed, for a change).
fn audited(
    department: &Department,
    before: Option<&Department>,
    after: Option<&Department>,
) -> serde_json::Value {
    let set = |d: &Department| serde_json::json!({ "description": d.description, "resources": d.resources.0 });
    let (before, after) = before_after(before.map(set), after.map(set));
    serde_json::json!({
        "departmentId": department.id.to_string(),
        "name": department.name,
        "before": before,
        "after": after,
    })
}
