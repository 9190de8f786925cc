//! What the cluster reports about a workload, written in one statement: its actual phase, the
//! reason, the live status, when it finished, how long it has waited to run and when its run
//! began; with its history entries (a phase change, a preemption) in the same transaction.

use super::Workloads;
use super::{LiveStatus, RETURNED, Row, StoredWorkload};
use crate::db::audit::record_in;
use crate::db::{DbResult, Engine, now, on_pool, write_transaction};
use sqlx::types::Json;
use tephra_core::model::history::{AuditAction, AuditTarget, HistoryAction};
use tephra_core::model::phase::Phase;
use uuid::Uuid;

/// What one status write says: the phase it was derived for (`desired`), the phase it moves
/// from and to, the reason, the live status, and whether it brings a new preemption.
#[derive(Debug, Clone, Copy)]
pub struct StatusWrite<'a> {
    pub desired: Phase,
    pub from: Phase,
    pub to: Phase,
    pub reason: Option<&'a str>,
    pub status: &'a LiveStatus,
    /// Volcano evicted it since the last write: the history gets `workload.preempted`.
    pub preempted: bool,
}

impl<'a> StatusWrite<'a> {
    pub fn new(
        desired: Phase,
        from: Phase,
        to: Phase,
        reason: Option<&'a str>,
        status: &'a LiveStatus,
    ) -> Self {
        StatusWrite {
            desired,
            from,
            to,
            reason,
            status,
            preempted: false,
        }
    }
}

impl Workloads<'_> {
    /// What the cluster reports: the actual phase, its reason in plain words and the live status,
    /// in one write, with a `workload.phase` history entry when the phase changed and a
    /// `workload.preempted` one for a new preemption, in the same transaction. Written only if
    /// the desired phase is still `desired` (what the status was derived for); `None` otherwise,
    /// and the caller derives again. The first finished phase stamps `finished_at`.
    pub async fn record_status(
        &self,
        id: Uuid,
        write: StatusWrite<'_>,
    ) -> DbResult<Option<StoredWorkload>> {
        let StatusWrite {
            desired,
            from: previous,
            to: phase,
            reason,
            status,
            preempted,
        } = write;
        let at = now();
        // A wait that ends adds its seconds; one that begins is stamped ($8: it waits now).
        let sql = format!(
            "UPDATE workloads SET actual_phase = $2, phase_reason = $3, status = $4,
                    updated_at = $5,
                    finished_at = CASE WHEN $6 THEN COALESCE(finished_at, $5) ELSE NULL END,
                    pending_seconds = CASE WHEN pending_since IS NOT NULL AND NOT $8
                                           THEN pending_seconds + {elapsed}
                                           ELSE pending_seconds END,
                    pending_since = CASE WHEN $8 THEN COALESCE(pending_since, $5) ELSE NULL END,
                    running_since = CASE WHEN $2 = 'Running' THEN COALESCE(running_since, $5)
                                         ELSE NULL END
              WHERE id = $1 AND desired_phase = $7 AND deleted_at IS NULL
              RETURNING {returned}",
            elapsed = seconds_since_pending(self.0.engine()),
            returned = *RETURNED,
        );
        // The row comes back from the write itself: reading it again afterwards was one more
        // round trip on every status change. A macro, not a closure: each engine's arm below
        // needs the query typed for its own database.
        macro_rules! update {
            () => {
                sqlx::query_as::<_, Row>(&sql)
                    .bind(id)
                    .bind(phase.as_str())
                    .bind(reason)
                    .bind(Json(status))
                    .bind(at)
                    .bind(phase.is_finished())
                    .bind(desired.as_str())
                    .bind(phase.is_waiting())
            };
        }
        let written: Option<Row> = if previous == phase && !preempted {
            // Most writes change only the pods, events or reason: one statement is atomic by
            // itself, and a BEGIN and a COMMIT around it were two more round trips a write.
            let _turn = self.0.writing().await;
            on_pool!(self.0, pool => update!().fetch_optional(pool).await)?
        } else {
            let noted = preempted
                .then_some(status.preemption.as_ref())
                .flatten()
                .map(|p| serde_json::json!({ "reason": p.message, "at": p.at, "count": p.count }));
            write_transaction!(self.0, tx => {
                let row: Option<Row> = update!().fetch_optional(&mut *tx).await?;
                if row.is_some() && previous != phase {
                    let detail = serde_json::json!({ "from": previous, "to": phase, "reason": reason });
                    record_in!(&mut *tx, None::<Uuid>, AuditAction::Workload(HistoryAction::Phase), AuditTarget::Workload, id, &detail)
                        .await?;
                }
                if let (Some(_), Some(detail)) = (&row, &noted) {
                    record_in!(&mut *tx, None::<Uuid>, AuditAction::Workload(HistoryAction::Preempted), AuditTarget::Workload, id, detail)
                        .await?;
                }
                tx.commit().await?;
                row
            })
        };
        written.map(StoredWorkload::try_from).transpose()
    }
}

/// Seconds from `pending_since` to the time bound as `$5`, as each engine spells it.
fn seconds_since_pending(engine: Engine) -> &'static str {
    match engine {
        Engine::Sqlite => "(julianday($5) - julianday(pending_since)) * 86400.0",
        Engine::Postgres => "CAST(EXTRACT(EPOCH FROM ($5 - pending_since)) AS DOUBLE PRECISION)",
    }
}
