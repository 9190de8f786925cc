//! Projects: each owns one namespace and one Volcano queue.

use super::{DbError, DbResult, conflict_as, now, on_pool};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The project every installation starts with, so a new user can submit at once.
pub const DEFAULT_PROJECT: &str = "default";

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Project {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    pub queue: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A project with the number of its live (not deleted) workloads.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ProjectWithCounts {
    #[sqlx(flatten)]
    pub project: Project,
    pub workloads: i64,
}

#[derive(Debug, Clone)]
pub struct NewProject {
    pub name: String,
    pub namespace: String,
    pub queue: String,
}

/// The prefix of project namespaces and queues unless configured otherwise.
pub const DEFAULT_PREFIX: &str = "tephra-";

impl NewProject {
    /// A project whose namespace and queue are named after it (`tephra-<name>`).
    pub fn named(name: &str) -> Self {
        Self::prefixed(DEFAULT_PREFIX, name)
    }

    /// A project whose namespace and queue are `<prefix><name>`: several installations can share
    /// one cluster with different prefixes.
    pub fn prefixed(prefix: &str, name: &str) -> Self {
        NewProject {
            name: name.to_owned(),
            namespace: format!("{prefix}{name}"),
            queue: format!("{prefix}{name}"),
        }
    }
}

pub struct Projects<'a>(pub(super) &'a super::Database);

const COLUMNS: &str = "id, name, namespace, queue, created_at, updated_at";

impl Projects<'_> {
    pub async fn create(&self, new: &NewProject) -> DbResult<Project> {
        let at = now();
        let project = Project {
            id: Uuid::new_v4(),
            name: new.name.clone(),
            namespace: new.namespace.clone(),
            queue: new.queue.clone(),
            created_at: at,
            updated_at: at,
        };
        on_pool!(self.0, pool => sqlx::query(
            "INSERT INTO projects (id, name, namespace, queue, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(project.id)
        .bind(&project.name)
        .bind(&project.namespace)
        .bind(&project.queue)
        .bind(project.created_at)
        .bind(project.updated_at)
        .execute(pool)
        .await
        .map(|done| done.rows_affected())
        .map_err(conflict_as(|| format!(
            "a project named {:?}, or one using namespace {:?} or queue {:?}, already exists",
            new.name, new.namespace, new.queue
        ))))?;
        Ok(project)
    }

    /// Creates the default project unless it exists; safe to call on every start, from several
    /// replicas at once.
    pub async fn ensure_default(&self) -> DbResult<Project> {
        self.ensure_default_prefixed(DEFAULT_PREFIX).await
    }

    /// [`Self::ensure_default`] with the namespace and queue `<prefix>default`.
    pub async fn ensure_default_prefixed(&self, prefix: &str) -> DbResult<Project> {
        match self
            .create(&NewProject::prefixed(prefix, DEFAULT_PROJECT))
            .await
        {
            Ok(project) => Ok(project),
            Err(DbError::Conflict(_)) => self.by_name(DEFAULT_PROJECT).await,
            Err(e) => Err(e),
        }
    }

    pub async fn get(&self, id: Uuid) -> DbResult<Project> {
        let sql = format!("SELECT {COLUMNS} FROM projects WHERE id = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?)
    }

    pub async fn by_name(&self, name: &str) -> DbResult<Project> {
        let sql = format!("SELECT {COLUMNS} FROM projects WHERE name = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(name).fetch_one(pool).await)?)
    }

    /// All projects by name, with their live workload counts.
    pub async fn list(&self) -> DbResult<Vec<ProjectWithCounts>> {
        let sql = "SELECT p.id, p.name, p.namespace, p.queue, p.created_at, p.updated_at,
                          (SELECT COUNT(*) FROM workloads w
                            WHERE w.project_id = p.id AND w.deleted_at IS NULL) AS workloads
                     FROM projects p ORDER BY p.name";
        Ok(on_pool!(self.0, pool => sqlx::query_as(sql).fetch_all(pool).await)?)
    }

    pub async fn count(&self) -> DbResult<i64> {
        let sql = "SELECT COUNT(*) FROM projects";
        Ok(on_pool!(self.0, pool => sqlx::query_scalar(sql).fetch_one(pool).await)?)
    }
}
