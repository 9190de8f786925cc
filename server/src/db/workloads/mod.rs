//! Workloads: the system of record for trainings. A row holds what the user asked for (the spec
//! and the desired phase) and what the cluster last reported (the actual phase and its reason).

mod admission;
mod holding;
mod in_use;
mod kept;
mod order;
mod query;
mod running;
mod status;
mod usage;
mod waiting;

pub use admission::Noted;
pub use holding::HoldingRow;
pub use in_use::Usage;
pub use order::{After, Keyset, SortKey};
pub use query::WorkloadFilter;
pub use running::RunningRow;
pub use status::StatusWrite;
pub use usage::UserUsage;
pub use waiting::{QueueRow, WaitingRow};

use super::audit::record_in;
use super::{DbError, DbResult, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::domain::quota::Amount;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::history::{AuditAction, AuditTarget, HistoryAction};
use tephra_core::model::phase::Phase;
use tephra_core::model::workload::LiveStatus;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq)]
pub struct StoredWorkload {
    pub id: Uuid,
    pub project_id: Uuid,
    /// The Volcano Job's name: fixed when the request is accepted, so creating the Job is
    /// idempotent and a restart never makes a second one.
    pub name: String,
    /// The name as the user asked for it (without the suffix of `useGivenNameAsPrefix`).
    pub requested_name: String,
    pub cluster_id: String,
    pub kind: WorkloadKind,
    /// The request as the user sent it (validated), kept verbatim so it can be re-rendered.
    pub spec: serde_json::Value,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    /// Why the workload is in its actual phase, in plain words (e.g. the scheduler's reason).
    pub phase_reason: Option<String>,
    /// What the watchers last derived from the cluster.
    pub status: LiveStatus,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub deleted_at: Option<DateTime<Utc>>,
    /// When it first reached Completed or Failed; from then on it never runs again.
    pub finished_at: Option<DateTime<Utc>>,
    /// How long its Volcano Job may outlive the finish before Tephra deletes it
    /// (`autoDeletionTimeAfterCompletionSeconds`).
    pub job_ttl_seconds: Option<i64>,
    /// GPUs of all its pods together, measured from the checked request when it was stored
    /// (and at each edit), so a read never parses the request again; `None` for a row deleted
    /// before measuring existed.
    pub gpus: Option<f64>,
    /// Seconds of the waits to run that ended ([`Phase::is_waiting`]).
    pub pending_seconds: f64,
    /// When the current wait began; `None` while it does not wait.
    pub pending_since: Option<DateTime<Utc>>,
    /// When the current run began; `None` while it does not run.
    pub running_since: Option<DateTime<Utc>>,
}

impl StoredWorkload {
    /// How long it has waited to run in all, up to `now`.
    pub fn pending_time(&self, now: DateTime<Utc>) -> f64 {
        let current = self.pending_since.map_or(0.0, |since| {
            (now - since).num_milliseconds().max(0) as f64 / 1000.0
        });
        self.pending_seconds + current
    }
}

/// Who changes a workload and why: recorded in its history in the same transaction as the change.
#[derive(Debug, Clone)]
pub struct Change {
    /// `None` for Tephra itself (the controller, or what the cluster did).
    pub actor: Option<Uuid>,
    pub action: HistoryAction,
    pub detail: serde_json::Value,
}

/// A workload with the names a list shows beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadListing {
    pub workload: StoredWorkload,
    pub project_name: String,
    /// The project's Run:ai id.
    pub project_number: i64,
    pub department_id: i64,
    pub creator_name: String,
}

#[derive(Debug, Clone)]
pub struct NewWorkload {
    pub project_id: Uuid,
    pub name: String,
    pub requested_name: String,
    pub cluster_id: String,
    pub kind: WorkloadKind,
    pub spec: serde_json::Value,
    pub created_by: Uuid,
    pub job_ttl_seconds: Option<i64>,
    /// Stored suspended, to run once resumed (a generic job's pause mode).
    pub starts_paused: bool,
    /// What all its pods ask for together; counted against its project's and department's
    /// limits while it may run.
    pub demand: Amount,
    /// Why it waits from the moment it is stored (no cluster is configured), shown until the
    /// controller says otherwise. Stored with the row: a status written after it was one more
    /// transaction on every such submit.
    pub reason: Option<&'static str>,
}

