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
//! reason starts with "preempted" (`domain::preemption`).

use crate::domain::finish::Outcome;
use crate::domain::preemption::Preempted;
use crate::model::phase::Phase;
use crate::model::workload::{LiveStatus, PodGroupInfo, PodInfo, TaskCounts};
use std::collections::BTreeMap;

mod pending;

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
    /// `spec.minResources`, e.g. `nvidia.com/gpu: 40`.
    pub min_resources: BTreeMap<String, String>,
    /// The message of an `Unschedulable` condition with status True.
    pub unschedulable: Option<String>,
}

/// Everything the cluster reports about one workload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    pub job: Option<JobObservation>,
    pub pod_group: Option<PodGroupObservation>,
    /// By pod name.
    pub pods: BTreeMap<String, PodInfo>,
    /// The scheduler preempted the current Job's pods and the Job has not run again since.
    pub preempted: Option<Preempted>,
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
/// training that was preempted and waits to run again says so first.
pub fn derive(desired: Phase, previous: Phase, observed: &Observed) -> Derived {
    let derived = derive_phase(desired, previous, observed);
    match (&observed.preempted, derived.phase) {
        (Some(preempted), Phase::Resuming | Phase::Pending | Phase::Initializing)
            if desired == Phase::Running =>
        {
            let reason = crate::domain::preemption::explain(preempted, derived.reason.as_deref());
            Derived::new(derived.phase, Some(reason))
        }
        _ => derived,
    }
}

