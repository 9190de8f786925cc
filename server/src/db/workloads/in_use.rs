//! What the workloads that may run (not deleted, finished or stopped) ask for together: a
//! project's, its department's (with what the other projects lend and hold), and the cluster's.
//! Admission reads them inside its transaction (`usage!`); answers that decide nothing read them
//! without a lock (`Workloads::usage`).

use super::Workloads;
use crate::db::{DbResult, on_pool};
use sqlx::types::Json;
use tephra_core::domain::quota::{self, Allowance, Amount};
use tephra_core::model::org::PoolResources;
use uuid::Uuid;

/// What the workloads of a project and of its department that may run (not deleted, not
/// finished, not stopped) ask for together.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub project: Amount,
    pub department: Amount,
    /// Of the department's use, what its other projects take beyond their quotas (within their
    /// limits).
    pub department_lent: Amount,
    /// Of the department's use, what its other projects ask beyond their own limits: queued in
    /// their Volcano queues, so it takes none of the department's room.
    pub department_held: Amount,
    /// How many of the project's workloads wait to start (submitted or resumed, not yet
    /// running).
    pub project_waiting: u64,
}

/// What counts as use: workloads that may run (not deleted, finished or stopped).
/// What the workloads that may run ask for together, among the rows `$1` selects: written out
/// per scope (no `$1 IS NULL OR ...`) so both databases read the `workloads_in_use` index, which
/// holds only those rows, and the sums do not grow with the history a project keeps.
macro_rules! in_use_sql {
    ($scope:literal) => {
        concat!(
            "SELECT COALESCE(SUM(w.gpus), 0.0),
                    CAST(COALESCE(SUM(w.cpu_millis), 0) AS BIGINT),
                    CAST(COALESCE(SUM(w.memory_mib), 0) AS BIGINT)
               FROM workloads w
              WHERE w.deleted_at IS NULL AND w.finished_at IS NULL
                AND w.desired_phase = 'Running' ",
            $scope
        )
    };
}

pub(super) const PROJECT_USAGE_SQL: &str = in_use_sql!("AND w.project_id = $1");
pub(super) const DEPARTMENT_USAGE_SQL: &str =
    in_use_sql!("AND w.project_id IN (SELECT id FROM projects WHERE department_id = $1)");
const CLUSTER_USAGE_SQL: &str = in_use_sql!("");

/// How many workloads of a project (`$1`) that may run wait to start.
pub(super) const PROJECT_WAITING_SQL: &str = "SELECT COUNT(*) FROM workloads w
  WHERE w.deleted_at IS NULL AND w.finished_at IS NULL AND w.desired_phase = 'Running'
    AND w.project_id = $1 AND w.pending_since IS NOT NULL";

/// Each other project of a department (`$1`, not `$2`) with its resources and its use.
pub(super) const SIBLINGS_SQL: &str = "SELECT p.resources,
       (SELECT COALESCE(SUM(w.gpus), 0.0) FROM workloads w WHERE w.project_id = p.id
           AND w.deleted_at IS NULL AND w.finished_at IS NULL AND w.desired_phase = 'Running'),
       (SELECT CAST(COALESCE(SUM(w.cpu_millis), 0) AS BIGINT) FROM workloads w
         WHERE w.project_id = p.id AND w.deleted_at IS NULL AND w.finished_at IS NULL
           AND w.desired_phase = 'Running'),
       (SELECT CAST(COALESCE(SUM(w.memory_mib), 0) AS BIGINT) FROM workloads w
         WHERE w.project_id = p.id AND w.deleted_at IS NULL AND w.finished_at IS NULL
           AND w.desired_phase = 'Running')
  FROM projects p WHERE p.department_id = $1 AND p.id <> $2";

/// What a usage sum is keyed by.
#[derive(Clone, Copy)]
enum Key {
    Project(Uuid),
    Department(i64),
}

pub(super) type SiblingRow = (Json<Vec<PoolResources>>, f64, i64, i64);

