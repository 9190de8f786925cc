//! The generic multi-replica form after T9k's GenericJob (seeds/004): any number of replica
//! types, each with its own spec and restart policy, rules that decide success and failure, run
//! modes for debugging and for starting paused, and what to clean up afterwards. Its rules are
//! checked in `validate::generic`; Tephra's controller judges the finish rules (`domain::finish`).

use super::request::{ProjectId, RestartPolicy, TrainingSpec};
use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use std::collections::BTreeMap;

/// `POST /api/v1/workloads/generic`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GenericRequest {
    pub name: String,
    pub use_given_name_as_prefix: Option<bool>,
    pub project_id: ProjectId,
    pub cluster_id: Option<String>,
    pub spec: GenericSpec,
}

request_part! {
    pub struct GenericSpec {
        pub replica_specs: Vec<ReplicaSpec>,
        /// The job succeeds when any rule holds: every replica the rule lists succeeded. Without
        /// rules, it succeeds when every replica succeeded.
        pub success_rules: Option<Vec<FinishRule>>,
        /// The job fails when any rule holds: every replica the rule lists failed (after its
        /// type's restarts). Without rules, it fails when any replica failed.
        pub failure_rules: Option<Vec<FinishRule>>,
        pub run_mode: Option<RunMode>,
        /// None (the default), Unfinished or All.
        pub clean_up_policy: Option<CleanUpPolicy>,
    }
}

request_part! {
    pub struct ReplicaSpec {
        /// The replica type, e.g. `ps` or `worker`; becomes the Volcano task's name.
        #[serde(rename = "type")]
        pub kind: String,
        /// Defaults to 1.
        pub replicas: Option<i64>,
        pub restart_policy: Option<ReplicaRestart>,
        /// The container and pod for this replica type (a training spec).
        pub spec: TrainingSpec,
    }
}

request_part! {
    /// How a replica type's pods restart (T9k's `RestartPolicy`).
    pub struct ReplicaRestart {
        /// OnFailure (the default), Never or Always: the pods' restart policy.
        pub policy: Option<RestartPolicy>,
        /// How many restarts of the type's pods before the type has failed. Defaults to 0: the
        /// pods do not restart.
        pub limit: Option<i64>,
    }
}

/// A set of replicas, as T9k writes it: replica type to replica indexes, e.g.
/// `{"worker": [0, 1]}` for the pods `<job>-worker-0` and `<job>-worker-1`.
pub type FinishRule = BTreeMap<String, Vec<i64>>;

request_part! {
    pub struct RunMode {
        pub debug: Option<DebugMode>,
        pub pause: Option<PauseMode>,
    }
}

request_part! {
    pub struct DebugMode {
        pub enabled: bool,
        pub replica_specs: Option<Vec<ReplicaOverride>>,
    }
}

request_part! {
    pub struct PauseMode {
        pub enabled: bool,
        pub resume_specs: Option<Vec<ReplicaOverride>>,
    }
}

request_part! {
    /// Replaces a replica type's command (and args) in debug mode or on resume.
    pub struct ReplicaOverride {
        #[serde(rename = "type")]
        pub kind: String,
        pub skip_init_container: Option<bool>,
        pub command: Option<String>,
        pub args: Option<String>,
    }
}

request_choice! {
    /// What is removed once the job has finished.
    pub enum CleanUpPolicy {
        /// Keep every pod, running ones included (T9k's default).
        None,
        /// Stop the pods that had not finished; finished pods stay for their logs.
        Unfinished,
        /// Delete the Job and all its pods as soon as the finish is recorded.
        All,
    }
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

    pub fn clean_up(&self) -> CleanUpPolicy {
        self.clean_up_policy.unwrap_or(CleanUpPolicy::None)
    }
}
