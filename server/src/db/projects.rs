//! Projects: each owns one namespace and one Volcano queue, within a department.

use super::audit::record_in;
use super::{DbError, DbResult, conflict_as, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::model::history::{AuditAction, AuditTarget};
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

pub struct Projects<'a>(pub(super) &'a super::Database);

const COLUMNS: &str = "id, number, name, namespace, queue, department_id, description, \
                       resources, default_node_pools, scheduling_rules, created_at, updated_at";

/// How often a create retries when another took the same number at the same moment.
const NUMBER_RETRIES: usize = 3;

impl Projects<'_> {
    /// Makes a project, with `project.create` in the audit trail in the same transaction.
    pub async fn create(&self, new: &NewProject, by: Option<Uuid>) -> DbResult<Project> {
        for _ in 0..NUMBER_RETRIES {
            match self.try_create(new, by).await {
                Err(DbError::Conflict(message)) if message.is_empty() => continue,
                done => return done,
            }
        }
        Err(DbError::Conflict(
            "too many projects are being created at once; try again".into(),
        ))
    }

    /// One attempt; a conflict with an empty message means the number was taken meanwhile.
    async fn try_create(&self, new: &NewProject, by: Option<Uuid>) -> DbResult<Project> {
        let at = now();
        let id = Uuid::new_v4();
        let sql = format!(
            "INSERT INTO projects (id, number, name, namespace, queue, department_id,
                                        description, resources, default_node_pools,
                                        scheduling_rules, created_at, updated_at)
             VALUES ($1, (SELECT COALESCE(MAX(number), 0) + 1 FROM projects), $2, $3, $4,
                     COALESCE($5, (SELECT id FROM departments WHERE name = 'default')),
                     $6, $7, $8, $9, $10, $10)
             RETURNING {COLUMNS}"
        );
        let created = write_transaction!(self.0, tx => {
            let created: Project = sqlx::query_as(&sql)
                .bind(id)
                .bind(&new.name)
                .bind(&new.namespace)
                .bind(&new.queue)
                .bind(new.department_id)
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
        Ok(created)
    }

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

    /// Changes what an administrator sets (not the name: the namespace and queue carry it), with
    /// `project.update`, what it was and what it is, in the audit trail in the same transaction.
    pub async fn update(
        &self,
        id: Uuid,
        fields: &ProjectFields,
        by: Option<Uuid>,
    ) -> DbResult<Project> {
        let read = format!("SELECT {COLUMNS} FROM projects WHERE id = $1");
        let write = format!(
            "UPDATE projects SET description = $2, resources = $3, default_node_pools = $4,
                                 scheduling_rules = $5, updated_at = $6
              WHERE id = $1 RETURNING {COLUMNS}"
        );
        let updated = write_transaction!(self.0, tx => {
            // Locks the row first, so what the trail says it was is what this change replaced.
            sqlx::query("UPDATE projects SET updated_at = updated_at WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
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
        Ok(updated)
    }

    /// Deletes a project without live workloads, with its deleted workloads' rows and its
    /// access rules (their history stays in the audit trail), and `project.delete` in the trail
    /// in the same transaction. Returns the names of its live workloads instead when it has any.
    pub async fn delete(&self, id: Uuid, by: Option<Uuid>) -> DbResult<Result<(), Vec<String>>> {
        write_transaction!(self.0, tx => {
            // Takes the write lock first, so no workload is submitted between the check and the
            // delete.
            sqlx::query("UPDATE projects SET updated_at = updated_at WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
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
            sqlx::query("DELETE FROM access_rules WHERE scope_type = 'project' AND scope_id = $1")
                .bind(id.to_string())
                .execute(&mut *tx)
                .await?;
            let gone: Project = sqlx::query_as(&format!(
                "DELETE FROM projects WHERE id = $1 RETURNING {COLUMNS}"
            ))
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
            let detail = audited(&gone, Some(&gone), None);
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
/// on it, before and after the change.
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
    serde_json::json!({
        "name": project.name,
        "departmentId": project.department_id.to_string(),
        "namespace": project.namespace,
        "before": before.map(set),
        "after": after.map(set),
    })
}