/// What the siblings take beyond their quotas within their limits, and what they ask beyond
/// their limits, together.
pub(super) fn lent_and_held_by(siblings: Vec<SiblingRow>) -> (Amount, Amount) {
    siblings.into_iter().fold(
        (Amount::default(), Amount::default()),
        |(lent, held), (resources, gpus, cpu, memory)| {
            let allowance = Allowance::of(&resources.0);
            let asks = amount((gpus, cpu, memory));
            let beyond = quota::beyond_limit(asks, &allowance);
            (
                lent.plus(quota::lent(asks.minus(beyond), &allowance)),
                held.plus(beyond),
            )
        },
    )
}

pub(super) fn amount((gpus, cpu_millis, memory_mib): (f64, i64, i64)) -> Amount {
    Amount {
        gpus,
        cpu_millis,
        memory_mib,
    }
}

/// The use of a department and of one of its projects, read inside `tx` after taking the
/// department's lock: an `UPDATE` first (SQLite takes its write lock there, PostgreSQL locks the
/// row), so the sums see every admission before this one and none can come between.
macro_rules! usage {
    ($tx:expr, $department:expr, $project:expr) => {{
        sqlx::query("UPDATE departments SET updated_at = updated_at WHERE id = $1")
            .bind($department)
            .execute(&mut **$tx)
            .await?;
        let project = sqlx::query_as($crate::db::workloads::in_use::PROJECT_USAGE_SQL)
            .bind($project)
            .fetch_one(&mut **$tx)
            .await?;
        let department = sqlx::query_as($crate::db::workloads::in_use::DEPARTMENT_USAGE_SQL)
            .bind($department)
            .fetch_one(&mut **$tx)
            .await?;
        let siblings = sqlx::query_as($crate::db::workloads::in_use::SIBLINGS_SQL)
            .bind($department)
            .bind($project)
            .fetch_all(&mut **$tx)
            .await?;
        let (department_lent, department_held) =
            $crate::db::workloads::in_use::lent_and_held_by(siblings);
        let waiting: i64 = sqlx::query_scalar($crate::db::workloads::in_use::PROJECT_WAITING_SQL)
            .bind($project)
            .fetch_one(&mut **$tx)
            .await?;
        $crate::db::workloads::in_use::Usage {
            project: $crate::db::workloads::in_use::amount(project),
            department: $crate::db::workloads::in_use::amount(department),
            department_lent,
            department_held,
            project_waiting: u64::try_from(waiting).unwrap_or_default(),
        }
    }};
}
pub(super) use usage;

impl Workloads<'_> {
    /// What a department, one of its projects, and everything together use now, without a lock:
    /// for answers that decide nothing (`fit`).
    pub async fn usage(&self, department_id: i64, project_id: Uuid) -> DbResult<(Usage, Amount)> {
        let sum = |sql: &'static str, key: Option<Key>| async move {
            let row: (f64, i64, i64) = match key {
                Some(Key::Project(id)) => {
                    on_pool!(self.0, pool => sqlx::query_as(sql).bind(id).fetch_one(pool).await)?
                }
                Some(Key::Department(id)) => {
                    on_pool!(self.0, pool => sqlx::query_as(sql).bind(id).fetch_one(pool).await)?
                }
                None => on_pool!(self.0, pool => sqlx::query_as(sql).fetch_one(pool).await)?,
            };
            DbResult::Ok(amount(row))
        };
        let siblings = on_pool!(self.0, pool => sqlx::query_as(SIBLINGS_SQL)
            .bind(department_id)
            .bind(project_id)
            .fetch_all(pool)
            .await)?;
        let (department_lent, department_held) = lent_and_held_by(siblings);
        let waiting: i64 = on_pool!(self.0, pool => sqlx::query_scalar(PROJECT_WAITING_SQL)
            .bind(project_id)
            .fetch_one(pool)
            .await)?;
        let usage = Usage {
            project: sum(PROJECT_USAGE_SQL, Some(Key::Project(project_id))).await?,
            department: sum(DEPARTMENT_USAGE_SQL, Some(Key::Department(department_id))).await?,
            department_lent,
            department_held,
            project_waiting: u64::try_from(waiting).unwrap_or_default(),
        };
        Ok((usage, sum(CLUSTER_USAGE_SQL, None).await?))
    }
}
