//! What the cluster reports about a workload, live: its Volcano Job's phase, the gang's
//! PodGroup, tasks and pods, recent events, preemptions, and the controller's trouble.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Pods of one task by phase, as Volcano counts them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TaskCounts {
    pub pending: u32,
    pub running: u32,
    pub succeeded: u32,
    pub failed: u32,
    pub unknown: u32,
}

impl TaskCounts {
    pub fn total(&self) -> u32 {
        self.pending + self.running + self.succeeded + self.failed + self.unknown
    }
}

/// One pod of the workload.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodInfo {
    pub name: String,
    /// The Volcano task the pod belongs to (`master`, `worker`, `train`...).
    pub task: String,
    /// The node the scheduler bound it to; none while it waits for a place.
    pub node: Option<String>,
    /// Kubernetes pod phase: Pending, Running, Succeeded, Failed, Unknown.
    pub phase: String,
    pub restarts: i32,
    /// RFC 3339.
    pub created_at: Option<String>,
    /// The GPUs its containers ask for (`nvidia.com/gpu`).
    #[serde(default)]
    pub gpus: u32,
    /// Its containers, whose logs can be read: its own in order, then its init containers.
    #[serde(default)]
    pub containers: Vec<String>,
    /// What the kubelet reports of its containers, for a diagnosis: observed only, never
    /// stored or sent (the live status leaves it out).
    #[serde(skip)]
    pub kubelet: crate::model::diagnosis::PodState,
}

/// The gang's PodGroup, which Volcano's scheduler admits and places as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodGroupInfo {
    pub name: String,
    /// Pending (not admitted by the queue), Inqueue, Running, Unknown, Completed.
    pub phase: String,
    /// How many pods must be placed at once (the gang's minMember).
    pub min_member: i32,
    pub queue: String,
    /// The scheduler's own words when it cannot place the gang.
    pub unschedulable: Option<String>,
}

/// A Kubernetes event about the Job, its PodGroup or one of its pods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EventInfo {
    /// RFC 3339, the last time it happened.
    pub at: Option<String>,
    #[serde(rename = "type")]
    pub kind: EventType,
    pub reason: String,
    pub message: String,
    /// `Job/<name>`, `Pod/<name>` or `PodGroup/<name>`.
    pub object: String,
    pub count: i32,
}

/// The two types of Kubernetes event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum EventType {
    Warning,
    /// Also what any other stored value reads as: rows written before this was an enum kept
    /// Kubernetes' own string.
    #[default]
    #[serde(other)]
    Normal,
}

impl EventType {
    /// Kubernetes' `type`; anything but `Warning` is normal, as `kubectl` shows it.
    pub fn parse(value: Option<&str>) -> Self {
        match value {
            Some("Warning") => EventType::Warning,
            _ => EventType::Normal,
        }
    }
}

/// What the cluster reports about a workload, derived by the watchers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LiveStatus {
    /// The Volcano Job's own phase (Pending, Running, Aborted, Completed...), when a Job exists.
    pub job_phase: Option<String>,
    /// How often Volcano restarted the Job after failures.
    pub retry_count: i32,
    pub pod_group: Option<PodGroupInfo>,
    /// Per task: pods by phase.
    pub tasks: BTreeMap<String, TaskCounts>,
    pub pods: Vec<PodInfo>,
    /// The most recent events, newest last.
    pub events: Vec<EventInfo>,
    /// A change made to the Volcano Job outside Tephra, in plain words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift: Option<String>,
    /// Why Tephra could not act on the workload in the cluster, while it keeps trying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconcile_error: Option<ReconcileError>,
    /// The last time Volcano preempted the workload, and how often it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<Preemption>,
    /// The change that would fix why it failed, when Tephra knows one ("Edit and resubmit").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub fix: Option<crate::model::diagnosis::Fix>,
}

/// Volcano's scheduler evicted the workload's pods to give GPUs back to a queue within its
/// quota (reclaim): what this workload ran on beyond its project's quota was lent, not owned.
/// The Job restarts by its policy when GPUs are free again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Preemption {
    /// RFC 3339: when the scheduler marked the first pod for eviction.
    pub at: Option<String>,
    /// The scheduler's words, e.g. "Pod is evicted, because of reclaim".
    pub message: String,
    /// How many times the workload has been preempted.
    pub count: u32,
    /// The Job (its uid) and the retry it was in: one preemption, however many pods it evicted.
    pub episode: String,
}

impl LiveStatus {
    /// Everything but the per-pod list and the events: what a list of workloads shows. Its size
    /// does not grow with the number of pods.
    pub fn summary(&self) -> LiveStatus {
        LiveStatus {
            job_phase: self.job_phase.clone(),
            retry_count: self.retry_count,
            pod_group: self.pod_group.clone(),
            tasks: self.tasks.clone(),
            pods: Vec::new(),
            events: Vec::new(),
            drift: self.drift.clone(),
            reconcile_error: self.reconcile_error.clone(),
            preemption: self.preemption.clone(),
            fix: self.fix.clone(),
        }
    }
}

/// An error acting on a workload in the cluster, and when Tephra tries again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconcileError {
    pub message: String,
    /// Retrying alone will not fix it (e.g. the Job's name is taken by something else); Tephra
    /// retries rarely, and at once when the cause changes.
    pub permanent: bool,
    /// Failed attempts in a row.
    pub attempts: u32,
    /// RFC 3339: the next attempt.
    pub next_attempt_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_type_is_kubernetes_spelling() {
        assert_eq!(EventType::parse(Some("Warning")), EventType::Warning);
        assert_eq!(EventType::parse(Some("Normal")), EventType::Normal);
        assert_eq!(EventType::parse(None), EventType::Normal);
        let json = serde_json::to_string(&EventType::Warning).unwrap();
        assert_eq!(json, r#""Warning""#);
        let read: EventType = serde_json::from_str(r#""Warning""#).unwrap();
        assert_eq!(read, EventType::Warning);
        // Whatever else a stored row holds reads as normal, not as a broken row.
        let read: EventType = serde_json::from_str(r#""Info""#).unwrap();
        assert_eq!(read, EventType::Normal);
    }
}
