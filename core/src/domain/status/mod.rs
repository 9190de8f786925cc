//! What users see of a workload (its actual phase, a reason in plain words, task counts) derived
//! from what the cluster reports about its Volcano Job, PodGroup and pods. Pure: the watchers feed
//! it observations, and tests feed it builders.
//!
//! The phase table, confirmed on the testbed (Volcano v1.14 controller and scheduler; see
//! `tests/cluster/api.rs` for the flows that exercise each row):
//!
//! | desired  | cluster                                                   | actual phase  |
//! |----------|-----------------------------------------------------------|---------------|
//! | Deleting | anything                                                  | Deleting      |
//! | Stopped  | a Job or pods still exist                                 | Stopping      |
//! | Stopped  | nothing left                                              | Stopped       |
//! | Running  | finished before (Completed/Failed), Job gone or going     | unchanged, with its last pods (final) |
//! | Running  | no Job yet, never stopped                                 | Creating      |
//! | Running  | no Job (or the old one still going away) after a stop     | Resuming      |
//! | Running  | Job deleted outside Tephra before it finished             | Resuming (created again) |
//! | Running  | a generic job's Job carries Tephra's verdict on its rules | Completed or Failed, with the rule (`domain::finish`) |
//! | Running  | Job phase "" or Pending, PodGroup Pending or absent       | Pending (queue has not admitted the gang) |
//! | Running  | Job Pending, PodGroup Inqueue, not every pod bound        | Pending (scheduler's reason) |
//! | Running  | Job Pending, every pod of the gang bound to a node        | Initializing  |
//! | Running  | Job Running or Completing                                 | Running       |
//! | Running  | Job Restarting (a retry after a failure, or vcctl resume) | Resuming      |
//! | Running  | Job Aborting / Aborted (vcctl job suspend, or preempted with terminateAfterPreemption) | Stopping / Stopped, and the desired phase becomes Stopped so resume works |
//! | Running  | Job Terminating                                           | Stopping      |
//! | Running  | Job Completed                                             | Completed     |
//! | Running  | Job Failed or Terminated                                  | Failed        |
//! | Running  | PodGroup Unknown (some pods run, the rest cannot be placed) | Unknown     |
//! | Running  | PodGroup Unknown, a member failed and none waits (a generic job's rules decide) | Running |
//!
//! A Job whose pods the scheduler preempted (reclaim: its project ran over quota on lent GPUs)
//! is restarted by its `PodEvicted` policy: Resuming, then Pending. Until it runs again its
//! reason starts with "preempted" (`domain::preemption`). So for a pod that lost its node (its
//! Node deleted, or unreachable): until the Job runs again, or when it failed for it, its reason
//! starts with "pod P lost its node" (`domain::node_loss`).

use crate::domain::finish::Outcome;
use crate::domain::node_loss::LostNode;
use crate::domain::preemption::Preempted;
use crate::model::phase::Phase;
use crate::model::workload::{LiveStatus, PodGroupInfo, PodInfo, TaskCounts};
use std::collections::BTreeMap;

mod pending;

use crate::domain::pods::Pods;
use pending::pending;
pub use pending::plain_unschedulable;

/// The Volcano Job as the watchers last saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobObservation {
    pub name: String,
    /// `status.state.phase`; empty until Volcano's controller has seen the Job.
    pub phase: String,
    pub message: Option<String>,
    pub retry_count: i32,
    pub min_available: i32,
    /// It has a deletionTimestamp: foreground deletion is removing its pods.
    pub deleting: bool,
    /// `metadata.generation`: 1 as Tephra created it; one more for each change of its spec.
    pub generation: i64,
    /// The generation Tephra's own last edit produced, if it edited the Job.
    pub edited_generation: Option<i64>,
    /// What of its spec an edit may change, as it is now.
    pub shape: super::live_edit::Shape,
    /// A generic job's finish, as Tephra judged its rules and recorded it on the Job.
    pub verdict: Option<super::finish::Verdict>,
}

/// The gang's PodGroup.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodGroupObservation {
    pub name: String,
    pub phase: String,
    pub min_member: i32,
    pub queue: String,
    /// `spec.minResources` as (name, quantity) in name order, e.g. `nvidia.com/gpu`, `40`. A
    /// list, not a map: it is only read to say what a waiting gang needs, and a map's first
    /// entry allocates room for eleven, for every PodGroup the index holds.
    pub min_resources: Vec<(String, String)>,
    /// The message of an `Unschedulable` condition with status True.
    pub unschedulable: Option<String>,
}

/// Everything the cluster reports about one workload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    pub job: Option<JobObservation>,
    pub pod_group: Option<PodGroupObservation>,
    /// By pod name.
    pub pods: Pods,
    /// The scheduler preempted the current Job's pods and the Job has not run again since.
    /// Boxed, as are the other rare records: the index holds one of these per workload.
    pub preempted: Option<Box<Preempted>>,
    /// A pod of the current Job lost its node and the Job has not run again since.
    pub lost_node: Option<Box<LostNode>>,
}

