//! Admission's side of the store: a workload that may run is written only if the limits of its
//! project and department allow it, decided inside the transaction that writes it.

use super::in_use::{Usage, amount, usage};
use super::{Change, NewWorkload, StoredWorkload, Workloads};
use crate::db::audit::record_in;
use crate::db::{DbResult, conflict_as, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::domain::quota::Amount;
use tephra_core::model::history::{AuditAction, AuditTarget};
use tephra_core::model::phase::Phase;
use tephra_core::model::workload::LiveStatus;
use uuid::Uuid;

/// A workload's request and recorded demand, as an edit reads them under the lock.
type CurrentRow = (Json<serde_json::Value>, f64, i64, i64);

/// What a verdict of admission adds to the workload's history. It is written in the transaction
/// that stores the verdict, so a workload admitted over quota or into the queue says so from the
/// moment it is admitted, and costs no second commit.
pub trait Noted {
    fn noted(&self) -> Option<Change>;
}

impl Noted for () {
    fn noted(&self) -> Option<Change> {
        None
    }
}

/// Records `$change` (a [`Change`]) in the history of workload `$id`, inside `$tx`.
macro_rules! record_change {
    ($tx:expr, $id:expr, $change:expr) => {
        record_in!(
            $tx,
            $change.actor,
            AuditAction::Workload($change.action),
            AuditTarget::Workload,
            $id,
            &$change.detail
        )
    };
}

/// Records `change` and then what `admitted` notes, inside `$tx`.
macro_rules! record_admitted {
    ($tx:expr, $id:expr, $change:expr, $admitted:expr) => {
        async {
            record_change!(&mut *$tx, $id, $change).await?;
            if let Some(note) = Noted::noted($admitted) {
                record_change!(&mut *$tx, $id, note).await?;
            }
            Ok::<(), sqlx::Error>(())
        }
    };
}

impl Workloads<'_> {
    /// Stores a new workload ([`admitted_row`]) with its `workload.submit` history entry, if
    /// `admit` accepts it given what its project and department (`department_id`) use. The
    /// department's row is locked first, so concurrent submissions in one department are checked
    /// one after another and never go over a limit together.
    pub async fn insert_admitted<T: Noted, E>(
        &self,
        new: &NewWorkload,
        department_id: i64,
        change: Change,
        admit: impl FnOnce(Usage) -> Result<T, E>,
    ) -> DbResult<Result<(StoredWorkload, T), E>> {
        let at = now();
        let workload = admitted_row(new, at);
        let verdict = write_transaction!(self.0, tx => {
            let usage = usage!(&mut tx, department_id, new.project_id);
            let verdict = admit(usage);
            if let Ok(admitted) = &verdict {
                sqlx::query(
                    "INSERT INTO workloads (id, project_id, name, requested_name, cluster_id,
                                            kind, spec, desired_phase, actual_phase,
                                            phase_reason, status, created_by, created_at,
                                            updated_at, deleted_at, job_ttl_seconds, gpus,
                                            cpu_millis, memory_mib, pending_since)
                     VALUES ($1, $2, $3, $10, $11, $4, $5, $6, $7, $18, $12, $8, $9, $9, NULL,
                             $13, $14, $15, $16, $17)",
                )
                .bind(workload.id)
                .bind(workload.project_id)
                .bind(&workload.name)
                .bind(workload.kind.as_str())
                .bind(Json(&workload.spec))
                .bind(workload.desired_phase.as_str())
                .bind(workload.actual_phase.as_str())
                .bind(workload.created_by)
                .bind(at)
                .bind(&workload.requested_name)
                .bind(&workload.cluster_id)
                .bind(Json(&workload.status))
                .bind(workload.job_ttl_seconds)
                .bind(new.demand.gpus)
                .bind(new.demand.cpu_millis)
                .bind(new.demand.memory_mib)
                .bind(workload.pending_since)
                .bind(&workload.phase_reason)
                .execute(&mut *tx)
                .await
                .map_err(conflict_as(|| format!(
                    "a workload named {:?} already exists in this project", new.name
                )))?;
                record_admitted!(tx, workload.id, change, admitted).await?;
                tx.commit().await?;
            }
            verdict
        });
        Ok(verdict.map(|admitted| (workload, admitted)))
    }

    /// Stores a new workload without limits to check (see [`Self::insert_admitted`]).
    pub async fn insert(&self, new: &NewWorkload, change: Change) -> DbResult<StoredWorkload> {
        let department_id = self.department_of(new.project_id).await?;
        let Ok((workload, ())) = self
            .insert_admitted(new, department_id, change, |_| {
                Ok::<(), std::convert::Infallible>(())
            })
            .await?;
        Ok(workload)
    }

    async fn department_of(&self, project_id: Uuid) -> DbResult<i64> {
        let sql = "SELECT department_id FROM projects WHERE id = $1";
        Ok(
            on_pool!(self.0, pool => sqlx::query_scalar(sql).bind(project_id).fetch_one(pool).await)?,
        )
    }

    /// Moves a stopped workload back to desired Running if `admit` accepts it given what its
    /// project and department use without it, recording its (re-measured) demand; as
    /// [`Self::transition`] otherwise. `Ok(None)` when another change came first.
    pub async fn resume_admitted<T: Noted, E>(
        &self,
        workload: &StoredWorkload,
        department_id: i64,
        demand: Amount,
        change: Change,
        admit: impl FnOnce(Usage) -> Result<T, E>,
    ) -> DbResult<Result<Option<T>, E>> {
        let id = workload.id;
        let verdict = write_transaction!(self.0, tx => {
            let usage = usage!(&mut tx, department_id, workload.project_id);
            match admit(usage) {
                Err(refused) => Err(refused),
                Ok(admitted) => {
                    let done = sqlx::query(
                        "UPDATE workloads SET desired_phase = $2, updated_at = $4, gpus = $5,
                                cpu_millis = $6, memory_mib = $7,
                                pending_since = COALESCE(pending_since, $4)
                          WHERE id = $1 AND desired_phase = $3 AND deleted_at IS NULL",
                    )
                    .bind(id)
                    .bind(Phase::Running.as_str())
                    .bind(Phase::Stopped.as_str())
                    .bind(now())
                    .bind(demand.gpus)
                    .bind(demand.cpu_millis)
                    .bind(demand.memory_mib)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if done == 1 {
                        record_admitted!(tx, id, change, &admitted).await?;
                        tx.commit().await?;
                    }
                    Ok((done == 1).then_some(admitted))
                }
            }
        });
        Ok(verdict)
    }

    /// Replaces the request of a workload that should run with `spec` (an edit), if it is still
    /// the request `workload` holds and still should run, and if `admit` accepts the new
    /// `demand` given what its project and department use without the workload's own use. The
    /// department's lock serializes this with every submit, resume and edit in the department,
    /// so of two edits made from the same request exactly one is stored. `Ok(None)` when
    /// another change came first.
    pub async fn edit_admitted<T: Noted, E>(
        &self,
        workload: &StoredWorkload,
        department_id: i64,
        spec: &serde_json::Value,
        demand: Amount,
        change: Change,
        admit: impl FnOnce(Usage) -> Result<T, E>,
    ) -> DbResult<Result<Option<T>, E>> {
        let id = workload.id;
        let verdict = write_transaction!(self.0, tx => {
            let mut usage = usage!(&mut tx, department_id, workload.project_id);
            let current: Option<CurrentRow> = sqlx::query_as(
                "SELECT spec, gpus, cpu_millis, memory_mib FROM workloads
                  WHERE id = $1 AND desired_phase = $2 AND finished_at IS NULL
                    AND deleted_at IS NULL",
            )
            .bind(id)
            .bind(Phase::Running.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            match current {
                Some((stored, gpus, cpu, memory)) if stored.0 == workload.spec => {
                    let own = amount((gpus, cpu, memory));
                    usage.project = usage.project.minus(own);
                    usage.department = usage.department.minus(own);
                    match admit(usage) {
                        Err(refused) => Err(refused),
                        Ok(admitted) => {
                            sqlx::query(
                                "UPDATE workloads SET spec = $2, updated_at = $3, gpus = $4,
                                        cpu_millis = $5, memory_mib = $6
                                  WHERE id = $1",
                            )
                            .bind(id)
                            .bind(Json(spec))
                            .bind(now())
                            .bind(demand.gpus)
                            .bind(demand.cpu_millis)
                            .bind(demand.memory_mib)
                            .execute(&mut *tx)
                            .await?;
                            record_admitted!(tx, id, change, &admitted).await?;
                            tx.commit().await?;
                            Ok(Some(admitted))
                        }
                    }
                }
                _ => Ok(None),
            }
        });
        Ok(verdict)
    }
}

