//! `fit`: what a submit would meet now, without storing anything. The same checks as a submit
//! (validation, policies, limits, node sizes), plus whether the GPUs its pools have are free as
//! Tephra counts them (Tephra's own workloads; other pods on the nodes are not counted). A training
//! within its project's quota also fits when what it lacks is borrowed by other projects beyond
//! their quotas: Volcano's reclaim takes that back.

use super::Workloads;
use super::admission::{Weighed, admission};
use app::error::AppError;
use tephra_core::domain::quota::{self, Allowance, Amount, Bound, Standing};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::fit::{Bounds, Detail, Fit, Resources, Verdict};
use tephra_core::model::principal::Principal;

fn resources(a: Amount) -> Resources {
    Resources {
        gpus: a.gpus,
        cpu_millis: a.cpu_millis,
        memory_mib: a.memory_mib,
    }
}

fn bounds(b: Bound) -> Bounds {
    Bounds {
        gpus: b.gpus,
        cpu_millis: b.cpu_millis,
        memory_mib: b.memory_mib,
    }
}

/// The answer for a request that can never run, with each reason at its field.
fn refused(
    errors: Vec<tephra_core::model::validation::FieldError>,
) -> (Verdict, String, Vec<Detail>) {
    let details = errors
        .into_iter()
        .map(|e| Detail {
            field: e.path,
            message: e.message,
        })
        .collect();
    (
        Verdict::Refused,
        "it can never run as asked".to_owned(),
        details,
    )
}

/// "3 waiting workloads of project \"vision\"", "1 waiting workload for the same nodes".
fn waiting_in(n: u32, of: &str) -> String {
    let noun = if n == 1 { "workload" } else { "workloads" };
    format!("{n} waiting {noun} {of}")
}

impl Workloads {
    pub async fn fit(
        &self,
        kind: WorkloadKind,
        principal: &Principal,
        value: &serde_json::Value,
    ) -> Result<Fit, AppError> {
        let Weighed { checked, demand } = self.weigh(kind, principal, value).await?;
        let (project, department) = (&checked.project, &checked.department);
        let (usage, everything) = self.db.workloads().usage(department.id, project.id).await?;
        let (capacity, known) = self.gpu_capacity(&demand.pools);
        let free_gpus = known.then(|| (capacity - everything.gpus).max(0.0));
        // GPUs short of what it asks, and what Volcano's reclaim would take back for it.
        let short = free_gpus
            .map(|free| demand.total.gpus - free)
            .filter(|short| *short > 1e-9);
        let reclaims = match short {
            Some(short) => short <= self.borrowed_by_others(project.id).await? + 1e-9,
            None => false,
        };
        let nodes = self.cluster.largest_nodes();
        let verdict = admission(
            project,
            department,
            &demand,
            nodes,
            Some(self.profile.max_waiting_per_project),
        )(usage);
        let (verdict, message, details) = match verdict {
            Err(errors) => refused(errors),
            Ok(Standing::Queued(why)) => (Verdict::Queued, why, Vec::new()),
            Ok(Standing::WithinQuota) if reclaims => (
                Verdict::WithinQuota,
                format!(
                    "within project {:?}'s quota: Volcano takes back {} that other projects \
                     borrowed beyond their quotas",
                    project.name,
                    quota::Resource::Gpu.amount(short.unwrap_or_default())
                ),
                Vec::new(),
            ),
            Ok(_) if short.is_some() => (
                Verdict::Waiting,
                format!(
                    "it waits: it asks {}, and Tephra's workloads leave {} free in its pools",
                    quota::Resource::Gpu.amount(demand.total.gpus),
                    free_gpus.unwrap_or_default()
                ),
                Vec::new(),
            ),
            Ok(Standing::OverQuota(why)) => (Verdict::OverQuota, why, Vec::new()),
            Ok(Standing::WithinQuota) => (
                Verdict::WithinQuota,
                format!("within project {:?}'s quota", project.name),
                Vec::new(),
            ),
        };
        let class = checked.request.url_spec().priority_class.as_ref();
        let (behind, message) = self
            .behind_said(
                verdict,
                message,
                project,
                class.map(|c| c.as_str()),
                &demand.pools,
            )
            .await?;
        let allowance = Allowance::of(&project.resources);
        Ok(Fit {
            verdict,
            queued_behind: behind,
            message,
            details,
            asks: resources(demand.total),
            project_used: resources(usage.project),
            project_quota: bounds(allowance.deserved),
            project_limit: bounds(allowance.limit),
            free_gpus,
        })
    }
}

impl Workloads {
    /// For a request that would be queued or wait for GPUs: how many waiting workloads it would
    /// wait behind, and `message` saying so.
    async fn behind_said(
        &self,
        verdict: Verdict,
        message: String,
        project: &crate::db::projects::Project,
        class: Option<&str>,
        pools: &[String],
    ) -> Result<(Option<u32>, String), AppError> {
        if !matches!(verdict, Verdict::Queued | Verdict::Waiting) {
            return Ok((None, message));
        }
        let (in_project, for_nodes) = self.behind(project.id, class, pools).await?;
        Ok(if verdict == Verdict::Queued {
            let of = format!("of project {:?}", project.name);
            (
                Some(in_project),
                format!(
                    "queued behind {}: {}",
                    waiting_in(in_project, &of),
                    message.trim_start_matches("queued: ")
                ),
            )
        } else {
            let said = waiting_in(for_nodes, "for the same nodes");
            (Some(for_nodes), format!("{message}; behind {said}"))
        })
    }

    /// The GPUs of the nodes in `pools` (every pool when empty), and whether any node is known:
    /// with none seen yet, nothing can be said of what is free.
    pub(super) fn gpu_capacity(&self, pools: &[String]) -> (f64, bool) {
        let nodes = self
            .cluster
            .shared
            .nodes
            .read()
            .unwrap_or_else(|e| e.into_inner());
        let known = nodes.pools();
        let gpus: f64 = known
            .iter()
            .filter(|p| pools.is_empty() || pools.contains(&p.name))
            .map(|p| p.capacity.gpus)
            .sum();
        (gpus, !known.is_empty())
    }

    /// GPUs the other projects' live workloads ask beyond those projects' quotas: what Volcano's
    /// reclaim hands back to a project within its own quota (queues are reclaimable; a project
    /// without a quota lends all it uses). Summed over pools.
    pub(super) async fn borrowed_by_others(&self, project: uuid::Uuid) -> Result<f64, AppError> {
        let used = self.db.workloads().usage_by_project().await?;
        let projects = self.db.projects().list().await?;
        Ok(used
            .iter()
            .filter(|(id, _)| *id != project)
            .map(|(id, amount)| {
                let allowance = projects
                    .iter()
                    .find(|p| p.project.id == *id)
                    .map(|p| Allowance::of(&p.project.resources))
                    .unwrap_or_default();
                quota::lent(*amount, &allowance).gpus
            })
            .sum())
    }
}