impl Observed {
    /// Nothing of the workload is left in the cluster.
    pub fn is_empty(&self) -> bool {
        self.job.is_none() && self.pods.is_empty()
    }
}

/// The actual phase and why, in plain words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    pub phase: Phase,
    pub reason: Option<String>,
}

impl Derived {
    fn new(phase: Phase, reason: Option<String>) -> Self {
        Derived { phase, reason }
    }
}

/// Derives the actual phase from the desired one, the phase shown before, and the cluster. A
/// training that was preempted, or lost a pod with its node, and waits to run again says so
/// first.
pub fn derive(desired: Phase, previous: Phase, observed: &Observed) -> Derived {
    let derived = derive_phase(desired, previous, observed);
    let waiting = matches!(
        derived.phase,
        Phase::Resuming | Phase::Pending | Phase::Initializing
    ) && desired == Phase::Running;
    let now = derived.reason.as_deref();
    match (&observed.preempted, &observed.lost_node) {
        (Some(preempted), _) if waiting => Derived::new(
            derived.phase,
            Some(crate::domain::preemption::explain(preempted, now)),
        ),
        (None, Some(lost)) if waiting || derived.phase == Phase::Failed => Derived::new(
            derived.phase,
            Some(crate::domain::node_loss::explain(lost, now)),
        ),
        _ => derived,
    }
}

fn derive_phase(desired: Phase, previous: Phase, observed: &Observed) -> Derived {
    if let Some(derived) = winding_down(desired, observed) {
        return derived;
    }
    if is_final(previous, observed) {
        return Derived::new(previous, None);
    }
    let job = match &observed.job {
        Some(job) if !job.deleting => job,
        going => return without_job(previous, going.as_ref()),
    };
    if let Some(verdict) = &job.verdict {
        let phase = match verdict.outcome {
            Outcome::Succeeded => Phase::Completed,
            Outcome::Failed => Phase::Failed,
        };
        return Derived::new(phase, Some(verdict.reason.clone()));
    }
    from_job_phase(job, observed)
}

/// A workload being deleted or suspended: how far its removal from the cluster has come.
fn winding_down(desired: Phase, observed: &Observed) -> Option<Derived> {
    match desired {
        Phase::Deleting => {
            let left = observed.pods.len();
            let reason = if observed.is_empty() {
                "removing the workload's volumes and services".to_owned()
            } else {
                format!("deleting the Job and its {left} pod(s)")
            };
            Some(Derived::new(Phase::Deleting, Some(reason)))
        }
        Phase::Stopped => Some(if observed.is_empty() {
            Derived::new(
                Phase::Stopped,
                Some("suspended; resume to run it again".into()),
            )
        } else {
            Derived::new(
                Phase::Stopping,
                Some(format!(
                    "suspending: waiting for {} pod(s) to stop",
                    observed.pods.len()
                )),
            )
        }),
        _ => None,
    }
}

/// A workload wanted running whose Job is absent or going away (`going`).
fn without_job(previous: Phase, going: Option<&JobObservation>) -> Derived {
    let reason = match (previous, going) {
        (Phase::Creating, None) => return Derived::new(Phase::Creating, None),
        (Phase::Stopping | Phase::Stopped | Phase::Resuming, None) => {
            "resuming: creating the Job again"
        }
        (Phase::Stopping | Phase::Stopped | Phase::Resuming, Some(_)) => {
            "resuming: waiting for the previous Job to be removed"
        }
        _ => {
            "the Volcano Job was deleted outside Tephra before the training finished; \
              creating it again from the stored request"
        }
    };
    Derived::new(Phase::Resuming, Some(reason.into()))
}

/// The phase of a Job that exists and carries no verdict, from Volcano's phase for it.
fn from_job_phase(job: &JobObservation, observed: &Observed) -> Derived {
    match job.phase.as_str() {
        "" | "Pending" => pending(job, observed),
        "Running" | "Completing" => running(observed),
        "Restarting" => Derived::new(
            Phase::Resuming,
            Some(format!(
                "Volcano is restarting the Job (retry {})",
                job.retry_count
            )),
        ),
        "Aborting" => Derived::new(
            Phase::Stopping,
            Some("suspended outside Tephra (vcctl job suspend): pods are stopping".into()),
        ),
        "Aborted" => Derived::new(
            Phase::Stopped,
            Some("suspended outside Tephra (vcctl job suspend); resume to run it again".into()),
        ),
        "Terminating" => Derived::new(Phase::Stopping, Some("the Job is being terminated".into())),
        "Completed" => Derived::new(Phase::Completed, None),
        "Failed" => Derived::new(
            Phase::Failed,
            Some(
                job.message
                    .clone()
                    .unwrap_or_else(|| format!("failed after {} retries", job.retry_count)),
            ),
        ),
        "Terminated" => Derived::new(Phase::Failed, Some("the Job was terminated".into())),
        other => Derived::new(
            Phase::Unknown,
            Some(format!("Volcano reports the unfamiliar phase {other:?}")),
        ),
    }
}