/// The row of a new workload as admission writes it: desired Running and not yet on the cluster
/// (actual Creating), or both Stopped when it starts paused.
fn admitted_row(new: &NewWorkload, at: DateTime<Utc>) -> StoredWorkload {
    StoredWorkload {
        id: Uuid::new_v4(),
        project_id: new.project_id,
        name: new.name.clone(),
        requested_name: new.requested_name.clone(),
        cluster_id: new.cluster_id.clone(),
        kind: new.kind,
        spec: new.spec.clone(),
        // A paused workload is stored as a suspended one, so resuming it is the same act.
        desired_phase: if new.starts_paused {
            Phase::Stopped
        } else {
            Phase::Running
        },
        actual_phase: if new.starts_paused {
            Phase::Stopped
        } else {
            Phase::Creating
        },
        phase_reason: new.reason.map(str::to_owned),
        status: LiveStatus::default(),
        created_by: new.created_by,
        created_at: at,
        updated_at: at,
        deleted_at: None,
        finished_at: None,
        job_ttl_seconds: new.job_ttl_seconds,
        gpus: Some(new.demand.gpus),
        pending_seconds: 0.0,
        // It waits from the moment it is accepted, unless it starts paused.
        pending_since: (!new.starts_paused).then_some(at),
        running_since: None,
    }
}
