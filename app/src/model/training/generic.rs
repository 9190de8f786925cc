//! The generic multi-replica form after T9k's GenericJob: any number of replica types, each with
//! its own spec, rules that decide success and failure, run modes for debugging and for starting
//! paused, and what to clean up afterwards. Its rules are checked in `validate::generic`.

use super::request::{ProjectId, TrainingSpec};
use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

/// `POST /api/v1/workloads/generic`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenericRequest {
    pub name: String,
    pub use_given_name_as_prefix: Option<bool>,
    pub project_id: ProjectId,
    pub cluster_id: Option<String>,
    pub spec: GenericSpec,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenericSpec {
    pub replica_specs: Vec<ReplicaSpec>,
    /// The job succeeds when any rule holds: every pod of the rule's replica type succeeded.
    pub success_rules: Option<Vec<FinishRule>>,
    /// The job fails when any rule holds: a pod of one of the rule's replica types failed (after
    /// that type's restarts).
    pub failure_rules: Option<Vec<FinishRule>>,
    pub run_mode: Option<RunMode>,
    pub clean_up_policy: Option<CleanUpPolicy>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSpec {
    /// The replica type, e.g. `ps` or `worker`; becomes the Volcano task's name.
    #[serde(rename = "type")]
    pub kind: String,
    pub replicas: Option<i64>,
    pub restart_policy: Option<RestartPolicy>,
    /// The container and pod for this replica type (a training spec).
    pub spec: TrainingSpec,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestartPolicy {
    pub policy: RestartPolicyType,
    /// How many restarts before the failure counts. Defaults to 0.
    pub limit: Option<i64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RestartPolicyType {
    #[default]
    OnFailure,
    Never,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FinishRule {
    pub name: Option<String>,
    pub replica_types: Vec<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunMode {
    pub debug: Option<DebugMode>,
    pub pause: Option<PauseMode>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DebugMode {
    pub enabled: bool,
    pub replica_specs: Option<Vec<ReplicaOverride>>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PauseMode {
    pub enabled: bool,
    pub resume_specs: Option<Vec<ReplicaOverride>>,
}

/// Replaces a replica type's command (and args) in debug mode or on resume.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaOverride {
    #[serde(rename = "type")]
    pub kind: String,
    pub skip_init_container: Option<bool>,
    pub command: Option<String>,
    pub args: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CleanUpPolicy {
    /// Keep every pod after the job finishes.
    None,
    /// Delete the pods that had not finished (what Volcano does when it completes a job).
    Unfinished,
    /// Delete the job and all its pods as soon as it finishes.
    All,
}

/// The longest replica type: it is the task name inside pod names `<job>-<type>-<index>`.
pub const REPLICA_TYPE_MAX: usize = 9;

impl GenericSpec {
    /// Whether the workload starts suspended (pause mode) and runs only once resumed.
    pub fn starts_paused(&self) -> bool {
        self.run_mode
            .as_ref()
            .and_then(|m| m.pause.as_ref())
            .is_some_and(|p| p.enabled)
    }

    pub fn debug(&self) -> Option<&DebugMode> {
        self.run_mode
            .as_ref()
            .and_then(|m| m.debug.as_ref())
            .filter(|d| d.enabled)
    }
}
