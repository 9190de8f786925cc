//! The workloads that hold GPUs now (may run and no longer wait), with what a start estimate
//! needs of each: its GPUs, when its run began and its time limit, read from its request inside
//! the database as ordering reads the waiting ones (`waiting.rs`).

use super::Workloads;
use super::waiting::request_fields;
use crate::db::{DbResult, on_pool};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A workload that holds GPUs now.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct HoldingRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    pub gpus: f64,
    pub running_since: Option<DateTime<Utc>>,
    pub priority_class: Option<String>,
    /// The request's `spec.nodePools`, as JSON text, if it lists any.
    pub node_pools: Option<String>,
    pub max_run_seconds: Option<i64>,
}

impl Workloads<'_> {
    /// Every workload of `cluster` that may run, has started and asks for GPUs; the conditions
    /// are those of the partial index `workloads_holding`, word for word, so both engines read it.
    pub async fn holding(&self, cluster: &str) -> DbResult<Vec<HoldingRow>> {
        let sql = format!(
            "SELECT w.id, w.project_id, w.name, w.gpus, w.running_since, {}
               FROM workloads w
              WHERE w.deleted_at IS NULL AND w.finished_at IS NULL
                AND w.desired_phase = 'Running' AND w.pending_since IS NULL
                AND w.gpus > 0 AND w.cluster_id = $1",
            request_fields(self.0.engine())
        );
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(cluster).fetch_all(pool).await)?)
    }
}