fn derive_phase(desired: Phase, previous: Phase, observed: &Observed) -> Derived {
    if desired == Phase::Deleting {
        let left = observed.pods.len();
        let reason = if observed.is_empty() {
            "removing the workload's volumes and services".to_owned()
        } else {
            format!("deleting the Job and its {left} pod(s)")
        };
        return Derived::new(Phase::Deleting, Some(reason));
    }
    if desired == Phase::Stopped {
        return if observed.is_empty() {
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
        };
    }
    if is_final(previous, observed) {
        return Derived::new(previous, None);
    }
    let job = match &observed.job {
        Some(job) if !job.deleting => job,
        going => {
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
            return Derived::new(Phase::Resuming, Some(reason.into()));
        }
    };
    if let Some(verdict) = &job.verdict {
        let phase = match verdict.outcome {
            Outcome::Succeeded => Phase::Completed,
            Outcome::Failed => Phase::Failed,
        };
        return Derived::new(phase, Some(verdict.reason.clone()));
    }
    match job.phase.as_str() {
        "" | "Pending" => pending(job, observed),
        "Running" | "Completing" => match &observed.pod_group {
            // The scheduler also calls a gang Unknown when a member failed and nothing waits
            // to be placed (a generic job waiting for its rules): that job still runs.
            Some(pg) if pg.phase == "Unknown" && !waiting_pods(observed) => {
                let failed = observed
                    .pods
                    .values()
                    .filter(|p| p.phase == "Failed")
                    .count();
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
        },
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

/// Some pod of the Job has not been placed or started yet.
fn waiting_pods(observed: &Observed) -> bool {
    observed.pods.values().any(|p| p.phase == "Pending")
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
pub fn task_counts(pods: &BTreeMap<String, PodInfo>) -> BTreeMap<String, TaskCounts> {
    let mut tasks: BTreeMap<String, TaskCounts> = BTreeMap::new();
    for pod in pods.values() {
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
        pods: observed.pods.values().cloned().collect(),
        events: Vec::new(),
        drift: drift(observed),
        reconcile_error: None,
        preemption: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(phase: &str) -> JobObservation {
        JobObservation {
            name: "train".into(),
            phase: phase.into(),
            min_available: 2,
            ..JobObservation::default()
        }
    }

    #[test]
    fn a_generic_jobs_verdict_decides_whatever_volcano_says() {
        use crate::domain::finish::{Outcome, Verdict};
        for (outcome, phase) in [
            (Outcome::Succeeded, Phase::Completed),
            (Outcome::Failed, Phase::Failed),
        ] {
            let observed = Observed {
                job: Some(JobObservation {
                    verdict: Some(Verdict {
                        outcome,
                        reason: "rule 1 holds".into(),
                    }),
                    ..job("Running")
                }),
                ..Observed::default()
            };
            assert_eq!(
                derive(Phase::Running, Phase::Running, &observed),
                Derived::new(phase, Some("rule 1 holds".into()))
            );
        }
    }

    #[test]
    fn a_gang_with_a_failed_member_and_nothing_to_place_still_runs() {
        let pod = |name: &str, phase: &str| {
            (
                name.to_owned(),
                PodInfo {
                    name: name.into(),
                    task: "worker".into(),
                    node: Some("n".into()),
                    phase: phase.into(),
                    restarts: 0,
                    created_at: None,
                    gpus: 0,
                    containers: Vec::new(),
                },
            )
        };
        let mut observed = Observed {
            job: Some(job("Running")),
            pod_group: Some(pod_group("Unknown")),
            pods: [pod("a", "Failed"), pod("b", "Running")].into(),
            ..Observed::default()
        };
        assert_eq!(
            derive(Phase::Running, Phase::Running, &observed),
            Derived::new(
                Phase::Running,
                Some("1 pod(s) failed; the others run on".into())
            )
        );
        observed.pods.extend([pod("c", "Pending")]);
        assert_eq!(
            derive(Phase::Running, Phase::Running, &observed).phase,
            Phase::Unknown
        );
    }

    fn pod_group(phase: &str) -> PodGroupObservation {
        PodGroupObservation {
            name: "train-uid".into(),
            phase: phase.into(),
            min_member: 2,
            queue: "tephra-default".into(),
            ..PodGroupObservation::default()
        }
    }

    fn pod(name: &str, node: Option<&str>, phase: &str) -> (String, PodInfo) {
        (
            name.to_owned(),
            PodInfo {
                name: name.into(),
                task: "worker".into(),
                node: node.map(str::to_owned),
                phase: phase.into(),
                restarts: 0,
                created_at: None,
                gpus: 0,
                containers: Vec::new(),
            },
        )
    }

    fn observed(
        job: Option<JobObservation>,
        pg: Option<PodGroupObservation>,
        pods: Vec<(String, PodInfo)>,
    ) -> Observed {
        Observed {
            job,
            pod_group: pg,
            pods: pods.into_iter().collect(),
            preempted: None,
        }
    }

    #[test]
    fn a_preempted_training_says_so_until_it_runs_again() {
        let mut seen = observed(Some(job("Restarting")), None, Vec::new());
        seen.preempted = Some(Preempted {
            at: None,
            message: "Pod is evicted, because of reclaim".into(),
            retry: 0,
            episode: "uid/0".into(),
        });
        let d = derive(Phase::Running, Phase::Running, &seen);
        assert_eq!(d.phase, Phase::Resuming);
        let reason = d.reason.unwrap();
        assert!(
            reason.starts_with("preempted: Volcano took back GPUs"),
            "{reason}"
        );
        assert!(
            reason.ends_with("now Volcano is restarting the Job (retry 0)"),
            "{reason}"
        );
        // Running again: nothing to explain. Suspended by the user: that is the reason.
        seen.job = Some(job("Running"));
        assert_eq!(derive(Phase::Running, Phase::Resuming, &seen).reason, None);
        seen.job = Some(job("Restarting"));
        let suspended = derive(Phase::Stopped, Phase::Resuming, &seen);
        assert!(!suspended.reason.unwrap().contains("preempted"));
    }

    #[test]
    fn a_new_workload_without_a_job_is_creating() {
        let d = derive(Phase::Running, Phase::Creating, &Observed::default());
        assert_eq!(d.phase, Phase::Creating);
    }

    #[test]
    fn a_gang_the_queue_has_not_admitted_says_what_it_needs() {
        let mut pg = pod_group("Pending");
        pg.min_member = 5;
        pg.min_resources = [
            ("nvidia.com/gpu".to_owned(), "40".to_owned()),
            ("requests.nvidia.com/gpu".to_owned(), "40".to_owned()),
            ("count/pods".to_owned(), "5".to_owned()),
        ]
        .into();
        let d = derive(
            Phase::Running,
            Phase::Creating,
            &observed(Some(job("Pending")), Some(pg), vec![]),
        );
        assert_eq!(d.phase, Phase::Pending);
        let reason = d.reason.unwrap();
        assert!(
            reason.contains("needs 5 pod(s) at once with 40 nvidia.com/gpu;"),
            "{reason}"
        );
        assert!(reason.contains("queue tephra-default"), "{reason}");
    }

    #[test]
    fn an_unschedulable_gang_gives_the_schedulers_reason_in_plain_words() {
        let mut pg = pod_group("Inqueue");
        pg.unschedulable = Some(
            "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; \
             Pending: 2 Unschedulable"
                .into(),
        );
        let d = derive(
            Phase::Running,
            Phase::Pending,
            &observed(
                Some(job("Pending")),
                Some(pg),
                vec![pod("p-0", None, "Pending"), pod("p-1", None, "Pending")],
            ),
        );
        assert_eq!(d.phase, Phase::Pending);
        let reason = d.reason.unwrap();
        assert!(
            reason.starts_with("the scheduler cannot place the gang of 2 pod(s) at once: 2 of 2 pods cannot be placed"),
            "{reason}"
        );
    }

    #[test]
    fn a_bound_gang_is_initializing_until_the_job_runs() {
        let pods = vec![
            pod("p-0", Some("n0"), "Pending"),
            pod("p-1", Some("n1"), "Running"),
        ];
        let d = derive(
            Phase::Running,
            Phase::Pending,
            &observed(
                Some(job("Pending")),
                Some(pod_group("Inqueue")),
                pods.clone(),
            ),
        );
        assert_eq!(d.phase, Phase::Initializing);
        let d = derive(
            Phase::Running,
            Phase::Initializing,
            &observed(Some(job("Running")), Some(pod_group("Running")), pods),
        );
        assert_eq!(d, Derived::new(Phase::Running, None));
    }

    #[test]
    fn suspending_is_stopping_until_nothing_is_left() {
        let running = observed(
            Some(JobObservation {
                deleting: true,
                ..job("Running")
            }),
            None,
            vec![pod("p-0", Some("n0"), "Running")],
        );
        assert_eq!(
            derive(Phase::Stopped, Phase::Running, &running).phase,
            Phase::Stopping
        );
        assert_eq!(
            derive(Phase::Stopped, Phase::Stopping, &Observed::default()).phase,
            Phase::Stopped
        );
    }

    #[test]
    fn resuming_lasts_until_the_new_job_reports_a_phase() {
        let gone = Observed::default();
        assert_eq!(
            derive(Phase::Running, Phase::Stopped, &gone).phase,
            Phase::Resuming
        );
        let old_going = observed(
            Some(JobObservation {
                deleting: true,
                ..job("Running")
            }),
            None,
            vec![],
        );
        assert_eq!(
            derive(Phase::Running, Phase::Stopping, &old_going).phase,
            Phase::Resuming
        );
        let recreated = observed(Some(job("Pending")), None, vec![]);
        assert_eq!(
            derive(Phase::Running, Phase::Resuming, &recreated).phase,
            Phase::Pending
        );
    }

    #[test]
    fn finished_workloads_stay_finished_when_their_job_is_collected() {
        for phase in [Phase::Completed, Phase::Failed] {
            assert_eq!(
                derive(Phase::Running, phase, &Observed::default()).phase,
                phase
            );
        }
    }

    #[test]
    fn finished_workloads_stay_finished_while_their_job_is_being_collected() {
        // Volcano's TTL (or Tephra's) deletes the Job: it carries a deletionTimestamp first.
        // Before, this read as "resuming" and the training ran a second time.
        let collecting = observed(
            Some(JobObservation {
                deleting: true,
                ..job("Completed")
            }),
            None,
            vec![pod("p", Some("n"), "Succeeded")],
        );
        for phase in [Phase::Completed, Phase::Failed] {
            let d = derive(Phase::Running, phase, &collecting);
            assert_eq!(d.phase, phase);
            assert!(is_final(phase, &collecting));
        }
        assert!(!is_final(Phase::Running, &collecting));
    }

    #[test]
    fn a_job_deleted_by_hand_before_finishing_is_created_again() {
        let d = derive(Phase::Running, Phase::Running, &Observed::default());
        assert_eq!(d.phase, Phase::Resuming);
        assert!(d.reason.unwrap().contains("deleted outside Tephra"));
        assert_eq!(
            derive(Phase::Running, Phase::Creating, &Observed::default()).phase,
            Phase::Creating
        );
    }

    #[test]
    fn an_aborted_job_is_a_suspension_resume_can_undo() {
        for phase in ["Aborting", "Aborted"] {
            let stopped = observed(Some(job(phase)), None, vec![]);
            assert!(stopped_in_cluster(&stopped).unwrap().contains("resume"));
        }
        assert_eq!(
            stopped_in_cluster(&observed(Some(job("Running")), None, vec![])),
            None
        );
    }

    #[test]
    fn a_job_changed_by_hand_is_drift() {
        let created = observed(
            Some(JobObservation {
                generation: 1,
                ..job("Running")
            }),
            None,
            vec![],
        );
        assert_eq!(drift(&created), None);
        let edited = observed(
            Some(JobObservation {
                generation: 3,
                ..job("Running")
            }),
            None,
            vec![],
        );
        assert!(drift(&edited).unwrap().contains("2 change(s)"));
        let edited_by_tephra = observed(
            Some(JobObservation {
                generation: 3,
                edited_generation: Some(3),
                ..job("Running")
            }),
            None,
            vec![],
        );
        assert_eq!(
            drift(&edited_by_tephra),
            None,
            "Tephra's own edits are no drift"
        );
        let then_by_hand = observed(
            Some(JobObservation {
                generation: 4,
                edited_generation: Some(3),
                ..job("Running")
            }),
            None,
            vec![],
        );
        assert!(drift(&then_by_hand).unwrap().contains("1 change(s)"));
    }

    #[test]
    fn volcano_phases_map_to_user_phases() {
        let cases = [
            ("Completed", Phase::Completed),
            ("Failed", Phase::Failed),
            ("Terminated", Phase::Failed),
            ("Aborting", Phase::Stopping),
            ("Aborted", Phase::Stopped),
            ("Restarting", Phase::Resuming),
            ("Completing", Phase::Running),
            ("Terminating", Phase::Stopping),
            ("Surprising", Phase::Unknown),
        ];
        for (volcano, expected) in cases {
            let d = derive(
                Phase::Running,
                Phase::Running,
                &observed(Some(job(volcano)), None, vec![]),
            );
            assert_eq!(d.phase, expected, "Volcano {volcano}");
        }
    }

    #[test]
    fn deleting_wins_over_everything() {
        let d = derive(
            Phase::Deleting,
            Phase::Running,
            &observed(
                Some(job("Running")),
                None,
                vec![pod("p", Some("n"), "Running")],
            ),
        );
        assert_eq!(d.phase, Phase::Deleting);
    }

    #[test]
    fn tasks_are_counted_by_pod_phase() {
        let pods: BTreeMap<_, _> = [
            pod("a", Some("n"), "Running"),
            pod("b", Some("n"), "Succeeded"),
            pod("c", None, "Pending"),
        ]
        .into_iter()
        .collect();
        let counts = task_counts(&pods);
        assert_eq!(
            counts["worker"],
            TaskCounts {
                pending: 1,
                running: 1,
                succeeded: 1,
                failed: 0,
                unknown: 0
            }
        );
    }

    #[test]
    fn messages_without_the_gang_prefix_are_kept() {
        assert_eq!(
            plain_unschedulable("0/4 nodes are available: 4 Insufficient nvidia.com/gpu."),
            "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
        );
    }
}
