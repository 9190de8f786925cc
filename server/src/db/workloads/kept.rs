//! The kept log tails of failed trainings (`kept_logs`, `tephra_core::model::kept`): replaced
//! whole each time the keeper reads a workload's logs, read by its page and the API, and dropped
//! after the retention or once the workload is deleted.

use super::Workloads;
use crate::db::{DbResult, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::model::kept::{KeptLog, LogHint};
use uuid::Uuid;

type KeptRow = (
    String,
    String,
    bool,
    Json<Vec<String>>,
    Json<Vec<LogHint>>,
    DateTime<Utc>,
);

impl Workloads<'_> {
    /// Replaces what is kept of workload `id`'s logs with `logs`, read at `at`.
    pub async fn keep_logs(&self, id: Uuid, logs: &[KeptLog], at: DateTime<Utc>) -> DbResult<()> {
        write_transaction!(self.0, tx => {
            sqlx::query("DELETE FROM kept_logs WHERE workload_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            for log in logs {
                sqlx::query(
                    "INSERT INTO kept_logs (workload_id, pod, container, previous, lines, hints,
                                            taken_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(id)
                .bind(&log.pod)
                .bind(&log.container)
                .bind(log.previous)
                .bind(Json(&log.lines))
                .bind(Json(&log.hints))
                .bind(at)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// What is kept of workload `id`'s logs, by pod and container.
    pub async fn kept_logs(&self, id: Uuid) -> DbResult<Vec<KeptLog>> {
        let sql = "SELECT pod, container, previous, lines, hints, taken_at FROM kept_logs
                    WHERE workload_id = $1 ORDER BY pod, container";
        let rows: Vec<KeptRow> =
            on_pool!(self.0, pool => sqlx::query_as(sql).bind(id).fetch_all(pool).await)?;
        Ok(rows
            .into_iter()
            .map(
                |(pod, container, previous, lines, hints, taken_at)| KeptLog {
                    pod,
                    container,
                    previous,
                    lines: lines.0,
                    taken_at: taken_at.to_rfc3339(),
                    hints: hints.0,
                },
            )
            .collect())
    }

    /// Drops what was kept before `before`, and what is kept of deleted workloads; how many
    /// containers' tails went.
    pub async fn forget_kept_logs(&self, before: DateTime<Utc>) -> DbResult<u64> {
        let sql = "DELETE FROM kept_logs
                    WHERE taken_at < $1
                       OR workload_id IN (SELECT id FROM workloads WHERE deleted_at IS NOT NULL)";
        Ok(on_pool!(self.0, pool => {
            sqlx::query(sql).bind(before).execute(pool).await?.rows_affected()
        }))
    }
}
