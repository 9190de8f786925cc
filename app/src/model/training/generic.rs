//! The generic multi-replica form after T9k's GenericJob: any number of replica types, each with
//! its own spec, rules that decide success and failure, run modes for debugging and for starting
//! paused, and what to clean up afterwards.

use super::request::{ProjectId, TrainingSpec};
use crate::model::validation::{self as v, Errors, index, join};
use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use std::collections::BTreeSet;

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

/// Rules of the generic form beyond each replica's training spec (checked by `validate`).
pub(super) fn validate_spec(errors: &mut Errors, spec: &GenericSpec) {
    let mut types = BTreeSet::new();
    if spec.replica_specs.is_empty() {
        errors.add("spec.replicaSpecs", "must list at least one replica type");
    }
    for (i, replica) in spec.replica_specs.iter().enumerate() {
        let at = index("spec.replicaSpecs", i);
        match v::dns1123_label(&replica.kind, REPLICA_TYPE_MAX) {
            Err(message) => errors.add(join(&at, "type"), message),
            Ok(()) if !types.insert(replica.kind.as_str()) => errors.add(
                join(&at, "type"),
                format!("{:?} is used twice", replica.kind),
            ),
            Ok(()) => {}
        }
        if let Some(n) = replica.replicas
            && !(1..=9999).contains(&n)
        {
            errors.add(
                join(&at, "replicas"),
                format!("must be from 1 to 9999 (got {n})"),
            );
        }
        if let Some(limit) = replica.restart_policy.as_ref().and_then(|p| p.limit) {
            // The task's maxRetry is an int32.
            errors.check(
                join(&join(&at, "restartPolicy"), "limit"),
                v::between(limit, 0, v::I32_MAX),
            );
        }
        for field in ["completions", "parallelism"] {
            let set = if field == "completions" {
                replica.spec.completions
            } else {
                replica.spec.parallelism
            };
            if set.is_some() {
                errors.add(
                    join(&join(&at, "spec"), field),
                    "is not used here; set replicas",
                );
            }
        }
    }
    for (field, rules) in [
        ("successRules", &spec.success_rules),
        ("failureRules", &spec.failure_rules),
    ] {
        for (i, rule) in rules.iter().flatten().enumerate() {
            let at = join(&index(&join("spec", field), i), "replicaTypes");
            if rule.replica_types.is_empty() {
                errors.add(&at, "must name at least one replica type");
            }
            if field == "successRules" && rule.replica_types.len() > 1 {
                errors.add(
                    &at,
                    "must name one replica type: Volcano completes a job when one task completes; \
                     list several rules for alternatives",
                );
            }
            for (j, kind) in rule.replica_types.iter().enumerate() {
                if !types.contains(kind.as_str()) {
                    errors.add(
                        index(&at, j),
                        format!("{kind:?} is not a replica type of this job"),
                    );
                }
            }
        }
    }
    if let Some(mode) = &spec.run_mode {
        if mode.debug.as_ref().is_some_and(|d| d.enabled)
            && mode.pause.as_ref().is_some_and(|p| p.enabled)
        {
            errors.add("spec.runMode", "debug and pause cannot both be enabled");
        }
        let overrides = [
            (
                "spec.runMode.debug.replicaSpecs",
                mode.debug.as_ref().and_then(|d| d.replica_specs.as_ref()),
            ),
            (
                "spec.runMode.pause.resumeSpecs",
                mode.pause.as_ref().and_then(|p| p.resume_specs.as_ref()),
            ),
        ];
        for (path, list) in overrides {
            for (i, o) in list.into_iter().flatten().enumerate() {
                let at = index(path, i);
                if !types.contains(o.kind.as_str()) {
                    errors.add(
                        join(&at, "type"),
                        format!("{:?} is not a replica type of this job", o.kind),
                    );
                }
                for (field, value) in [("command", &o.command), ("args", &o.args)] {
                    if let Some(value) = value
                        && let Err(message) = v::shell_words(value)
                    {
                        errors.add(join(&at, field), message);
                    }
                }
            }
        }
    }
    if spec.clean_up_policy == Some(CleanUpPolicy::All)
        && spec
            .replica_specs
            .iter()
            .any(|r| r.spec.auto_deletion_time_after_completion_seconds.is_some())
    {
        errors.add(
            "spec.cleanUpPolicy",
            "All deletes the job as soon as it finishes; remove autoDeletionTimeAfterCompletionSeconds or choose another policy",
        );
    }
}
