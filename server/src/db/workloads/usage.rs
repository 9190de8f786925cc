//! Who uses what: a project's workloads that may run, by the user who submitted them, split into
//! what the scheduler has placed and what still waits; each project's together; and the demand
//! recorded on each row.

use super::Workloads;
use super::in_use::amount;
use crate::db::{DbResult, on_pool};
use sqlx::types::Json;
use tephra_core::domain::quota::Amount;
use uuid::Uuid;

/// One user's workloads in a project that may run (not deleted, finished or stopped).
#[derive(Debug, Clone, PartialEq)]
pub struct UserUsage {
    pub user_id: Uuid,
    pub user: String,
    pub workloads: i64,
    /// Of workloads whose pods are placed (Initializing or Running).
    pub allocated: Amount,
    /// Of the others: admitted, waiting for the scheduler.
    pub pending: Amount,
}

/// Sums by user and by whether the pods are placed; a user has up to two rows.
const BY_USER_SQL: &str = "SELECT u.id, u.display_name,
        CAST(CASE WHEN w.actual_phase IN ('Running', 'Initializing') THEN 1 ELSE 0 END AS BIGINT),
        CAST(COUNT(*) AS BIGINT),
        COALESCE(SUM(w.gpus), 0.0),
        CAST(COALESCE(SUM(w.cpu_millis), 0) AS BIGINT),
        CAST(COALESCE(SUM(w.memory_mib), 0) AS BIGINT)
   FROM workloads w JOIN users u ON u.id = w.created_by
  WHERE w.project_id = $1 AND w.deleted_at IS NULL AND w.finished_at IS NULL
    AND w.desired_phase = 'Running'
  GROUP BY u.id, u.display_name, 3
  ORDER BY u.display_name, u.id";

type ByUserRow = (Uuid, String, i64, i64, f64, i64, i64);

const BY_PROJECT_AND_PHASE_SQL: &str = "SELECT p.name, w.actual_phase, CAST(COUNT(*) AS BIGINT)
   FROM workloads w JOIN projects p ON p.id = w.project_id
  WHERE w.deleted_at IS NULL
  GROUP BY p.name, w.actual_phase
  ORDER BY p.name, w.actual_phase";

impl Workloads<'_> {
    /// How many live workloads each project has in each actual phase (for `/metrics`).
    pub async fn count_by_project_and_phase(&self) -> DbResult<Vec<(String, String, i64)>> {
        Ok(
            on_pool!(self.0, pool => sqlx::query_as(BY_PROJECT_AND_PHASE_SQL)
            .fetch_all(pool)
            .await)?,
        )
    }

    /// Each user's use of a project, by name; users with nothing that may run are left out.
    pub async fn usage_by_user(&self, project_id: Uuid) -> DbResult<Vec<UserUsage>> {
        let rows: Vec<ByUserRow> = on_pool!(self.0, pool => sqlx::query_as(BY_USER_SQL)
            .bind(project_id)
            .fetch_all(pool)
            .await)?;
        Ok(by_user(rows))
    }

    /// What each project's workloads that may run ask for together, by project.
    pub async fn usage_by_project(&self) -> DbResult<Vec<(Uuid, Amount)>> {
        let sql = "SELECT w.project_id, COALESCE(SUM(w.gpus), 0.0),
                          CAST(COALESCE(SUM(w.cpu_millis), 0) AS BIGINT),
                          CAST(COALESCE(SUM(w.memory_mib), 0) AS BIGINT)
                     FROM workloads w
                    WHERE w.deleted_at IS NULL AND w.finished_at IS NULL
                      AND w.desired_phase = 'Running'
                    GROUP BY w.project_id";
        let rows: Vec<(Uuid, f64, i64, i64)> =
            on_pool!(self.0, pool => sqlx::query_as(sql).fetch_all(pool).await)?;
        Ok(rows
            .into_iter()
            .map(|(id, gpus, cpu, memory)| (id, amount((gpus, cpu, memory))))
            .collect())
    }

    /// Live workloads whose demand is not recorded (stored before quotas), with their kind and
    /// request, to measure once at start-up.
    pub async fn unmeasured(&self) -> DbResult<Vec<(Uuid, String, Json<serde_json::Value>)>> {
        let sql = "SELECT id, kind, spec FROM workloads WHERE deleted_at IS NULL AND gpus IS NULL";
        Ok(on_pool!(self.0, pool => sqlx::query_as(sql).fetch_all(pool).await)?)
    }

    pub async fn set_demand(&self, id: Uuid, demand: Amount) -> DbResult<()> {
        on_pool!(self.0, pool => sqlx::query(
            "UPDATE workloads SET gpus = $2, cpu_millis = $3, memory_mib = $4 WHERE id = $1"
        )
        .bind(id)
        .bind(demand.gpus)
        .bind(demand.cpu_millis)
        .bind(demand.memory_mib)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))?;
        Ok(())
    }
}

fn by_user(rows: Vec<ByUserRow>) -> Vec<UserUsage> {
    let mut users: Vec<UserUsage> = Vec::new();
    for (user_id, user, placed, workloads, gpus, cpu_millis, memory_mib) in rows {
        let amount = Amount {
            gpus,
            cpu_millis,
            memory_mib,
        };
        let at = match users.last() {
            Some(last) if last.user_id == user_id => users.len() - 1,
            _ => {
                users.push(UserUsage {
                    user_id,
                    user,
                    workloads: 0,
                    allocated: Amount::default(),
                    pending: Amount::default(),
                });
                users.len() - 1
            }
        };
        let entry = &mut users[at];
        entry.workloads += workloads;
        if placed == 1 {
            entry.allocated = entry.allocated.plus(amount);
        } else {
            entry.pending = entry.pending.plus(amount);
        }
    }
    users
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_users_placed_and_waiting_rows_make_one_entry() {
        let (ada, bo) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let rows = vec![
            (ada, "ada".to_owned(), 0, 1, 4.0, 1000, 512),
            (ada, "ada".to_owned(), 1, 2, 2.0, 2000, 1024),
            (bo, "ada".to_owned(), 1, 1, 1.0, 500, 256),
        ];
        let users = by_user(rows);
        assert_eq!(users.len(), 2);
        assert_eq!(users[0].user, "ada");
        assert_eq!(users[0].workloads, 3);
        assert_eq!(users[0].allocated.gpus, 2.0);
        assert_eq!(users[0].pending.gpus, 4.0);
        assert_eq!(users[1].user_id, bo, "a namesake is another user");
        assert_eq!(users[1].pending, Amount::default());
        assert_eq!(users[1].allocated.cpu_millis, 500);
    }
}
