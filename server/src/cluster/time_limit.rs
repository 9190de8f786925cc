//! Trainings' time limits (`maxRunTimeSeconds`, `tephra_core::domain::time_limit`): a run that
//! reached its limit is stopped as a suspend stops it (the Job is deleted; each pod gets its
//! grace period to checkpoint), with the reason in its history and the audit trail. Volcano has
//! no such limit (volcano#2761).
//!
//! A controller beside the workloads controller, as the idle GPU rule is: only the replica that
//! leads applies it, through the same guarded transition a person's Suspend takes, so a person
//! who acted meanwhile wins.

use super::ClusterHandle;
use crate::db::workloads::{Change, RunningRow};
use crate::db::{Database, DbError};
use crate::service::workloads::stored_limit;
use std::time::Duration;
use tephra_core::domain::time_limit::{left, stop_reason};
use tephra_core::model::history::HistoryAction;
use tephra_core::model::phase::Phase;

/// How often runs are checked: a run is stopped within this of its limit (the shortest is a
/// minute).
pub const CHECK_EVERY: Duration = Duration::from_secs(5);

#[derive(Clone)]
pub struct TimeLimits {
    db: Database,
    cluster: ClusterHandle,
}

impl TimeLimits {
    pub fn new(db: Database, cluster: ClusterHandle) -> Self {
        TimeLimits { db, cluster }
    }

    /// Applies the limits every [`CHECK_EVERY`] while this replica leads, for as long as the
    /// process runs (supervised).
    pub async fn run(self) {
        self.cluster
            .every_while_leading(CHECK_EVERY, "time limits", || self.apply())
            .await
    }

    /// One pass over the running workloads; returns how many it stopped.
    async fn apply(&self) -> Result<usize, DbError> {
        let now = chrono::Utc::now();
        let mut stopped = 0;
        for run in self.db.workloads().running(&self.cluster.id).await? {
            let Some(limit) = stored_limit(&run.kind, &run.spec) else {
                continue;
            };
            let ran = (now - run.running_since).num_milliseconds() as f64 / 1000.0;
            if left(limit, ran) == 0 && self.stop(&run, limit).await? {
                stopped += 1;
            }
        }
        Ok(stopped)
    }

    async fn stop(&self, run: &RunningRow, limit: i64) -> Result<bool, DbError> {
        let change = Change {
            actor: None,
            action: HistoryAction::TimeLimit,
            detail: serde_json::json!({
                "from": Phase::Running,
                "to": Phase::Stopped,
                "reason": stop_reason(limit),
                "rule": "maxRunTimeSeconds",
                "limitSeconds": limit,
            }),
        };
        let won = self
            .db
            .workloads()
            .transition(run.id, Phase::Running, Phase::Stopped, change)
            .await?;
        if won.is_some() {
            self.cluster.poke(run.id);
            tracing::info!(workload = %run.id, limit_seconds = limit, "stopped a workload at its time limit");
        }
        Ok(won.is_some())
    }
}
