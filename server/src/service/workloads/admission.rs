//! The admission check a submit or resume runs inside the transaction that writes it.

use super::Workloads;
use super::submit::Checked;
use crate::db::departments::Department;
use crate::db::projects::Project;
use crate::db::workloads::{Change, Noted, Usage};
use app::error::AppError;
use tephra_core::domain::quota::{self, Allowance, Amount, Demand, Standing, Unit};
use tephra_core::domain::request::{Request, WorkloadKind};
use tephra_core::model::history::HistoryAction;
use tephra_core::model::principal::Principal;
use tephra_core::model::validation::FieldError;

/// The history entry of a verdict other than within quota, and why: admitted over quota, a
/// workload may be preempted; queued, it waits until room frees under a limit.
fn entry(standing: &Standing) -> Option<(HistoryAction, &str)> {
    match standing {
        Standing::WithinQuota => None,
        Standing::OverQuota(why) => Some((HistoryAction::OverQuota, why)),
        Standing::Queued(why) => Some((HistoryAction::Queued, why)),
    }
}

/// Written as Tephra's own entry, in the transaction that admits the workload.
impl Noted for Standing {
    fn noted(&self) -> Option<Change> {
        entry(self).map(|(action, why)| Change {
            actor: None,
            action,
            detail: serde_json::json!({ "reason": why }),
        })
    }
}

/// Logs a verdict that admitted a workload other than within its quota.
pub(super) fn log_standing(id: uuid::Uuid, standing: &Standing) {
    if let Some((action, why)) = entry(standing) {
        tracing::info!(workload = %id, %why, "admitted {action}");
    }
}

/// Judges `demand` against the project's and department's limits given their use, and against
/// the largest `nodes` of each pool; and, when it adds a workload waiting to start, against the
/// most the project may have waiting (`most_waiting`, the cluster profile's
/// `maxWaitingPerProject`).
pub(super) fn admission<'a>(
    project: &'a Project,
    department: &'a Department,
    demand: &'a Demand,
    nodes: Vec<(String, Amount)>,
    most_waiting: Option<u32>,
) -> impl FnOnce(Usage) -> Result<Standing, Vec<FieldError>> + 'a {
    move |usage| {
        let room = most_waiting
            .map(|most| quota::waiting_room(&project.name, usage.project_waiting, most))
            .transpose()
            .err();
        let standing = limits(project, department, demand, &nodes, usage);
        match (standing, room) {
            (standing, None) => standing,
            (Ok(_), Some(full)) => Err(vec![full]),
            (Err(mut errors), Some(full)) => {
                errors.push(full);
                Err(errors)
            }
        }
    }
}

/// The verdict of `demand` under the project's and department's limits and the nodes' sizes.
fn limits(
    project: &Project,
    department: &Department,
    demand: &Demand,
    nodes: &[(String, Amount)],
    usage: Usage,
) -> Result<Standing, Vec<FieldError>> {
    let allowance = Allowance::of(&project.resources);
    // What the project's queue holds back beyond its limit takes none of the department's
    // room; nor does what the other projects' queues hold back.
    let held = quota::beyond_limit(usage.project, &allowance).plus(usage.department_held);
    let project = Unit {
        kind: "project",
        name: &project.name,
        allowance,
        used: usage.project,
        reclaimable: Amount::default(),
    };
    let department = Unit {
        kind: "department",
        name: &department.name,
        allowance: Allowance::of(&department.resources),
        used: usage.department.minus(held),
        reclaimable: usage.department_lent,
    };
    quota::admit(demand, &project, &department, nodes)
}

/// The demand of a stored request, or `None` when it no longer parses (a request stored by an
/// older version that this one reads differently).
pub(super) fn stored_demand(kind: WorkloadKind, value: &serde_json::Value) -> Option<Demand> {
    Request::parse(value, kind)
        .ok()
        .map(|request| quota::demand(&request))
}

/// The time limit of a stored request (`maxRunTimeSeconds`), if it sets one and still parses.
pub fn stored_limit(kind: &str, value: &serde_json::Value) -> Option<i64> {
    let kind = WorkloadKind::parse(kind)?;
    Request::parse(value, kind).ok()?.max_run_time_seconds()
}

/// A checked request bound to this cluster, with what admission weighs it against.
pub(super) struct Weighed {
    pub(super) checked: Checked,
    pub(super) demand: Demand,
}

impl Workloads {
    /// Checks `value` (see [`Workloads::check`]), binds it to this cluster's profile and weighs
    /// its demand: what a submit's preview and an edit admit.
    pub(super) async fn weigh(
        &self,
        kind: WorkloadKind,
        principal: &Principal,
        value: &serde_json::Value,
    ) -> Result<Weighed, AppError> {
        let checked = self.check(kind, principal, value).await?;
        checked
            .request
            .bind(&self.profile, checked.token_uid_gid)
            .map_err(AppError::Rejected)?;
        let demand = quota::demand(&checked.request);
        Ok(Weighed { checked, demand })
    }

    /// Records the demand of live workloads stored before quotas, so they count toward their
    /// project's use; returns how many it measured.
    pub async fn measure_unmeasured(&self) -> Result<usize, crate::db::DbError> {
        let rows = self.db.workloads().unmeasured().await?;
        let mut measured = 0;
        for (id, kind, spec) in rows {
            let Some(kind) = WorkloadKind::parse(&kind) else {
                continue;
            };
            let demand = stored_demand(kind, &spec.0).map_or_else(Amount::default, |d| d.total);
            self.db.workloads().set_demand(id, demand).await?;
            measured += 1;
        }
        Ok(measured)
    }
}
