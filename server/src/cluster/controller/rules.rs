//! What the controller decides from the row and the index alone, before it touches the cluster.
//! Pure, so every rule is tested without a cluster.

use chrono::{DateTime, Utc};
use tephra_core::model::phase::Phase;

/// What the index says of a workload's Job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobSeen {
    /// The Job has a deletion timestamp.
    pub deleting: bool,
    /// Volcano stopped it (`vcctl job suspend`, or preempted with `terminateAfterPreemption`).
    pub stopped_by_cluster: bool,
}

/// A workload as the controller sees it: its row's phases and finish, and its Job in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    pub desired: Phase,
    pub actual: Phase,
    pub finished_at: Option<DateTime<Utc>>,
    /// `autoDeletionTimeAfterCompletionSeconds`.
    pub job_ttl_seconds: Option<i64>,
    pub job: Option<JobSeen>,
}

/// Whether the Job of a finished workload has outlived its `autoDeletionTimeAfterCompletionSeconds`.
pub fn ttl_due(
    finished_at: Option<DateTime<Utc>>,
    job_ttl_seconds: Option<i64>,
    now: DateTime<Utc>,
) -> bool {
    match (finished_at, job_ttl_seconds) {
        (Some(at), Some(ttl)) => now >= at + chrono::Duration::seconds(ttl.max(0)),
        _ => false,
    }
}

/// Whether a full pass should act on the workload.
pub fn needs_action(facts: &Facts, now: DateTime<Utc>) -> bool {
    let job = facts.job;
    let live_job = job.is_some_and(|j| !j.deleting);
    match facts.desired {
        Phase::Running if facts.actual.is_finished() => {
            live_job && ttl_due(facts.finished_at, facts.job_ttl_seconds, now)
        }
        Phase::Running => job.is_none_or(|j| j.stopped_by_cluster),
        Phase::Stopped => live_job,
        Phase::Deleting => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A builder for the facts of one workload, with no Job and no finish.
    fn workload(desired: Phase, actual: Phase) -> Facts {
        Facts {
            desired,
            actual,
            finished_at: None,
            job_ttl_seconds: None,
            job: None,
        }
    }

    impl Facts {
        fn with_job(self) -> Self {
            self.job(false, false)
        }
        fn job(mut self, deleting: bool, stopped_by_cluster: bool) -> Self {
            self.job = Some(JobSeen {
                deleting,
                stopped_by_cluster,
            });
            self
        }
        fn finished(mut self, at: DateTime<Utc>, ttl: Option<i64>) -> Self {
            self.finished_at = Some(at);
            self.job_ttl_seconds = ttl;
            self
        }
    }

    #[test]
    fn running_workloads_without_a_job_need_one_unless_finished() {
        let now = Utc::now();
        assert!(needs_action(
            &workload(Phase::Running, Phase::Creating),
            now
        ));
        assert!(needs_action(
            &workload(Phase::Running, Phase::Resuming),
            now
        ));
        let running = workload(Phase::Running, Phase::Running).with_job();
        assert!(!needs_action(&running, now));
        assert!(!needs_action(
            &workload(Phase::Running, Phase::Completed),
            now
        ));
        assert!(!needs_action(&workload(Phase::Running, Phase::Failed), now));
    }

    #[test]
    fn a_finished_workloads_job_is_deleted_once_its_time_is_up() {
        let finished = Utc::now();
        let later = finished + chrono::Duration::seconds(5);
        let done = workload(Phase::Running, Phase::Completed)
            .with_job()
            .finished(finished, Some(5));
        assert!(!needs_action(&done, finished), "not before its time");
        assert!(needs_action(&done, later));
        assert!(
            !needs_action(&done.job(true, false), later),
            "not while it is being deleted"
        );
        let kept = workload(Phase::Running, Phase::Failed)
            .with_job()
            .finished(finished, None);
        assert!(!needs_action(&kept, later), "no time given: kept");
    }

    #[test]
    fn a_negative_time_deletes_at_once() {
        let now = Utc::now();
        assert!(ttl_due(Some(now), Some(-3), now));
        assert!(!ttl_due(None, Some(0), now), "not finished");
    }

    #[test]
    fn a_job_volcano_stopped_needs_the_workload_suspended() {
        let stopped = workload(Phase::Running, Phase::Stopped).job(false, true);
        assert!(needs_action(&stopped, Utc::now()));
    }

    #[test]
    fn stopped_workloads_need_their_job_deleted_once() {
        let now = Utc::now();
        let with_job = workload(Phase::Stopped, Phase::Running).with_job();
        assert!(needs_action(&with_job, now));
        let deleting = workload(Phase::Stopped, Phase::Stopping).job(true, false);
        assert!(!needs_action(&deleting, now));
        assert!(!needs_action(
            &workload(Phase::Stopped, Phase::Stopped),
            now
        ));
    }

    #[test]
    fn deleting_workloads_are_always_looked_at() {
        let deleting = workload(Phase::Deleting, Phase::Deleting);
        assert!(needs_action(&deleting, Utc::now()));
    }
}
