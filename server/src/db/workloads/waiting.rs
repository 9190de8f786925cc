//! What ordering the waiting workloads needs: each one that waits to start with its priority
//! class and node pools (read from its request inside the database, so no request is parsed in
//! full), and the GPUs the queues of their projects hold now with what they deserve.

use super::Workloads;
use crate::db::{Database, DbError, DbResult, Engine, on_pool};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::model::org::PoolResources;
use uuid::Uuid;

/// A workload that waits to start.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct WaitingRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    pub creator_name: String,
    pub created_at: DateTime<Utc>,
    pub gpus: f64,
    /// The request's `spec.priorityClass`, if it names one.
    pub priority_class: Option<String>,
    /// The request's `spec.nodePools`, as JSON text, if it lists any.
    pub node_pools: Option<String>,
    /// The request's `spec.maxRunTimeSeconds`, if it sets one.
    pub max_run_seconds: Option<i64>,
}

/// A project's queue: its name, what it deserves, and the GPUs its workloads that no longer wait
/// hold.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRow {
    pub project_id: Uuid,
    pub project_name: String,
    pub resources: Vec<PoolResources>,
    pub allocated_gpus: f64,
}

/// The request's fields ordering and estimates read, as each engine spells a JSON path.
pub(super) fn request_fields(engine: Engine) -> &'static str {
    match engine {
        Engine::Sqlite => {
            "json_extract(w.spec, '$.spec.priorityClass') AS priority_class,
             CAST(json_extract(w.spec, '$.spec.nodePools') AS TEXT) AS node_pools,
             CAST(json_extract(w.spec, '$.spec.maxRunTimeSeconds') AS INTEGER) AS max_run_seconds"
        }
        Engine::Postgres => {
            "w.spec->'spec'->>'priorityClass' AS priority_class,
             w.spec->'spec'->>'nodePools' AS node_pools,
             CAST(w.spec->'spec'->>'maxRunTimeSeconds' AS BIGINT) AS max_run_seconds"
        }
    }
}

/// The rows that wait to start, of cluster `$1`.
const WAITING_ROWS: &str = "FROM workloads w JOIN users u ON u.id = w.created_by
     WHERE w.deleted_at IS NULL AND w.finished_at IS NULL
       AND w.desired_phase = 'Running' AND w.pending_since IS NOT NULL
       AND w.cluster_id = $1";

/// On SQLite the waiting rows come packed in one JSON array: sqlx's SQLite driver spends about
/// 6 µs handing over each row, so 10,000 one by one took 63 ms (docs/BENCHMARKS.md, "Queue
/// positions shared for a second"). Ids come as hex, the creation time as stored (RFC 3339),
/// the node pools as the text of their JSON (`'' ||` makes it plain text, or `json_array` would
/// nest the array itself).
const SQLITE_PACKED: &str = "SELECT json_group_array(json_array(
        hex(w.id), hex(w.project_id), w.name, u.display_name, w.created_at,
        COALESCE(w.gpus, 0.0), json_extract(w.spec, '$.spec.priorityClass'),
        '' || json_extract(w.spec, '$.spec.nodePools'),
        CAST(json_extract(w.spec, '$.spec.maxRunTimeSeconds') AS INTEGER)))";

/// One waiting row as [`SQLITE_PACKED`] packs it, in [`WaitingRow`]'s order.
#[derive(serde::Deserialize)]
struct Packed(
    String,
    String,
    String,
    String,
    String,
    f64,
    Option<String>,
    Option<String>,
    Option<i64>,
);

impl Packed {
    fn row(self) -> DbResult<WaitingRow> {
        let Packed(id, project, name, creator, created, gpus, priority, pools, limit) = self;
        let uuid = |text: &str| {
            Uuid::parse_str(text).map_err(|e| DbError::Corrupt(format!("id {text:?}: {e}")))
        };
        Ok(WaitingRow {
            id: uuid(&id)?,
            project_id: uuid(&project)?,
            name,
            creator_name: creator,
            created_at: stored_time(&created)?,
            gpus,
            priority_class: priority,
            node_pools: pools,
            max_run_seconds: limit,
        })
    }
}

/// A time as SQLite holds it: RFC 3339 as sqlx writes it, or SQLite's own `YYYY-MM-DD HH:MM:SS`
/// (UTC) as SQL functions write it.
fn stored_time(text: &str) -> DbResult<DateTime<Utc>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f")
        .map(|at| at.and_utc())
        .map_err(|e| DbError::Corrupt(format!("time {text:?}: {e}")))
}

/// The projects among `$1..` (a list of ids written out), with their resources.
fn projects_sql(projects: usize) -> String {
    let ids: Vec<String> = (1..=projects).map(|i| format!("${i}")).collect();
    format!(
        "SELECT p.id, p.name, p.resources FROM projects p WHERE p.id IN ({})",
        ids.join(", ")
    )
}

