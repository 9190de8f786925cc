//! The training request in the Run:ai Trainings API shape (seed 003), field for field. These types
//! only describe the JSON; what is allowed is checked in `validate`, so every problem is reported
//! with its path at once instead of stopping at the first one serde meets.

use serde::{Deserialize, Serialize};

/// `POST /api/v1/workloads/trainings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrainingRequest {
    pub name: String,
    /// Append a short random suffix to `name` so the same request can be submitted repeatedly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_given_name_as_prefix: Option<bool>,
    /// Run:ai sends a number; Tephra's project ids are strings. Both are accepted.
    pub project_id: ProjectId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_id: Option<String>,
    #[serde(default)]
    pub spec: TrainingSpec,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrainingSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_pull_policy: Option<ImagePullPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_home_dir: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<Probes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_pools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_affinity: Option<PodAffinity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tty: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_variables: Option<Vec<EnvironmentVariable>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Vec<NameValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<NameValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Vec<Toleration>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminate_after_preemption: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_deletion_time_after_completion_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<Port>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposed_urls: Option<Vec<ExposedUrl>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute: Option<Compute>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<Storage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Security>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness: Option<Probe>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_delay_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_threshold: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_threshold: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handler: Option<ProbeHandler>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeHandler {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_get: Option<HttpGet>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpGet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<HttpScheme>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpScheme {
    Http,
    Https,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodAffinity {
    #[serde(rename = "type")]
    pub kind: AffinityType,
    /// The topology key: pods of the job are placed together within a domain of this node label.
    pub key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AffinityType {
    Required,
    Preferred,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentVariable {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretKeyRef>,
    /// Removes a variable of this name that a default or policy would otherwise add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretKeyRef {
    pub name: String,
    pub key: String,
}

/// A label or annotation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NameValue {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    /// A display name for the rule; not sent to Kubernetes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<TolerationOperator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<TaintEffect>,
    /// How long a NoExecute taint is tolerated before eviction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TolerationOperator {
    Equal,
    Exists,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
    /// Matches every effect.
    #[serde(rename = "Any")]
    Any,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Port {
    pub container: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_type: Option<ServiceType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExposedUrl {
    pub container: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorized_users: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorized_groups: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compute {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_devices_request: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_request_type: Option<GpuRequestType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_portion_request: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_portion_limit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_memory_request: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_memory_limit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_profile: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_core_request: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_core_limit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_memory_request: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_memory_limit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub large_shm_request: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended_resources: Option<Vec<ExtendedResource>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GpuRequestType {
    Portion,
    Memory,
    MigProfile,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtendedResource {
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Storage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_volume: Option<Vec<DataVolume>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pvc: Option<Vec<Pvc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<Vec<Git>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map_volume: Option<Vec<ConfigMapVolume>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_volume: Option<Vec<SecretVolume>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_path: Option<Vec<HostPath>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nfs: Option<Vec<Nfs>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s3: Option<Vec<S3>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataVolume {
    pub id: String,
    pub mount_path: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pvc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_pvc: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_name: Option<String>,
    /// Where the claim is mounted in the container.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_info: Option<ClaimInfo>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_modes: Option<AccessModes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<VolumeMode>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessModes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_write_once: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_many: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_write_many: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VolumeMode {
    Filesystem,
    Block,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Git {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The URL to clone. Run:ai's example leaves it out; without it there is nothing to clone, so
    /// Tephra requires it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Where the clone appears in the container.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key_of_user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key_of_password: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMapVolume {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub config_map: String,
    pub mount_path: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretVolume {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub secret: String,
    pub mount_path: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostPath {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The directory on the node.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// Where the directory appears in the container.
    pub mount_path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_propagation: Option<MountPropagation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MountPropagation {
    None,
    HostToContainer,
    Bidirectional,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Nfs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The exported directory on the server.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    pub server: String,
    /// Where the export appears in the container.
    pub mount_path: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct S3 {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub bucket: String,
    /// Where the bucket appears in the container.
    pub path: String,
    /// The S3 endpoint, for stores other than the cluster default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_key_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key_of_access_key_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key_of_secret_key: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Security {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid_gid_source: Option<UidGidSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seccomp_profile_type: Option<SeccompProfileType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_as_non_root: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_root_filesystem: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_as_uid: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_as_gid: Option<i64>,
    /// Comma-separated group ids, e.g. `"2,3,5,8"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supplemental_groups: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_privilege_escalation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_ipc: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_network: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UidGidSource {
    FromTheImage,
    Custom,
    FromIdpToken,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
