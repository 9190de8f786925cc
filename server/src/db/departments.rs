//! Departments: each is the parent of projects and owns one parent Volcano queue.

use super::{DbResult, conflict_as, now, on_pool};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::model::org::PoolResources;

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

const COLUMNS: &str = "id, name, description, queue, resources, created_at, updated_at";

impl Departments<'_> {
    pub async fn create(&self, prefix: &str, fields: &DepartmentFields) -> DbResult<Department> {
        let at = now();
        let sql = format!(
            "INSERT INTO departments (name, description, queue, resources, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5) RETURNING {COLUMNS}"
        );
        let queue = queue_name(prefix, &fields.name);
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql)
        .bind(&fields.name)
        .bind(&fields.description)
        .bind(&queue)
        .bind(Json(&fields.resources))
        .bind(at)
        .fetch_one(pool)
        .await
        .map_err(conflict_as(|| format!(
            "a department named {:?} already exists", fields.name
        ))))?)
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
    /// after it).
    pub async fn update(&self, id: i64, fields: &DepartmentFields) -> DbResult<Department> {
        let sql = format!(
            "UPDATE departments SET description = $2, resources = $3, updated_at = $4
              WHERE id = $1 RETURNING {COLUMNS}"
        );
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql)
            .bind(id)
            .bind(&fields.description)
            .bind(Json(&fields.resources))
            .bind(now())
            .fetch_one(pool)
            .await)?)
    }

    /// Deletes a department that has no projects; `Ok(false)` when it has some (the caller
    /// names them).
    pub async fn delete(&self, id: i64) -> DbResult<bool> {
        let done = on_pool!(self.0, pool => sqlx::query(
            "DELETE FROM departments WHERE id = $1
                AND NOT EXISTS (SELECT 1 FROM projects WHERE department_id = $1)"
        )
        .bind(id)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?;
        Ok(done == 1)
    }
}
