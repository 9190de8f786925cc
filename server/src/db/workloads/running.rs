//! What the time limit needs: each workload that runs now, with its request and when its run
//! began.

use super::Workloads;
use crate::db::{DbResult, on_pool};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use uuid::Uuid;

/// A workload that runs now.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningRow {
    pub id: Uuid,
    pub kind: String,
    pub spec: serde_json::Value,
    pub running_since: DateTime<Utc>,
}

impl Workloads<'_> {
    /// Every workload of `cluster` that should run and runs now.
    pub async fn running(&self, cluster: &str) -> DbResult<Vec<RunningRow>> {
        let sql = "SELECT id, kind, spec, running_since FROM workloads
                    WHERE deleted_at IS NULL AND finished_at IS NULL
                      AND desired_phase = 'Running' AND running_since IS NOT NULL
                      AND cluster_id = $1";
        let rows: Vec<(Uuid, String, Json<serde_json::Value>, DateTime<Utc>)> =
            on_pool!(self.0, pool => sqlx::query_as(sql).bind(cluster).fetch_all(pool).await)?;
        Ok(rows
            .into_iter()
            .map(|(id, kind, spec, running_since)| RunningRow {
                id,
                kind,
                spec: spec.0,
                running_since,
            })
            .collect())
    }
}