/// The fields the controller needs of every live workload, without the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intent {
    pub id: Uuid,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    pub finished_at: Option<DateTime<Utc>>,
    pub job_ttl_seconds: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct IntentRow {
    id: Uuid,
    desired_phase: String,
    actual_phase: String,
    finished_at: Option<DateTime<Utc>>,
    job_ttl_seconds: Option<i64>,
}

impl IntentRow {
    /// The intent, unless a phase is one Tephra never writes (a row edited by hand): that row is
    /// logged and left alone rather than stopping the controller for every other workload.
    fn intent(self) -> Option<Intent> {
        match (
            parse_phase(&self.desired_phase),
            parse_phase(&self.actual_phase),
        ) {
            (Ok(desired_phase), Ok(actual_phase)) => Some(Intent {
                id: self.id,
                desired_phase,
                actual_phase,
                finished_at: self.finished_at,
                job_ttl_seconds: self.job_ttl_seconds,
            }),
            (Err(e), _) | (_, Err(e)) => {
                tracing::error!(workload = %self.id, error = %e, "a stored phase is unknown");
                None
            }
        }
    }
}

#[derive(sqlx::FromRow)]
struct Row {
    id: Uuid,
    project_id: Uuid,
    name: String,
    requested_name: String,
    cluster_id: String,
    kind: String,
    spec: Json<serde_json::Value>,
    desired_phase: String,
    actual_phase: String,
    phase_reason: Option<String>,
    status: Json<serde_json::Value>,
    created_by: Uuid,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    deleted_at: Option<DateTime<Utc>>,
    finished_at: Option<DateTime<Utc>>,
    job_ttl_seconds: Option<i64>,
    gpus: Option<f64>,
    pending_seconds: f64,
    pending_since: Option<DateTime<Utc>>,
    running_since: Option<DateTime<Utc>>,
}

#[derive(sqlx::FromRow)]
struct ListingRow {
    #[sqlx(flatten)]
    row: Row,
    project_name: String,
    project_number: i64,
    department_id: i64,
    creator_name: String,
}

fn parse_phase(s: &str) -> DbResult<Phase> {
    s.parse().map_err(|e| DbError::Corrupt(format!("{e}")))
}

impl TryFrom<Row> for StoredWorkload {
    type Error = DbError;

    fn try_from(r: Row) -> DbResult<Self> {
        Ok(StoredWorkload {
            id: r.id,
            project_id: r.project_id,
            name: r.name,
            requested_name: r.requested_name,
            cluster_id: r.cluster_id,
            kind: WorkloadKind::parse(&r.kind)
                .ok_or_else(|| DbError::Corrupt(format!("unknown workload kind {:?}", r.kind)))?,
            spec: r.spec.0,
            desired_phase: parse_phase(&r.desired_phase)?,
            actual_phase: parse_phase(&r.actual_phase)?,
            phase_reason: r.phase_reason,
            // A status written by an older version that no longer parses is shown as empty; the
            // watchers write a fresh one at the next change.
            status: serde_json::from_value(r.status.0).unwrap_or_default(),
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
            deleted_at: r.deleted_at,
            finished_at: r.finished_at,
            job_ttl_seconds: r.job_ttl_seconds,
            gpus: r.gpus,
            pending_seconds: r.pending_seconds,
            pending_since: r.pending_since,
            running_since: r.running_since,
        })
    }
}

const COLUMNS: &str = "w.id, w.project_id, w.name, w.requested_name, w.cluster_id, w.kind, w.spec, \
                       w.desired_phase, w.actual_phase, w.phase_reason, w.status, w.created_by, \
                       w.created_at, w.updated_at, w.deleted_at, w.finished_at, w.job_ttl_seconds, \
                       w.gpus, w.pending_seconds, w.pending_since, w.running_since";

/// [`COLUMNS`] as a write's `RETURNING` names them: SQLite does not take the table's alias there.
static RETURNED: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| COLUMNS.replace("w.", ""));

pub struct Workloads<'a>(pub(super) &'a super::Database);