/// A Job Volcano calls Running or Completing, told apart by its PodGroup.
fn running(observed: &Observed) -> Derived {
    match &observed.pod_group {
        // The scheduler also calls a gang Unknown when a member failed and nothing waits
        // to be placed (a generic job waiting for its rules): that job still runs.
        Some(pg) if pg.phase == "Unknown" && !waiting_pods(observed) => {
            let failed = observed.pods.iter().filter(|p| p.phase == "Failed").count();
            Derived::new(
                Phase::Running,
                (failed > 0).then(|| format!("{failed} pod(s) failed; the others run on")),
            )
        }
        Some(pg) if pg.phase == "Unknown" => Derived::new(
            Phase::Unknown,
            Some(format!(
                "some pods run but the rest of the gang cannot be placed: {}",
                plain_unschedulable(pg.unschedulable.as_deref().unwrap_or("no reason given"))
            )),
        ),
        _ => Derived::new(Phase::Running, None),
    }
}

/// Some pod of the Job has not been placed or started yet.
fn waiting_pods(observed: &Observed) -> bool {
    observed.pods.iter().any(|p| p.phase == "Pending")
}

/// A training that has finished stays finished once its Job is collected or being deleted: it
/// keeps its phase and the last pods it had, and is never created again.
pub fn is_final(previous: Phase, observed: &Observed) -> bool {
    previous.is_finished() && observed.job.as_ref().is_none_or(|j| j.deleting)
}

/// Why the cluster stopped a Job Tephra wants running, if it did: Volcano aborts a Job on
/// `vcctl job suspend`, and on preemption when the training asked `terminateAfterPreemption`.
/// Tephra then records the workload as suspended, so resume (which the page offers) works.
pub fn stopped_in_cluster(observed: &Observed) -> Option<String> {
    let job = observed.job.as_ref().filter(|j| !j.deleting)?;
    matches!(job.phase.as_str(), "Aborting" | "Aborted").then(|| {
        let why = job.message.as_deref().unwrap_or(
            "preempted with terminateAfterPreemption, or suspended with vcctl job suspend",
        );
        format!("Volcano stopped the Job ({why}); resume to run it again")
    })
}

/// A change someone made to the Job's spec by hand: Tephra changes a Job only by an edit, which
/// records the generation it produced, so any generation beyond that (or beyond the first) is
/// drift. Reported, not undone: suspend and resume run the stored request again.
pub fn drift(observed: &Observed) -> Option<String> {
    let job = observed.job.as_ref()?;
    let ours = job.edited_generation.unwrap_or(1);
    (job.generation > ours).then(|| {
        format!(
            "the Volcano Job {} was changed outside Tephra ({} change(s) to its spec); Tephra does \
             not undo it: suspend and resume to run the stored request again",
            job.name,
            job.generation - ours
        )
    })
}

/// Pods of each task by phase, counted from the pods seen.
pub fn task_counts(pods: &Pods) -> BTreeMap<String, TaskCounts> {
    let mut tasks: BTreeMap<String, TaskCounts> = BTreeMap::new();
    for pod in pods {
        let counts = tasks.entry(pod.task.clone()).or_default();
        match pod.phase.as_str() {
            "Pending" => counts.pending += 1,
            "Running" => counts.running += 1,
            "Succeeded" => counts.succeeded += 1,
            "Failed" => counts.failed += 1,
            _ => counts.unknown += 1,
        }
    }
    tasks
}

/// The live status the API returns, from the observations (events are added by the caller).
pub fn live_status(observed: &Observed) -> LiveStatus {
    LiveStatus {
        job_phase: observed
            .job
            .as_ref()
            .map(|j| j.phase.clone())
            .filter(|p| !p.is_empty()),
        retry_count: observed.job.as_ref().map_or(0, |j| j.retry_count),
        pod_group: observed.pod_group.as_ref().map(|pg| PodGroupInfo {
            name: pg.name.clone(),
            phase: pg.phase.clone(),
            min_member: pg.min_member,
            queue: pg.queue.clone(),
            unschedulable: pg.unschedulable.as_deref().map(plain_unschedulable),
        }),
        tasks: task_counts(&observed.pods),
        // What the kubelet reports is read by the diagnosis, not stored or shown.
        pods: observed
            .pods
            .iter()
            .map(|pod| PodInfo {
                kubelet: Default::default(),
                ..pod.clone()
            })
            .collect(),
        events: Vec::new(),
        drift: drift(observed),
        reconcile_error: None,
        preemption: None,
        fix: None,
    }
}

#[cfg(test)]
mod tests;
