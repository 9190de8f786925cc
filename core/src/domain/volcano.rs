//! The Volcano Job (`batch.volcano.sh/v1alpha1`), written by hand with the fields Tephra sets and
//! reads. Server-side apply only manages the fields sent, so a partial type is safe; the schema
//! test checks every rendered Job against Volcano's own CRD.

use k8s_openapi::api::core::v1::PodTemplateSpec;
use kube::CustomResource;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "batch.volcano.sh",
    version = "v1alpha1",
    kind = "Job",
    plural = "jobs",
    shortname = "vcjob",
    namespaced,
    status = "JobStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    /// The gang gate: the PodGroup's minMember. Pods are bound only when this many fit at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_available: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retry: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_success: Option<i32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub plugins: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<LifecyclePolicy>,
    #[serde(default)]
    pub tasks: Vec<TaskSpec>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TaskSpec {
    pub name: String,
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_available: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retry: Option<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<LifecyclePolicy>,
    /// The controller creates this task's pods only once the named tasks' pods run and are ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<DependsOn>,
    pub template: PodTemplateSpec,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DependsOn {
    pub name: Vec<String>,
    /// `any` or `all` of the named tasks; Volcano's default is `all`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct LifecyclePolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    pub action: String,
}

impl LifecyclePolicy {
    pub fn on(event: &str, action: &str) -> Self {
        LifecyclePolicy {
            event: Some(event.into()),
            exit_code: None,
            action: action.into(),
        }
    }
}

/// What the Volcano controller reports; read by the watchers.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    #[serde(default)]
    pub state: JobState,
    #[serde(default)]
    pub min_available: i32,
    #[serde(default)]
    pub pending: i32,
    #[serde(default)]
    pub running: i32,
    #[serde(default)]
    pub succeeded: i32,
    #[serde(default)]
    pub failed: i32,
    #[serde(default)]
    pub terminating: i32,
    #[serde(default)]
    pub unknown: i32,
    #[serde(default)]
    pub retry_count: i32,
    #[serde(default)]
    pub version: i32,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct JobState {
    #[serde(default)]
    pub phase: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
