//! Workloads: the system of record for trainings. A row holds what the user asked for (the spec
//! and the desired phase) and what the cluster last reported (the actual phase and its reason).

use super::{DbError, DbResult, conflict_as, now, on_pool};
use app::model::phase::Phase;
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkloadKind {
    Training,
    Distributed,
}

impl WorkloadKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::Training => "training",
            WorkloadKind::Distributed => "distributed",
        }
    }

    fn parse(s: &str) -> DbResult<Self> {
        match s {
            "training" => Ok(WorkloadKind::Training),
            "distributed" => Ok(WorkloadKind::Distributed),
            other => Err(DbError::Corrupt(format!("unknown workload kind {other:?}"))),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    pub kind: WorkloadKind,
    /// The request as the user sent it (validated), kept verbatim so it can be re-rendered.
    pub spec: serde_json::Value,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    /// Why the workload is in its actual phase, in plain words (e.g. the scheduler's reason).
    pub phase_reason: Option<String>,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub deleted_at: Option<DateTime<Utc>>,
}

/// A workload with the names a list shows beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadListing {
    pub workload: Workload,
    pub project_name: String,
    pub creator_name: String,
}

#[derive(Debug, Clone)]
pub struct NewWorkload {
    pub project_id: Uuid,
    pub name: String,
    pub kind: WorkloadKind,
    pub spec: serde_json::Value,
    pub created_by: Uuid,
}

/// Which workloads to list. The default is every live workload, newest first.
#[derive(Debug, Clone, Default)]
pub struct WorkloadFilter {
    pub project_id: Option<Uuid>,
    pub include_deleted: bool,
    pub limit: Option<i64>,
    pub offset: i64,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: Uuid,
    project_id: Uuid,
    name: String,
    kind: String,
    spec: Json<serde_json::Value>,
    desired_phase: String,
    actual_phase: String,
    phase_reason: Option<String>,
    created_by: Uuid,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    deleted_at: Option<DateTime<Utc>>,
}

#[derive(sqlx::FromRow)]
struct ListingRow {
    #[sqlx(flatten)]
    row: Row,
    project_name: String,
    creator_name: String,
}

fn parse_phase(s: &str) -> DbResult<Phase> {
    s.parse().map_err(|e| DbError::Corrupt(format!("{e}")))
}

impl TryFrom<Row> for Workload {
    type Error = DbError;

    fn try_from(r: Row) -> DbResult<Self> {
        Ok(Workload {
            id: r.id,
            project_id: r.project_id,
            name: r.name,
            kind: WorkloadKind::parse(&r.kind)?,
            spec: r.spec.0,
            desired_phase: parse_phase(&r.desired_phase)?,
            actual_phase: parse_phase(&r.actual_phase)?,
            phase_reason: r.phase_reason,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
            deleted_at: r.deleted_at,
        })
    }
}

const COLUMNS: &str = "w.id, w.project_id, w.name, w.kind, w.spec, w.desired_phase, w.actual_phase, \
                       w.phase_reason, w.created_by, w.created_at, w.updated_at, w.deleted_at";

pub struct Workloads<'a>(pub(super) &'a super::Database);

