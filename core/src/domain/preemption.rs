//! Preemption: Volcano's reclaim action evicts pods of a queue that uses more than its `deserved`
//! (a project over its quota) to give the GPUs back to a queue within its own. The scheduler marks
//! each victim before deleting it (condition `DisruptionTarget`, reason `PreemptionByScheduler`,
//! and `Ready` false with reason `Evict`: "Pod is evicted, because of reclaim"); the Job's
//! `PodEvicted` policy then restarts it. Tephra keeps what the pods said so a preempted training
//! says so while it waits to run again, and counts each preemption once in its history.

use crate::model::workload::Preemption;
use k8s_openapi::api::core::v1::Pod;

/// A preemption seen on a pod of the workload's current Job, until the Job runs again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preempted {
    /// RFC 3339.
    pub at: Option<String>,
    pub message: String,
    /// The Job's retry count when it was preempted: running again with a higher one means it
    /// came back.
    pub retry: i32,
    /// The Job's uid and `retry`: every pod evicted in one reclaim shares it.
    pub episode: String,
}

/// When and why the scheduler evicted `pod`, if it did.
pub fn evicted_by_scheduler(pod: &Pod) -> Option<(Option<String>, String)> {
    let conditions = pod.status.as_ref()?.conditions.as_ref()?;
    let target = conditions.iter().find(|c| {
        c.type_ == "DisruptionTarget"
            && c.status == "True"
            && c.reason.as_deref() == Some("PreemptionByScheduler")
    })?;
    let evict = conditions
        .iter()
        .find(|c| c.type_ == "Ready" && c.reason.as_deref() == Some("Evict"));
    let message = evict
        .and_then(|c| c.message.clone())
        .or_else(|| target.message.clone())
        .unwrap_or_else(|| "evicted by the scheduler".into());
    let at = target
        .last_transition_time
        .as_ref()
        .map(|t| t.0.to_string());
    Some((at, message))
}

/// The workload's preemption record: the stored one, counting `seen` once more when it is a
/// preemption the record does not have yet. Each episode is counted once, across restarts of
/// Tephra too (the count lives in the stored status).
pub fn record(stored: Option<&Preemption>, seen: Option<&Preempted>) -> Option<Preemption> {
    match (stored, seen) {
        (stored, None) => stored.cloned(),
        (Some(stored), Some(seen)) if stored.episode == seen.episode => Some(stored.clone()),
        (stored, Some(seen)) => Some(Preemption {
            at: seen.at.clone(),
            message: seen.message.clone(),
            count: stored.map_or(0, |s| s.count) + 1,
            episode: seen.episode.clone(),
        }),
    }
}

/// The reason a preempted training shows while it waits to run again, before what it waits on.
pub fn explain(preempted: &Preempted, waiting_on: Option<&str>) -> String {
    let mut reason = format!(
        "preempted: Volcano took back GPUs this training used beyond its project's quota ({}); \
         it restarts when GPUs are free",
        preempted.message
    );
    if let Some(waiting_on) = waiting_on {
        reason.push_str("; now ");
        reason.push_str(waiting_on);
    }
    reason
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{PodCondition, PodStatus};

    fn condition(type_: &str, status: &str, reason: &str, message: &str) -> PodCondition {
        PodCondition {
            type_: type_.into(),
            status: status.into(),
            reason: Some(reason.into()),
            message: Some(message.into()),
            ..PodCondition::default()
        }
    }

    fn pod(conditions: Vec<PodCondition>) -> Pod {
        Pod {
            status: Some(PodStatus {
                conditions: Some(conditions),
                ..PodStatus::default()
            }),
            ..Pod::default()
        }
    }

    fn seen(episode: &str) -> Preempted {
        Preempted {
            at: Some("2026-11-24T10:00:00Z".into()),
            message: "Pod is evicted, because of reclaim".into(),
            retry: 0,
            episode: episode.into(),
        }
    }

    #[test]
    fn a_pod_the_scheduler_evicted_says_why() {
        let evicted = pod(vec![
            condition(
                "Ready",
                "False",
                "Evict",
                "Pod is evicted, because of reclaim",
            ),
            condition(
                "DisruptionTarget",
                "True",
                "PreemptionByScheduler",
                "volcano: preempting to accommodate a higher priority pod",
            ),
        ]);
        let (_, message) = evicted_by_scheduler(&evicted).unwrap();
        assert_eq!(message, "Pod is evicted, because of reclaim");
        // A pod stopped for another reason (a drained node, a deleted Job) is not preempted.
        let drained = pod(vec![condition(
            "DisruptionTarget",
            "True",
            "EvictionByEvictionAPI",
            "Eviction API: evicting",
        )]);
        assert_eq!(evicted_by_scheduler(&drained), None);
        assert_eq!(evicted_by_scheduler(&pod(Vec::new())), None);
    }

    #[test]
    fn each_preemption_counts_once() {
        let first = record(None, Some(&seen("job-uid/0"))).unwrap();
        assert_eq!(first.count, 1);
        // The other pods of the same reclaim, and every later derivation, change nothing.
        assert_eq!(
            record(Some(&first), Some(&seen("job-uid/0"))),
            Some(first.clone())
        );
        assert_eq!(record(Some(&first), None), Some(first.clone()));
        // The restarted Job preempted again is a second one.
        let second = record(Some(&first), Some(&seen("job-uid/1"))).unwrap();
        assert_eq!(second.count, 2);
        assert_eq!(second.episode, "job-uid/1");
        assert_eq!(record(None, None), None);
    }

    #[test]
    fn the_reason_says_it_was_preempted_and_what_it_waits_on() {
        assert_eq!(
            explain(&seen("e"), Some("waiting for queue a to admit the gang")),
            "preempted: Volcano took back GPUs this training used beyond its project's quota \
             (Pod is evicted, because of reclaim); it restarts when GPUs are free; now waiting \
             for queue a to admit the gang"
        );
    }
}
