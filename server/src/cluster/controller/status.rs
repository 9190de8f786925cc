//! One workload's status: derived from what the index holds, written when it changed (by the
//! leader only), and broadcast to the event stream.

use super::Controller;
use crate::cluster::{event_of, publish};
use crate::db::DbError;
use crate::db::workloads::{StatusWrite, StoredWorkload};
use tephra_core::domain::diagnosis;
use tephra_core::domain::preemption;
use tephra_core::domain::status::{derive, is_final, live_status};
use tephra_core::model::live::ReconcileError;
use tephra_core::model::phase::Phase;
use uuid::Uuid;

/// How one derivation went.
enum Attempt {
    Wrote(StoredWorkload),
    /// Nothing to write: the status is what the row holds (or only a follower's broadcast).
    Unchanged(StoredWorkload),
    /// The row is gone or deleted.
    Gone,
    /// The desired phase changed between reading the row and writing.
    Raced,
}

/// How many times a status is derived again when an action changes the desired phase between
/// reading the row and writing the status.
const RACE_RETRIES: usize = 3;

impl Controller {
    /// Derives one workload's status; writes and broadcasts it when it changed. The row as it
    /// is now, or `None` when it is gone or deleted.
    pub async fn status(&self, id: Uuid) -> Result<Option<StoredWorkload>, DbError> {
        for _ in 0..RACE_RETRIES {
            match self.status_once(id).await? {
                Attempt::Raced => continue,
                Attempt::Gone => return Ok(None),
                Attempt::Unchanged(row) => return Ok(Some(row)),
                Attempt::Wrote(row) => {
                    self.pacer
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .wrote(id, tokio::time::Instant::now());
                    return Ok(Some(row));
                }
            }
        }
        tracing::debug!(workload = %id, "the desired phase kept changing; the next change derives it");
        self.live_row(id).await
    }

    /// The workload's row, unless it is deleted or gone (rows deleted by hand: the controller
    /// reports their objects as orphans).
    async fn live_row(&self, id: Uuid) -> Result<Option<StoredWorkload>, DbError> {
        match self.db.workloads().get(id).await {
            Ok(row) if row.deleted_at.is_none() => Ok(Some(row)),
            Ok(_) | Err(DbError::NotFound) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// One attempt at [`Self::status`].
    async fn status_once(&self, id: Uuid) -> Result<Attempt, DbError> {
        let Some(row) = self.live_row(id).await? else {
            self.generics.forget(id);
            return Ok(Attempt::Gone);
        };
        let entry = self
            .shared
            .index()
            .observed(id)
            .cloned()
            .unwrap_or_default();
        if is_final(row.actual_phase, &entry.observed) {
            // The Job was collected: keep the outcome and the last pods it had.
            return Ok(Attempt::Unchanged(row));
        }
        if row.actual_phase.is_finished() {
            self.generics.forget(row.id);
        }
        let derived = derive(row.desired_phase, row.actual_phase, &entry.observed);
        let mut status = live_status(&entry.observed);
        status.events = entry.events.into_iter().collect();
        status.preemption = preemption::record(
            row.status.preemption.as_ref(),
            entry.observed.preempted.as_deref(),
        );
        let newly_preempted = status.preemption.as_ref().map(|p| &p.episode)
            != row.status.preemption.as_ref().map(|p| &p.episode);
        status.reconcile_error = self.reconcile_error(&row);
        let diagnosis = diagnosis::in_phase(derived.phase, &entry.observed, &status.events);
        status.fix = diagnosis.as_ref().and_then(|d| d.fix.clone());
        let diagnosed = diagnosis.is_some();
        let reason = match (derived.phase, &status.reconcile_error) {
            // The controller's trouble explains why nothing happens yet.
            (Phase::Creating | Phase::Resuming | Phase::Stopping | Phase::Deleting, Some(e)) => {
                Some(e.message.clone())
            }
            // What the pods say is more precise than the Job's own message.
            _ => diagnosis.map(|d| d.summary).or(derived.reason),
        };
        if row.actual_phase == derived.phase && row.phase_reason == reason && row.status == status {
            return Ok(Attempt::Unchanged(row));
        }
        if !*self.leading.borrow() {
            return Ok(Attempt::Unchanged(self.show_unwritten(
                row,
                derived.phase,
                reason,
                status,
            )));
        }
        let write = StatusWrite {
            preempted: newly_preempted,
            ..StatusWrite::new(
                row.desired_phase,
                row.actual_phase,
                derived.phase,
                reason.as_deref(),
                &status,
            )
        };
        let Some(updated) = self.db.workloads().record_status(id, write).await? else {
            return Ok(Attempt::Raced);
        };
        // A new diagnosis, or the failure itself: read the logs while the pods are there.
        let failed_now = derived.phase == Phase::Failed && row.actual_phase != Phase::Failed;
        if failed_now || (diagnosed && row.phase_reason != updated.phase_reason) {
            self.keep_logs(&updated, entry.observed.pods.iter().cloned().collect());
        }
        publish(&self.events, &event_of(&updated, false));
        Ok(Attempt::Wrote(updated))
    }

    /// Keeps the last lines of the pods' logs, beside the controller so a slow read holds no
    /// reconcile (`crate::cluster::keeper`).
    fn keep_logs(&self, row: &StoredWorkload, pods: Vec<tephra_core::model::live::PodInfo>) {
        let lines = self.profile.kept_log_lines;
        if lines == 0 || pods.is_empty() {
            return;
        }
        self.keeper.ask(crate::cluster::keeper::Ask {
            id: row.id,
            project: row.project_id,
            pods,
            lines,
        });
    }

    /// A follower's derivation: broadcast to this replica's own event streams, never written.
    /// Only the leader writes status, so two replicas never race on a row or record a phase
    /// change twice; the leader sees the same cluster and writes the same status.
    fn show_unwritten(
        &self,
        mut row: StoredWorkload,
        phase: Phase,
        reason: Option<String>,
        status: tephra_core::model::workload::LiveStatus,
    ) -> StoredWorkload {
        row.actual_phase = phase;
        row.phase_reason = reason;
        row.status = status;
        publish(&self.events, &event_of(&row, false));
        row
    }

    /// The controller's error to show on the workload. Only the replica that reconciles knows its
    /// errors; another keeps what it recorded, or the two would undo each other's status.
    fn reconcile_error(&self, row: &StoredWorkload) -> Option<ReconcileError> {
        if *self.leading.borrow() {
            self.lock_backoffs().error(row.id).cloned()
        } else {
            row.status.reconcile_error.clone()
        }
    }
}