impl Workloads<'_> {
    /// Gives the workloads recorded under cluster `from` the id `to` (the cluster's id changed
    /// form, not the cluster).
    pub async fn move_to_cluster(&self, from: &str, to: &str) -> DbResult<u64> {
        Ok(on_pool!(self.0, pool => sqlx::query(
            "UPDATE workloads SET cluster_id = $2 WHERE cluster_id = $1"
        )
        .bind(from)
        .bind(to)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?)
    }

    /// The workload with this id, deleted or not.
    pub async fn get(&self, id: Uuid) -> DbResult<StoredWorkload> {
        let sql = format!("SELECT {COLUMNS} FROM workloads w WHERE w.id = $1");
        let row: Row =
            on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?;
        row.try_into()
    }

    /// Live workloads whose Job name starts with `prefix` (what an exposed URL's host keeps of
    /// the name), oldest first, at most `limit`.
    pub async fn live_by_name_prefix(
        &self,
        prefix: &str,
        limit: i64,
    ) -> DbResult<Vec<StoredWorkload>> {
        // substr rather than LIKE: a name's `_` would be a wildcard there.
        let length = i32::try_from(prefix.len()).unwrap_or(i32::MAX);
        let sql = format!(
            "SELECT {COLUMNS} FROM workloads w
              WHERE w.deleted_at IS NULL AND substr(w.name, 1, $2) = $1
              ORDER BY w.created_at LIMIT $3"
        );
        let rows: Vec<Row> = on_pool!(self.0, pool => sqlx::query_as(&sql)
            .bind(prefix)
            .bind(length)
            .bind(limit)
            .fetch_all(pool)
            .await)?;
        rows.into_iter().map(StoredWorkload::try_from).collect()
    }

    /// Every live workload's desired and actual phase: what the controller compares with the
    /// cluster.
    pub async fn intents(&self) -> DbResult<Vec<Intent>> {
        let sql = "SELECT id, desired_phase, actual_phase, finished_at, job_ttl_seconds
                     FROM workloads WHERE deleted_at IS NULL";
        let rows: Vec<IntentRow> =
            on_pool!(self.0, pool => sqlx::query_as(sql).fetch_all(pool).await)?;
        Ok(rows.into_iter().filter_map(IntentRow::intent).collect())
    }

    /// Moves what the user wants (Running, Stopped, Deleting) from `from` to `to`, with its
    /// history entry, in one transaction, only if the desired phase is still `from`: of two
    /// racing actions exactly one wins. `None` when another change came first (or the workload is
    /// gone); the caller reads the row again to say what it is now.
    pub async fn transition(
        &self,
        id: Uuid,
        from: Phase,
        to: Phase,
        change: Change,
    ) -> DbResult<Option<StoredWorkload>> {
        let sql = format!(
            "UPDATE workloads SET desired_phase = $2, updated_at = $4
              WHERE id = $1 AND desired_phase = $3 AND deleted_at IS NULL
              RETURNING {}",
            *RETURNED
        );
        let won: Option<Row> = write_transaction!(self.0, tx => {
            let row: Option<Row> = sqlx::query_as(&sql)
                .bind(id)
                .bind(to.as_str())
                .bind(from.as_str())
                .bind(now())
                .fetch_optional(&mut *tx)
                .await?;
            if row.is_some() {
                record_in!(&mut *tx, change.actor, AuditAction::Workload(change.action), AuditTarget::Workload, id, &change.detail)
                    .await?;
                tx.commit().await?;
            }
            row
        });
        won.map(StoredWorkload::try_from).transpose()
    }

    /// Marks a workload whose deletion was asked for deleted, with its history entry; the row
    /// stays for history and frees its name. `None` when it is not being deleted (any more).
    pub async fn mark_deleted(&self, id: Uuid) -> DbResult<Option<StoredWorkload>> {
        let sql = format!(
            "UPDATE workloads SET deleted_at = $2, updated_at = $2
              WHERE id = $1 AND deleted_at IS NULL AND desired_phase = $3
              RETURNING {}",
            *RETURNED
        );
        let done: Option<Row> = write_transaction!(self.0, tx => {
            let row: Option<Row> = sqlx::query_as(&sql)
                .bind(id)
                .bind(now())
                .bind(Phase::Deleting.as_str())
                .fetch_optional(&mut *tx)
                .await?;
            if row.is_some() {
                let detail = serde_json::json!({});
                record_in!(&mut *tx, None::<Uuid>, AuditAction::Workload(HistoryAction::Deleted), AuditTarget::Workload, id, &detail)
                    .await?;
                tx.commit().await?;
            }
            row
        });
        // The row comes back from the write itself, as a status write's does.
        done.map(StoredWorkload::try_from).transpose()
    }
}
