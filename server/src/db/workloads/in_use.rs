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

/// What every workload that may run (not deleted, finished or stopped) asks for together.
const CLUSTER_USAGE_SQL: &str = "SELECT COALESCE(SUM(w.gpus), 0.0),
       CAST(COALESCE(SUM(w.cpu_millis), 0) AS BIGINT),
       CAST(COALESCE(SUM(w.memory_mib), 0) AS BIGINT)
  FROM workloads w
 WHERE w.deleted_at IS NULL AND w.finished_at IS NULL AND w.desired_phase = 'Running'";

/// A project's (`$1`) use, and how many of its workloads that may run wait to start, in one
/// statement: admission's transaction makes one round trip for both. Its conditions are the
/// `workloads_in_use` index's, so the sums do not grow with the history a project keeps.
///
/// It reads the project's row too, and answers no row when the project is no longer in department
/// `$2`: a submit that looked the project up before a delete took the department's lock finds
/// it gone here, not on the workload's reference to it.
pub(super) const PROJECT_USE_SQL: &str = "SELECT COALESCE(SUM(w.gpus), 0.0),
       CAST(COALESCE(SUM(w.cpu_millis), 0) AS BIGINT),
       CAST(COALESCE(SUM(w.memory_mib), 0) AS BIGINT),
       COUNT(w.pending_since)
  FROM projects p
  LEFT JOIN workloads w ON w.project_id = p.id AND w.deleted_at IS NULL
       AND w.finished_at IS NULL AND w.desired_phase = 'Running'
 WHERE p.id = $1 AND p.department_id = $2
 GROUP BY p.id";

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

pub(super) type SiblingRow = (Json<Vec<PoolResources>>, f64, i64, i64);
/// A project's use ([`PROJECT_USE_SQL`]): the sums, then how many wait to start.
pub(super) type ProjectRow = (f64, i64, i64, i64);

/// The use of a project and of its department, from the project's row and each of its
/// siblings': the department's use is theirs together, so it needs no statement of its own.
pub(super) fn usage_of(project: ProjectRow, siblings: Vec<SiblingRow>) -> Usage {
    let (gpus, cpu, memory, waiting) = project;
    let project = amount((gpus, cpu, memory));
    let (department, department_lent, department_held) = siblings.into_iter().fold(
        (project, Amount::default(), Amount::default()),
        |(all, lent, held), (resources, gpus, cpu, memory)| {
            let allowance = Allowance::of(&resources.0);
            let asks = amount((gpus, cpu, memory));
            let beyond = quota::beyond_limit(asks, &allowance);
            (
                all.plus(asks),
                lent.plus(quota::lent(asks.minus(beyond), &allowance)),
                held.plus(beyond),
            )
        },
    );
    Usage {
        project,
        department,
        department_lent,
        department_held,
        project_waiting: u64::try_from(waiting).unwrap_or_default(),
    }
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
/// row), so the sums see every admission before this one and none can come between. Returns
/// `DbError::NotFound` from the function it is in when the project has left the department
/// (deleted, as a project's delete takes the same lock first).
macro_rules! usage {
    ($tx:expr, $department:expr, $project:expr) => {{
        sqlx::query($crate::db::departments::LOCK_SQL)
            .bind($department)
            .execute(&mut **$tx)
            .await?;
        let project: Option<$crate::db::workloads::in_use::ProjectRow> =
            sqlx::query_as($crate::db::workloads::in_use::PROJECT_USE_SQL)
                .bind($project)
                .bind($department)
                .fetch_optional(&mut **$tx)
                .await?;
        let Some(project) = project else {
            return Err($crate::db::DbError::NotFound);
        };
        let siblings = sqlx::query_as($crate::db::workloads::in_use::SIBLINGS_SQL)
            .bind($department)
            .bind($project)
            .fetch_all(&mut **$tx)
            .await?;
        $crate::db::workloads::in_use::usage_of(project, siblings)
    }};
}
pub(super) use usage;

impl Workloads<'_> {
    /// What a department, one of its projects, and everything together use now, without a lock:
    /// for answers that decide nothing (`fit`).
    pub async fn usage(&self, department_id: i64, project_id: Uuid) -> DbResult<(Usage, Amount)> {
        let project = on_pool!(self.0, pool => sqlx::query_as(PROJECT_USE_SQL)
            .bind(project_id)
            .bind(department_id)
            .fetch_one(pool)
            .await)?;
        let siblings = on_pool!(self.0, pool => sqlx::query_as(SIBLINGS_SQL)
            .bind(department_id)
            .bind(project_id)
            .fetch_all(pool)
            .await)?;
        let cluster: (f64, i64, i64) =
            on_pool!(self.0, pool => sqlx::query_as(CLUSTER_USAGE_SQL).fetch_one(pool).await)?;
        Ok((usage_of(project, siblings), amount(cluster)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tephra_core::model::org::{PoolRef, Share};

    fn gpus_within(deserved: f64, limit: f64) -> Json<Vec<PoolResources>> {
        Json(vec![PoolResources {
            node_pool: PoolRef {
                id: None,
                name: "default".into(),
            },
            gpu: Share {
                deserved: Some(deserved),
                limit: Some(limit),
                over_quota_weight: Some(1),
            },
            cpu: Share::default(),
            memory: Share::default(),
        }])
    }

    #[test]
    fn the_department_uses_what_the_project_and_its_siblings_ask_together() {
        // The project asks 2 GPUs (1 waiting); one sibling 5 within a quota of 2 and a limit of
        // 4, another 1 within a quota of 2.
        let usage = usage_of(
            (2.0, 500, 1024, 1),
            vec![
                (gpus_within(2.0, 4.0), 5.0, 0, 0),
                (gpus_within(2.0, 8.0), 1.0, 250, 0),
            ],
        );
        assert_eq!(usage.project, amount((2.0, 500, 1024)));
        assert_eq!(usage.department, amount((8.0, 750, 1024)));
        // 5 asked with a limit of 4: 1 held in its queue; of the 4 it may place, 2 beyond quota.
        assert_eq!(usage.department_held, amount((1.0, 0, 0)));
        assert_eq!(usage.department_lent.gpus, 2.0);
        assert_eq!(usage.project_waiting, 1);
    }

    #[test]
    fn a_department_with_no_other_project_uses_what_the_project_does() {
        let usage = usage_of((1.5, 0, 0, 0), Vec::new());
        assert_eq!(usage.department, usage.project);
        assert_eq!(usage.department_lent, Amount::default());
        assert_eq!(usage.department_held, Amount::default());
    }
}
