//! The training request in the Run:ai Trainings API shape (seed 003), field for field. These types
//! only describe the JSON; what is allowed is checked in `validate`, so every problem is reported
//! with its path at once instead of stopping at the first one serde meets.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

/// `POST /api/v1/workloads/trainings`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
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

/// Everything about one container and its pod. Distributed requests use it for workers and,
/// optionally, for the master.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrainingSpec {
    pub command: Option<String>,
    pub args: Option<String>,
    pub image: Option<String>,
    pub image_pull_policy: Option<ImagePullPolicy>,
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum ImagePullPolicy {
    Always,
    IfNotPresent,
    Never,
}

impl ImagePullPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            ImagePullPolicy::Always => "Always",
            ImagePullPolicy::IfNotPresent => "IfNotPresent",
            ImagePullPolicy::Never => "Never",
        }
    }
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Probes {
    pub readiness: Option<Probe>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    pub initial_delay_seconds: Option<i64>,
    pub period_seconds: Option<i64>,
    pub timeout_seconds: Option<i64>,
    pub success_threshold: Option<i64>,
    pub failure_threshold: Option<i64>,
    pub handler: Option<ProbeHandler>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProbeHandler {
    pub http_get: Option<HttpGet>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HttpGet {
    pub path: Option<String>,
    pub port: Option<i64>,
    pub host: Option<String>,
    pub scheme: Option<HttpScheme>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpScheme {
    Http,
    Https,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodAffinity {
    #[serde(rename = "type")]
    pub kind: AffinityType,
    /// The topology key: pods of the job are placed together within a domain of this node label.
    pub key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum AffinityType {
    Required,
    Preferred,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentVariable {
    pub name: String,
    pub value: Option<String>,
    pub secret: Option<SecretKeyRef>,
    /// Removes a variable of this name that a default or policy would otherwise add.
    pub exclude: Option<bool>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecretKeyRef {
    pub name: String,
    pub key: String,
}

/// A label or annotation.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NameValue {
    pub name: String,
    pub value: Option<String>,
    pub exclude: Option<bool>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum TolerationOperator {
    Equal,
    Exists,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
    /// Matches every effect.
    #[serde(rename = "Any")]
    Any,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Port {
    pub container: i64,
    pub service_type: Option<ServiceType>,
    pub external: Option<i64>,
    pub tool_type: Option<String>,
    pub tool_name: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum ServiceType {
    LoadBalancer,
    NodePort,
    ClusterIP,
}

impl ServiceType {
    pub fn as_str(self) -> &'static str {
        match self {
            ServiceType::LoadBalancer => "LoadBalancer",
            ServiceType::NodePort => "NodePort",
            ServiceType::ClusterIP => "ClusterIP",
        }
    }
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExposedUrl {
    pub container: i64,
    pub authorized_users: Option<Vec<String>>,
    pub authorized_groups: Option<Vec<String>>,
    pub tool_type: Option<String>,
    pub tool_name: Option<String>,
    pub name: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Compute {
    pub gpu_devices_request: Option<i64>,
    pub gpu_request_type: Option<GpuRequestType>,
    pub gpu_portion_request: Option<f64>,
    pub gpu_portion_limit: Option<f64>,
    pub gpu_memory_request: Option<String>,
    pub gpu_memory_limit: Option<String>,
    pub mig_profile: Option<String>,
    pub cpu_core_request: Option<f64>,
    pub cpu_core_limit: Option<f64>,
    pub cpu_memory_request: Option<String>,
    pub cpu_memory_limit: Option<String>,
    pub large_shm_request: Option<bool>,
    pub extended_resources: Option<Vec<ExtendedResource>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum GpuRequestType {
    Portion,
    Memory,
    MigProfile,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExtendedResource {
    pub resource: String,
    #[cfg_attr(feature = "ssr", schema(value_type = Option<Object>))]
    pub quantity: Option<serde_json::Value>,
    pub exclude: Option<bool>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Storage {
    pub data_volume: Option<Vec<DataVolume>>,
    pub pvc: Option<Vec<Pvc>>,
    pub git: Option<Vec<Git>>,
    pub config_map_volume: Option<Vec<ConfigMapVolume>>,
    pub secret_volume: Option<Vec<SecretVolume>>,
    pub host_path: Option<Vec<HostPath>>,
    pub nfs: Option<Vec<Nfs>>,
    pub s3: Option<Vec<S3>>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DataVolume {
    pub id: String,
    pub mount_path: String,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Pvc {
    pub name: Option<String>,
    pub existing_pvc: Option<bool>,
    pub claim_name: Option<String>,
    /// Where the claim is mounted in the container.
    pub path: String,
    pub read_only: Option<bool>,
    pub ephemeral: Option<bool>,
    pub claim_info: Option<ClaimInfo>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClaimInfo {
    pub size: Option<String>,
    pub storage_class: Option<String>,
    pub access_modes: Option<AccessModes>,
    pub volume_mode: Option<VolumeMode>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccessModes {
    pub read_write_once: Option<bool>,
    pub read_only_many: Option<bool>,
    pub read_write_many: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum VolumeMode {
    Filesystem,
    Block,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Git {
    pub name: Option<String>,
    /// The URL to clone. Run:ai's example leaves it out; without it there is nothing to clone, so
    /// Tephra requires it.
    pub repository: Option<String>,
    pub branch: Option<String>,
    pub revision: Option<String>,
    /// Where the clone appears in the container.
    pub path: String,
    pub password_secret: Option<String>,
    pub secret_key_of_user: Option<String>,
    pub secret_key_of_password: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConfigMapVolume {
    pub name: Option<String>,
    pub config_map: String,
    pub mount_path: String,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecretVolume {
    pub name: Option<String>,
    pub secret: String,
    pub mount_path: String,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HostPath {
    pub name: Option<String>,
    /// The directory on the node.
    pub path: String,
    pub read_only: Option<bool>,
    /// Where the directory appears in the container.
    pub mount_path: String,
    pub mount_propagation: Option<MountPropagation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum MountPropagation {
    None,
    HostToContainer,
    Bidirectional,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Nfs {
    pub name: Option<String>,
    /// The exported directory on the server.
    pub path: String,
    pub read_only: Option<bool>,
    pub server: String,
    /// Where the export appears in the container.
    pub mount_path: String,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct S3 {
    pub name: Option<String>,
    pub bucket: String,
    /// Where the bucket appears in the container.
    pub path: String,
    /// The S3 endpoint, for stores other than the cluster default.
    pub url: Option<String>,
    pub access_key_secret: Option<String>,
    pub secret_key_of_access_key_id: Option<String>,
    pub secret_key_of_secret_key: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Security {
    pub uid_gid_source: Option<UidGidSource>,
    pub capabilities: Option<Vec<String>>,
    pub seccomp_profile_type: Option<SeccompProfileType>,
    pub run_as_non_root: Option<bool>,
    pub read_only_root_filesystem: Option<bool>,
    pub run_as_uid: Option<i64>,
    pub run_as_gid: Option<i64>,
    /// Comma-separated group ids, e.g. `"2,3,5,8"`.
    pub supplemental_groups: Option<String>,
    pub allow_privilege_escalation: Option<bool>,
    pub host_ipc: Option<bool>,
    pub host_network: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum UidGidSource {
    FromTheImage,
    Custom,
    FromIdpToken,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum SeccompProfileType {
    RuntimeDefault,
    Unconfined,
    Localhost,
}

impl SeccompProfileType {
    pub fn as_str(self) -> &'static str {
        match self {
            SeccompProfileType::RuntimeDefault => "RuntimeDefault",
            SeccompProfileType::Unconfined => "Unconfined",
            SeccompProfileType::Localhost => "Localhost",
        }
    }
}
