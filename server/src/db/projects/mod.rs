//! Projects: each owns one namespace and one Volcano queue, within a department.

mod changes;
pub use changes::Within;

use super::{DbError, DbResult, on_pool};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::model::org::{PoolResources, SchedulingRules};
use uuid::Uuid;

/// The project every installation starts with, so a new user can submit at once.
pub use tephra_core::model::org::DEFAULT_PROJECT;

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Project {
    /// The key workloads and access rules refer to.
    pub id: Uuid,
    /// Run:ai's id: a small integer, shown as a string (`projectId: "4"`).
    pub number: i64,
    pub name: String,
    pub namespace: String,
    pub queue: String,
    pub department_id: i64,
    pub description: String,
    pub resources: Json<Vec<PoolResources>>,
    pub default_node_pools: Option<Json<Vec<String>>>,
    pub scheduling_rules: Option<Json<SchedulingRules>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A project with the number of its live (not deleted) workloads.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ProjectWithCounts {
    #[sqlx(flatten)]
    pub project: Project,
    pub workloads: i64,
}

/// What an administrator sets on a project.
#[derive(Debug, Clone, Default)]
pub struct ProjectFields {
    pub description: String,
    pub resources: Vec<PoolResources>,
    pub default_node_pools: Option<Vec<String>>,
    pub scheduling_rules: Option<SchedulingRules>,
}

#[derive(Debug, Clone)]
pub struct NewProject {
    pub name: String,
    pub namespace: String,
    pub queue: String,
    /// The default department when `None`.
    pub department_id: Option<i64>,
    pub fields: ProjectFields,
}

/// The prefix of project namespaces and queues unless configured otherwise.
pub const DEFAULT_PREFIX: &str = "tephra-";

impl NewProject {
    /// A project in the default department whose namespace and queue are named after it
    /// (`tephra-<name>`).
    pub fn named(name: &str) -> Self {
        Self::prefixed(DEFAULT_PREFIX, name)
    }

    /// A project in the default department whose namespace and queue are `<prefix><name>`:
    /// several installations can share one cluster with different prefixes.
    pub fn prefixed(prefix: &str, name: &str) -> Self {
        NewProject {
            name: name.to_owned(),
            namespace: format!("{prefix}{name}"),
            queue: format!("{prefix}{name}"),
            department_id: None,
            fields: ProjectFields::default(),
        }
    }
}

/// Takes a project's row lock for the transaction it runs in: its delete takes it (after its
/// department's) before it removes what names the project, and a rule or policy written for the
/// project takes it first ([`crate::db::scoped`]).
pub(crate) const LOCK_SQL: &str = "UPDATE projects SET updated_at = updated_at WHERE id = $1";

pub struct Projects<'a>(pub(in crate::db) &'a super::Database);

pub(super) const COLUMNS: &str = "id, number, name, namespace, queue, department_id, description, \
                       resources, default_node_pools, scheduling_rules, created_at, updated_at";

impl Projects<'_> {
    /// Creates the default project unless it exists; safe to call on every start, from several
    /// replicas at once.
    pub async fn ensure_default(&self) -> DbResult<Project> {
        self.ensure_default_prefixed(DEFAULT_PREFIX).await
    }

    /// [`Self::ensure_default`] with the namespace and queue `<prefix>default`.
    pub async fn ensure_default_prefixed(&self, prefix: &str) -> DbResult<Project> {
        match self
            .create(&NewProject::prefixed(prefix, DEFAULT_PROJECT), None)
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

    pub async fn by_number(&self, number: i64) -> DbResult<Project> {
        let sql = format!("SELECT {COLUMNS} FROM projects WHERE number = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(number).fetch_one(pool).await)?)
    }

    pub async fn by_name(&self, name: &str) -> DbResult<Project> {
        let sql = format!("SELECT {COLUMNS} FROM projects WHERE name = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(name).fetch_one(pool).await)?)
    }

    /// The project a key names: Run:ai's integer id (`"4"`), the UUID, or the name.
    pub async fn by_key(&self, key: &str) -> DbResult<Project> {
        // PostgreSQL refuses NUL in text (the query would fail); no name holds one.
        if key.contains('\0') {
            return Err(DbError::NotFound);
        }
        if let Ok(number) = key.parse::<i64>() {
            return self.by_number(number).await;
        }
        match key.parse::<Uuid>() {
            Ok(id) => self.get(id).await,
            Err(_) => self.by_name(key).await,
        }
    }

    /// All projects by name, with their live workload counts.
    pub async fn list(&self) -> DbResult<Vec<ProjectWithCounts>> {
        let sql = format!(
            "SELECT {COLUMNS},
                    (SELECT CAST(COALESCE(SUM(c.live), 0) AS BIGINT) FROM workload_counts c
                      WHERE c.project_id = p.id) AS workloads
               FROM projects p ORDER BY name"
        );
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).fetch_all(pool).await)?)
    }

    /// Every project's id, name and department, and nothing else: what naming a principal's
    /// grants needs on every request, without counting anyone's workloads.
    pub async fn names(&self) -> DbResult<Vec<(Uuid, String, i64)>> {
        let sql = "SELECT id, name, department_id FROM projects";
        Ok(on_pool!(self.0, pool => sqlx::query_as(sql).fetch_all(pool).await)?)
    }

    /// The projects with an idle-GPU timeout for trainings, by name. Filtered here rather than
    /// in SQL: the two engines spell a JSON lookup differently, and projects are few.
    pub async fn with_idle_rule(&self) -> DbResult<Vec<Project>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM projects WHERE scheduling_rules IS NOT NULL ORDER BY name"
        );
        let projects: Vec<Project> =
            on_pool!(self.0, pool => sqlx::query_as(&sql).fetch_all(pool).await)?;
        Ok(projects
            .into_iter()
            .filter(|p| {
                p.scheduling_rules
                    .as_ref()
                    .is_some_and(|r| r.0.training_job_max_idle_duration_seconds.is_some())
            })
            .collect())
    }

    /// How many workloads of the project are not deleted, from the counts kept per project,
    /// kind and phase (`workload_counts`): a project may hold 100,000.
    pub async fn workload_count(&self, id: Uuid) -> DbResult<i64> {
        let sql = "SELECT CAST(COALESCE(SUM(live), 0) AS BIGINT) FROM workload_counts
                    WHERE project_id = $1";
        Ok(on_pool!(self.0, pool => sqlx::query_scalar(sql).bind(id).fetch_one(pool).await)?)
    }

    pub async fn count(&self) -> DbResult<i64> {
        let sql = "SELECT COUNT(*) FROM projects";
        Ok(on_pool!(self.0, pool => sqlx::query_scalar(sql).fetch_one(pool).await)?)
    }
}