impl Workloads<'_> {
    /// Stores a new workload that should run (desired Running) and has not reached the cluster yet
    /// (actual Creating).
    pub async fn insert(&self, new: &NewWorkload) -> DbResult<Workload> {
        let at = now();
        let workload = Workload {
            id: Uuid::new_v4(),
            project_id: new.project_id,
            name: new.name.clone(),
            kind: new.kind,
            spec: new.spec.clone(),
            desired_phase: Phase::Running,
            actual_phase: Phase::Creating,
            phase_reason: None,
            created_by: new.created_by,
            created_at: at,
            updated_at: at,
            deleted_at: None,
        };
        on_pool!(self.0, pool => sqlx::query(
            "INSERT INTO workloads (id, project_id, name, kind, spec, desired_phase, actual_phase,
                                    phase_reason, created_by, created_at, updated_at, deleted_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, $9, NULL)",
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
        .execute(pool)
        .await
        .map(|done| done.rows_affected())
        .map_err(conflict_as(|| format!(
            "a workload named {:?} already exists in this project", new.name
        ))))?;
        Ok(workload)
    }

    /// The workload with this id, deleted or not.
    pub async fn get(&self, id: Uuid) -> DbResult<Workload> {
        let sql = format!("SELECT {COLUMNS} FROM workloads w WHERE w.id = $1");
        let row: Row =
            on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?;
        row.try_into()
    }

    /// Workloads matching `filter`, newest first, with their project and creator names.
    pub async fn list(&self, filter: &WorkloadFilter) -> DbResult<Vec<WorkloadListing>> {
        let sql = format!(
            "SELECT {COLUMNS}, p.name AS project_name, u.display_name AS creator_name
               FROM workloads w
               JOIN projects p ON p.id = w.project_id
               JOIN users u ON u.id = w.created_by
              WHERE ($1 OR w.deleted_at IS NULL)
                AND ($2 IS NULL OR w.project_id = $2)
              ORDER BY w.created_at DESC, w.id
              LIMIT $3 OFFSET $4"
        );
        let limit = filter.limit.unwrap_or(i64::MAX);
        let rows: Vec<ListingRow> = on_pool!(self.0, pool => sqlx::query_as(&sql)
            .bind(filter.include_deleted)
            .bind(filter.project_id)
            .bind(limit)
            .bind(filter.offset)
            .fetch_all(pool)
            .await)?;
        rows.into_iter()
            .map(|r| {
                Ok(WorkloadListing {
                    workload: r.row.try_into()?,
                    project_name: r.project_name,
                    creator_name: r.creator_name,
                })
            })
            .collect()
    }

    /// What the user wants (Running, Stopped, Deleting). Returns the updated workload.
    pub async fn set_desired_phase(&self, id: Uuid, phase: Phase) -> DbResult<Workload> {
        let done = on_pool!(self.0, pool => sqlx::query(
            "UPDATE workloads SET desired_phase = $2, updated_at = $3 WHERE id = $1",
        )
        .bind(id)
        .bind(phase.as_str())
        .bind(now())
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?;
        exactly_one(done)?;
        self.get(id).await
    }

    /// What the cluster reports, with the reason in plain words. Returns the updated workload.
    pub async fn set_actual_phase(
        &self,
        id: Uuid,
        phase: Phase,
        reason: Option<&str>,
    ) -> DbResult<Workload> {
        let done = on_pool!(self.0, pool => sqlx::query(
            "UPDATE workloads SET actual_phase = $2, phase_reason = $3, updated_at = $4 WHERE id = $1",
        )
        .bind(id)
        .bind(phase.as_str())
        .bind(reason)
        .bind(now())
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?;
        exactly_one(done)?;
        self.get(id).await
    }

    /// Marks the workload deleted; the row stays for history and frees its name.
    pub async fn mark_deleted(&self, id: Uuid) -> DbResult<Workload> {
        let at = now();
        let done = on_pool!(self.0, pool => sqlx::query(
            "UPDATE workloads SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind(id)
        .bind(at)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?;
        exactly_one(done)?;
        self.get(id).await
    }

    /// Live workloads by actual phase; phases without any are left out.
    pub async fn count_by_phase(&self) -> DbResult<Vec<(Phase, i64)>> {
        let sql = "SELECT actual_phase, COUNT(*) FROM workloads WHERE deleted_at IS NULL
                    GROUP BY actual_phase ORDER BY actual_phase";
        let rows: Vec<(String, i64)> =
            on_pool!(self.0, pool => sqlx::query_as(sql).fetch_all(pool).await)?;
        rows.into_iter()
            .map(|(phase, n)| Ok((parse_phase(&phase)?, n)))
            .collect()
    }
}

fn exactly_one(rows_affected: u64) -> DbResult<()> {
    if rows_affected == 0 {
        Err(DbError::NotFound)
    } else {
        Ok(())
    }
}
