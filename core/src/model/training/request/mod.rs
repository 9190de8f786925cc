//! The training request in the Run:ai Trainings API shape (seed 003), field for field. These types
//! only describe the JSON; what is allowed is checked in `validate`, so every problem is reported
//! with its path at once instead of stopping at the first one serde meets.

mod compute;
mod pod;
mod security;
mod storage;

pub use compute::{Compute, ExtendedResource, GpuRequestType};
pub use pod::{
    ImagePullSecret, MatchExpression, MatchOperator, NodeAffinityRequired, NodeSelectorTerm,
    Preemptibility, PullSecret, RelatedUrl, RestartPolicy,
};
pub use security::{SeccompProfileType, Security, UidGidSource};
pub use storage::{
    AccessModes, ClaimInfo, ConfigMapVolume, DataVolume, EmptyDirVolume, Git, HostPath,
    MountPropagation, Nfs, Pvc, S3, SecretVolume, Storage, VolumeMode,
};

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

/// `POST /api/v1/workloads/trainings`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrainingRequest {
    pub name: String,
    /// Append a short random suffix to `name` so the same request can be submitted repeatedly.
    pub use_given_name_as_prefix: Option<bool>,
    /// Run:ai sends a number; Tephra's project ids are strings. Both are accepted.
    pub project_id: ProjectId,
    pub cluster_id: Option<String>,
    #[serde(default)]
    pub spec: TrainingSpec,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum ProjectId {
    Number(u64),
    Text(String),
}

impl std::fmt::Display for ProjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProjectId::Number(n) => write!(f, "{n}"),
            ProjectId::Text(s) => f.write_str(s),
        }
    }
}

request_part! {
    /// Everything about one container and its pod. Distributed requests use it for workers and,
    /// optionally, for the master.
    pub struct TrainingSpec {
        pub command: Option<String>,
        pub args: Option<String>,
        pub image: Option<String>,
        pub image_pull_policy: Option<ImagePullPolicy>,
        /// Secrets in the project's namespace with the registry credentials for `image`.
        pub image_pull_secrets: Option<Vec<ImagePullSecret>>,
        pub working_dir: Option<String>,
        pub create_home_dir: Option<bool>,
        pub probes: Option<Probes>,
        pub node_type: Option<String>,
        pub node_pools: Option<Vec<String>>,
        pub pod_affinity: Option<PodAffinity>,
        pub tty: Option<bool>,
        pub stdin: Option<bool>,
        pub environment_variables: Option<Vec<EnvironmentVariable>>,
        pub annotations: Option<Vec<NameValue>>,
        pub labels: Option<Vec<NameValue>>,
        pub tolerations: Option<Vec<Toleration>>,
        pub terminate_after_preemption: Option<bool>,
        pub auto_deletion_time_after_completion_seconds: Option<i64>,
        pub backoff_limit: Option<i64>,
        pub ports: Option<Vec<Port>>,
        pub exposed_urls: Option<Vec<ExposedUrl>>,
        pub priority_class: Option<String>,
        pub completions: Option<i64>,
        pub parallelism: Option<i64>,
        pub compute: Option<Compute>,
        pub storage: Option<Storage>,
        pub security: Option<Security>,
        /// A label to group workloads by (Run:ai's workload category).
        pub category: Option<String>,
        pub node_affinity_required: Option<NodeAffinityRequired>,
        pub preemptibility: Option<Preemptibility>,
        pub related_urls: Option<Vec<RelatedUrl>>,
        pub restart_policy: Option<RestartPolicy>,
        pub termination_grace_period_seconds: Option<i64>,
        /// Tephra's addition: stop the training once it has run this long (each run: a resumed
        /// training starts a new one). Its pods get their grace period to checkpoint.
        pub max_run_time_seconds: Option<i64>,
    }
}

request_part! {
    pub struct Probes {
        pub readiness: Option<Probe>,
    }
}

request_part! {
    pub struct Probe {
        pub initial_delay_seconds: Option<i64>,
        pub period_seconds: Option<i64>,
        pub timeout_seconds: Option<i64>,
        pub success_threshold: Option<i64>,
        pub failure_threshold: Option<i64>,
        pub handler: Option<ProbeHandler>,
    }
}

request_part! {
    pub struct ProbeHandler {
        pub http_get: Option<HttpGet>,
    }
}

request_part! {
    pub struct HttpGet {
        pub path: Option<String>,
        pub port: Option<i64>,
        pub host: Option<String>,
        pub scheme: Option<HttpScheme>,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpScheme {
    Http,
    Https,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodAffinity {
    #[serde(rename = "type")]
    pub kind: AffinityType,
    /// The topology key: pods of the job are placed together within a domain of this node label.
    pub key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum AffinityType {
    Required,
    Preferred,
}

request_part! {
    pub struct EnvironmentVariable {
        pub name: String,
        pub value: Option<String>,
        pub secret: Option<SecretKeyRef>,
        /// Removes a variable of this name that a default or policy would otherwise add.
        pub exclude: Option<bool>,
    }
}

request_part! {
    pub struct SecretKeyRef {
        pub name: String,
        pub key: String,
    }
}

request_part! {
    /// A label or annotation.
    pub struct NameValue {
        pub name: String,
        pub value: Option<String>,
        pub exclude: Option<bool>,
    }
}

request_part! {
    pub struct Toleration {
        /// A display name for the rule; not sent to Kubernetes.
        pub name: Option<String>,
        pub operator: Option<TolerationOperator>,
        pub key: Option<String>,
        pub value: Option<String>,
        pub effect: Option<TaintEffect>,
        /// How long a NoExecute taint is tolerated before eviction.
        pub seconds: Option<i64>,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TolerationOperator {
    Equal,
    Exists,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
    /// Matches every effect.
    #[serde(rename = "Any")]
    Any,
}

request_part! {
    pub struct Port {
        pub container: i64,
        pub service_type: Option<ServiceType>,
        pub external: Option<i64>,
        pub tool_type: Option<String>,
        pub tool_name: Option<String>,
        pub name: Option<String>,
    }
}

request_choice! {
    pub enum ServiceType {
        LoadBalancer,
        NodePort,
        ClusterIP,
    }
}

request_part! {
    pub struct ExposedUrl {
        pub container: i64,
        pub authorized_users: Option<Vec<String>>,
        pub authorized_groups: Option<Vec<String>>,
        pub tool_type: Option<String>,
        pub tool_name: Option<String>,
        pub name: Option<String>,
    }
}

request_choice! {
    pub enum ImagePullPolicy {
        Always,
        IfNotPresent,
        Never,
    }
}