type ProjectTuple = (Uuid, String, Json<Vec<PoolResources>>);

impl Workloads<'_> {
    /// Every workload of `cluster` that waits to start (may run and has not started).
    pub async fn waiting(&self, cluster: &str) -> DbResult<Vec<WaitingRow>> {
        self.waiting_of(cluster, None).await
    }

    /// Those of `ids` that wait to start on `cluster`: what an order kept in memory is brought
    /// up to date with after actions on them, without reading every waiting row again.
    pub async fn waiting_among(&self, cluster: &str, ids: &[Uuid]) -> DbResult<Vec<WaitingRow>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.waiting_of(cluster, Some(ids)).await
    }

    /// The waiting rows of `cluster`, of `ids` only when given.
    async fn waiting_of(&self, cluster: &str, ids: Option<&[Uuid]>) -> DbResult<Vec<WaitingRow>> {
        let among = match ids {
            Some(ids) => {
                let list: Vec<String> = (2..ids.len() + 2).map(|i| format!("${i}")).collect();
                format!("{WAITING_ROWS} AND w.id IN ({})", list.join(", "))
            }
            None => WAITING_ROWS.to_owned(),
        };
        let ids = ids.unwrap_or_default();
        match self.0 {
            Database::Sqlite(crate::db::SqliteDb { pool, .. }) => {
                let sql = format!("{SQLITE_PACKED} {among}");
                let mut query = sqlx::query_scalar(&sql).bind(cluster);
                for id in ids {
                    query = query.bind(*id);
                }
                let packed: Json<Vec<Packed>> = query.fetch_one(pool).await?;
                packed.0.into_iter().map(Packed::row).collect()
            }
            Database::Postgres(pool) => {
                let sql = format!(
                    "SELECT w.id, w.project_id, w.name, u.display_name AS creator_name,
                            w.created_at, COALESCE(w.gpus, 0.0) AS gpus, {} {among}",
                    request_fields(Engine::Postgres)
                );
                let mut query = sqlx::query_as(&sql).bind(cluster);
                for id in ids {
                    query = query.bind(*id);
                }
                Ok(query.fetch_all(pool).await?)
            }
        }
    }

    /// The GPUs the workloads waiting to start ask: of `project`, and of all of `department`'s
    /// projects.
    pub async fn waiting_gpus(&self, department: i64, project: Uuid) -> DbResult<(f64, f64)> {
        let sql = "SELECT COALESCE(SUM(CASE WHEN w.project_id = $2 THEN w.gpus ELSE 0.0 END), 0.0),
                          COALESCE(SUM(w.gpus), 0.0)
                     FROM workloads w JOIN projects p ON p.id = w.project_id
                    WHERE w.deleted_at IS NULL AND w.finished_at IS NULL
                      AND w.desired_phase = 'Running' AND w.pending_since IS NOT NULL
                      AND p.department_id = $1";
        Ok(on_pool!(self.0, pool => {
            sqlx::query_as(sql).bind(department).bind(project).fetch_one(pool).await
        })?)
    }

    /// The queues of `projects` (those with waiting workloads), each with the GPUs its
    /// workloads that no longer wait hold: what they all ask for (`usage_by_project`, read from
    /// the index of what may run) less what its waiting ones ask for.
    pub async fn queues(
        &self,
        projects: &[Uuid],
        waiting: &[WaitingRow],
    ) -> DbResult<Vec<QueueRow>> {
        if projects.is_empty() {
            return Ok(Vec::new());
        }
        let sql = projects_sql(projects.len());
        let rows: Vec<ProjectTuple> = on_pool!(self.0, pool => {
            let mut query = sqlx::query_as(&sql);
            for id in projects {
                query = query.bind(*id);
            }
            query.fetch_all(pool).await
        })?;
        let in_use: std::collections::HashMap<Uuid, f64> = self
            .usage_by_project()
            .await?
            .into_iter()
            .map(|(id, amount)| (id, amount.gpus))
            .collect();
        let mut waits: std::collections::HashMap<Uuid, f64> = std::collections::HashMap::new();
        for w in waiting {
            *waits.entry(w.project_id).or_default() += w.gpus;
        }
        Ok(rows
            .into_iter()
            .map(|(project_id, project_name, resources)| {
                let waits = waits.get(&project_id).copied().unwrap_or_default();
                let all = in_use.get(&project_id).copied().unwrap_or_default();
                QueueRow {
                    project_id,
                    project_name,
                    resources: resources.0,
                    allocated_gpus: (all - waits).max(0.0),
                }
            })
            .collect())
    }
}
