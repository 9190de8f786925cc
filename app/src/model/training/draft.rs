//! The new-training form's state: what the user typed, as text, before it is a request.
//!
//! A draft never fails to convert: [`TrainingDraft::to_request`] writes numbers that parse as
//! numbers and everything else as the typed text, so the strict request parser (the same one the
//! API runs) reports every problem with the API's own path and message. Blank rows are kept, not
//! skipped, so row `i` of a list is always element `i` of its JSON array.
//!
//! Every field has a serde default, so an HTML form posted without JavaScript (unchecked boxes are
//! absent, lists may be missing) deserializes too.

use serde::{Deserialize, Serialize};

/// How the GPUs of one pod are asked for; the form shows one choice at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuMode {
    #[default]
    None,
    /// Whole GPUs: `compute.gpuDevicesRequest`.
    Devices,
    /// A fraction of one GPU: `gpuRequestType: portion`, `gpuPortionRequest`.
    Portion,
    /// GPU memory: `gpuRequestType: memory`, `gpuMemoryRequest`.
    Memory,
    /// A MIG profile: `gpuRequestType: migProfile`, `migProfile`.
    Mig,
}

/// What a storage row mounts. Each maps to one array under `spec.storage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VolumeKind {
    /// `storage.pvc` with `existingPvc: true`: `source` is the claim name.
    #[default]
    ExistingPvc,
    /// `storage.pvc` with `claimInfo` (size, storage class, access mode): a claim made for it.
    NewPvc,
    /// `storage.nfs`: `endpoint` is the server, `source` the exported path.
    Nfs,
    /// `storage.hostPath`: `source` is the directory on the node.
    HostPath,
    /// `storage.configMapVolume`: `source` is the config map.
    ConfigMap,
    /// `storage.secretVolume`: `source` is the secret.
    Secret,
    /// `storage.git`: `source` is the repository URL, `revision` the branch, `secret` the
    /// password secret.
    Git,
    /// `storage.s3`: `source` is the bucket, `endpoint` the URL, `secret` the access key secret.
    S3,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvRow {
    pub name: String,
    /// Take the value from a secret (`secret_name`, `secret_key`) instead of `value`.
    pub from_secret: bool,
    pub value: String,
    pub secret_name: String,
    pub secret_key: String,
}

/// A label, annotation or extended resource (`name` is the resource, `value` the quantity).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct KeyValueRow {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VolumeRow {
    pub kind: VolumeKind,
    pub source: String,
    pub endpoint: String,
    pub revision: String,
    pub secret: String,
    pub mount_path: String,
    pub read_only: bool,
    /// New claims only.
    pub size: String,
    pub storage_class: String,
    /// New claims only: `ReadWriteOnce`, `ReadOnlyMany` or `ReadWriteMany`; blank for the default.
    pub access_mode: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TolerationRow {
    pub key: String,
    /// `Equal`, `Exists`, or blank for the default.
    pub operator: String,
    pub value: String,
    /// `NoSchedule`, `PreferNoSchedule`, `NoExecute`, or blank for any.
    pub effect: String,
    /// Seconds a `NoExecute` taint is tolerated; blank for ever.
    pub seconds: String,
}

/// Everything the form edits. Text fields hold what was typed; blank means "not set".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainingDraft {
    // General
    pub name: String,
    /// A project id or name.
    pub project: String,
    pub image: String,
    /// `Always`, `IfNotPresent`, `Never`, or blank for the cluster default.
    pub image_pull_policy: String,
    pub command: String,
    pub args: String,
    pub working_dir: String,
    pub env: Vec<EnvRow>,
    pub labels: Vec<KeyValueRow>,
    pub annotations: Vec<KeyValueRow>,

    // Compute (per pod)
    pub gpu_mode: GpuMode,
    pub gpu_devices: String,
    pub gpu_portion: String,
    pub gpu_memory: String,
    pub mig_profile: String,
    pub cpu_request: String,
    pub cpu_limit: String,
    pub memory_request: String,
    pub memory_limit: String,
    pub large_shm: bool,
    pub extended_resources: Vec<KeyValueRow>,

    // Storage
    pub volumes: Vec<VolumeRow>,

    // Security
    /// `fromTheImage`, `custom`, `fromIdpToken`, or blank.
    pub uid_gid_source: String,
    pub run_as_uid: String,
    pub run_as_gid: String,
    /// Comma-separated group ids.
    pub supplemental_groups: String,
    pub run_as_non_root: bool,
    /// Comma-separated Linux capabilities, e.g. `SYS_PTRACE, NET_ADMIN`.
    pub capabilities: String,
    /// `RuntimeDefault`, `Unconfined`, `Localhost`, or blank.
    pub seccomp_profile: String,
    pub read_only_root_filesystem: bool,
    /// `true`, `false`, or blank for the Kubernetes default.
    pub allow_privilege_escalation: String,
    pub host_ipc: bool,
    pub host_network: bool,

    // Scheduling
    pub tolerations: Vec<TolerationRow>,
    /// Comma-separated node pool names, in order of preference.
    pub node_pools: String,
    pub node_type: String,
    /// `Required`, `Preferred`, or blank for none.
    pub pod_affinity: String,
    pub pod_affinity_key: String,
    pub priority_class: String,

    // Distributed
    pub distributed: bool,
    /// `PyTorch`, `MPI`, `TF`, `XGBoost`.
    pub framework: String,
    pub num_workers: String,
    /// The master asks for its own GPUs, CPU and memory instead of the worker's.
    pub master_own_resources: bool,
    pub master_gpu_devices: String,
    pub master_cpu_request: String,
    pub master_memory_request: String,

    // Lifecycle
    pub completions: String,
    pub parallelism: String,
    pub backoff_limit: String,
    pub auto_deletion_seconds: String,
    pub terminate_after_preemption: bool,

    /// Spec keys the form has no fields for (ports, probes, exposed URLs...), as JSON, carried
    /// over from a cloned training so a clone loses nothing.
    pub carried: String,
}

use super::parse;
use crate::model::validation::FieldError;
use serde_json::{Map, Value, json};

/// Text as JSON: blank is absent; what parses as a number is one; anything else stays text, so
/// the strict parser names the field and says what type it wants.
fn number(text: &str) -> Option<Value> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if let Ok(n) = t.parse::<i64>() {
        return Some(json!(n));
    }
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() => Some(json!(f)),
        _ => Some(Value::String(t.to_owned())),
    }
}

fn text(value: &str) -> Option<Value> {
    let t = value.trim();
    (!t.is_empty()).then(|| Value::String(t.to_owned()))
}

/// Comma-separated items as an array; absent when there are none.
fn list(value: &str) -> Option<Value> {
    let items: Vec<Value> = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| Value::String(s.to_owned()))
        .collect();
    (!items.is_empty()).then_some(Value::Array(items))
}

fn flag(on: bool) -> Option<Value> {
    on.then_some(Value::Bool(true))
}

/// `true`/`false` text as a boolean; blank is absent, anything else stays text.
fn tri_state(value: &str) -> Option<Value> {
    match value.trim() {
        "" => None,
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        other => Some(Value::String(other.to_owned())),
    }
}

/// An object of the entries that are set; absent when none is.
fn object(entries: Vec<(&str, Option<Value>)>) -> Option<Value> {
    let map: Map<String, Value> = entries
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
        .collect();
    (!map.is_empty()).then_some(Value::Object(map))
}

/// Like [`object`], but always an object: a row of a list keeps its place even when blank.
fn row(entries: Vec<(&str, Option<Value>)>) -> Value {
    object(entries).unwrap_or_else(|| Value::Object(Map::new()))
}

/// Required text: always written, so a blank one is named by the validator.
fn required(value: &str) -> Option<Value> {
    Some(Value::String(value.trim().to_owned()))
}

fn rows<T>(items: &[T], f: impl Fn(&T) -> Value) -> Option<Value> {
    (!items.is_empty()).then(|| Value::Array(items.iter().map(f).collect()))
}

impl VolumeKind {
    /// The array under `spec.storage` rows of this kind go to.
    fn array(self) -> &'static str {
        match self {
            VolumeKind::ExistingPvc | VolumeKind::NewPvc => "pvc",
            VolumeKind::Nfs => "nfs",
            VolumeKind::HostPath => "hostPath",
            VolumeKind::ConfigMap => "configMapVolume",
            VolumeKind::Secret => "secretVolume",
            VolumeKind::Git => "git",
            VolumeKind::S3 => "s3",
        }
    }
}

impl VolumeRow {
    fn to_json(&self) -> Value {
        let read_only = flag(self.read_only);
        match self.kind {
            VolumeKind::ExistingPvc => row(vec![
                ("existingPvc", Some(Value::Bool(true))),
                ("claimName", required(&self.source)),
                ("path", required(&self.mount_path)),
                ("readOnly", read_only),
            ]),
            VolumeKind::NewPvc => {
                let modes = match self.access_mode.trim() {
                    "" => None,
                    "ReadWriteOnce" => Some(json!({ "readWriteOnce": true })),
                    "ReadOnlyMany" => Some(json!({ "readOnlyMany": true })),
                    "ReadWriteMany" => Some(json!({ "readWriteMany": true })),
                    other => Some(Value::String(other.to_owned())),
                };
                row(vec![
                    ("existingPvc", Some(Value::Bool(false))),
                    ("claimName", text(&self.source)),
                    ("path", required(&self.mount_path)),
                    ("readOnly", read_only),
                    (
                        "claimInfo",
                        object(vec![
                            ("size", text(&self.size)),
                            ("storageClass", text(&self.storage_class)),
                            ("accessModes", modes),
                        ]),
                    ),
                ])
            }
            VolumeKind::Nfs => row(vec![
                ("server", required(&self.endpoint)),
                ("path", required(&self.source)),
                ("mountPath", required(&self.mount_path)),
                ("readOnly", read_only),
            ]),
            VolumeKind::HostPath => row(vec![
                ("path", required(&self.source)),
                ("mountPath", required(&self.mount_path)),
                ("readOnly", read_only),
            ]),
            VolumeKind::ConfigMap => row(vec![
                ("configMap", required(&self.source)),
                ("mountPath", required(&self.mount_path)),
            ]),
            VolumeKind::Secret => row(vec![
                ("secret", required(&self.source)),
                ("mountPath", required(&self.mount_path)),
            ]),
            VolumeKind::Git => row(vec![
                ("repository", required(&self.source)),
                ("branch", text(&self.revision)),
                ("path", required(&self.mount_path)),
                ("passwordSecret", text(&self.secret)),
            ]),
            VolumeKind::S3 => row(vec![
                ("bucket", required(&self.source)),
                ("url", text(&self.endpoint)),
                ("path", required(&self.mount_path)),
                ("accessKeySecret", text(&self.secret)),
            ]),
        }
    }

    /// The row a stored volume of `array` becomes.
    fn from_json(array: &str, v: &Value) -> VolumeRow {
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
        let read_only = v["readOnly"].as_bool().unwrap_or(false);
        let base = VolumeRow {
            read_only,
            ..VolumeRow::default()
        };
        match array {
            "pvc" => {
                let info = &v["claimInfo"];
                let modes = &info["accessModes"];
                let access_mode = [
                    ("readWriteOnce", "ReadWriteOnce"),
                    ("readOnlyMany", "ReadOnlyMany"),
                    ("readWriteMany", "ReadWriteMany"),
                ]
                .into_iter()
                .find(|(k, _)| modes[*k].as_bool() == Some(true))
                .map(|(_, m)| m.to_owned())
                .unwrap_or_default();
                let existing = v["existingPvc"].as_bool() != Some(false) && info.is_null();
                VolumeRow {
                    kind: if existing {
                        VolumeKind::ExistingPvc
                    } else {
                        VolumeKind::NewPvc
                    },
                    source: s("claimName"),
                    mount_path: s("path"),
                    size: info["size"].as_str().unwrap_or_default().to_owned(),
                    storage_class: info["storageClass"].as_str().unwrap_or_default().to_owned(),
                    access_mode,
                    ..base
                }
            }
            "nfs" => VolumeRow {
                kind: VolumeKind::Nfs,
                endpoint: s("server"),
                source: s("path"),
                mount_path: s("mountPath"),
                ..base
            },
            "hostPath" => VolumeRow {
                kind: VolumeKind::HostPath,
                source: s("path"),
                mount_path: s("mountPath"),
                ..base
            },
            "configMapVolume" => VolumeRow {
                kind: VolumeKind::ConfigMap,
                source: s("configMap"),
                mount_path: s("mountPath"),
                ..base
            },
            "secretVolume" => VolumeRow {
                kind: VolumeKind::Secret,
                source: s("secret"),
                mount_path: s("mountPath"),
                ..base
            },
            "git" => VolumeRow {
                kind: VolumeKind::Git,
                source: s("repository"),
                revision: s("branch"),
                mount_path: s("path"),
                secret: s("passwordSecret"),
                ..base
            },
            _ => VolumeRow {
                kind: VolumeKind::S3,
                source: s("bucket"),
                endpoint: s("url"),
                mount_path: s("path"),
                secret: s("accessKeySecret"),
                ..base
            },
        }
    }
}

/// Volume keys the form edits, per storage array; a stored volume with others is carried as is.
const VOLUME_KEYS: [(&str, &[&str]); 7] = [
    (
        "pvc",
        &["existingPvc", "claimName", "path", "readOnly", "claimInfo"],
    ),
    ("nfs", &["server", "path", "mountPath", "readOnly"]),
    ("hostPath", &["path", "mountPath", "readOnly"]),
    ("configMapVolume", &["configMap", "mountPath"]),
    ("secretVolume", &["secret", "mountPath"]),
    ("git", &["repository", "branch", "path", "passwordSecret"]),
    ("s3", &["bucket", "url", "path", "accessKeySecret"]),
];

/// Spec keys the form has fields for; everything else in a cloned spec is carried.
const FORM_KEYS: [&str; 25] = [
    "image",
    "imagePullPolicy",
    "command",
    "args",
    "workingDir",
    "environmentVariables",
    "labels",
    "annotations",
    "compute",
    "storage",
    "security",
    "tolerations",
    "nodePools",
    "nodeType",
    "podAffinity",
    "priorityClass",
    "completions",
    "parallelism",
    "backoffLimit",
    "autoDeletionTimeAfterCompletionSeconds",
    "terminateAfterPreemption",
    "distributedFramework",
    "numWorkers",
    "masterSpecSameAsWorker",
    "master",
];

/// Compute keys the form has fields for.
const COMPUTE_KEYS: [&str; 11] = [
    "gpuDevicesRequest",
    "gpuRequestType",
    "gpuPortionRequest",
    "gpuMemoryRequest",
    "migProfile",
    "cpuCoreRequest",
    "cpuCoreLimit",
    "cpuMemoryRequest",
    "cpuMemoryLimit",
    "largeShmRequest",
    "extendedResources",
];

/// Puts the form's `value` for `key` over what a clone carried there: objects merge (the form
/// wins), storage arrays concatenate (the form's rows first, so row `i` keeps index `i`).
fn put(spec: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    let carried = spec.remove(key);
    let merged = match (carried, value) {
        (Some(Value::Object(mut old)), Some(Value::Object(new))) => {
            for (k, v) in new {
                match (old.remove(&k), v) {
                    (Some(Value::Array(rest)), Value::Array(mut first)) if key == "storage" => {
                        first.extend(rest);
                        old.insert(k, Value::Array(first));
                    }
                    (_, v) => {
                        old.insert(k, v);
                    }
                }
            }
            Some(Value::Object(old))
        }
        (Some(old @ Value::Object(_)), None) if matches!(key, "storage" | "compute") => Some(old),
        (_, value) => value,
    };
    if let Some(v) = merged {
        spec.insert(key.to_owned(), v);
    }
}

impl TrainingDraft {
    /// What the form starts with for a project.
    pub fn new(project: &str) -> Self {
        TrainingDraft {
            project: project.to_owned(),
            framework: "PyTorch".to_owned(),
            num_workers: "1".to_owned(),
            ..TrainingDraft::default()
        }
    }

    fn compute(&self) -> Option<Value> {
        let (kind, devices, portion, memory, mig) = match self.gpu_mode {
            GpuMode::None => (None, None, None, None, None),
            GpuMode::Devices => (None, number(&self.gpu_devices), None, None, None),
            GpuMode::Portion => (
                Some(json!("portion")),
                None,
                number(&self.gpu_portion),
                None,
                None,
            ),
            GpuMode::Memory => (
                Some(json!("memory")),
                None,
                None,
                text(&self.gpu_memory),
                None,
            ),
            GpuMode::Mig => (
                Some(json!("migProfile")),
                None,
                None,
                None,
                text(&self.mig_profile),
            ),
        };
        object(vec![
            ("gpuDevicesRequest", devices),
            ("gpuRequestType", kind),
            ("gpuPortionRequest", portion),
            ("gpuMemoryRequest", memory),
            ("migProfile", mig),
            ("cpuCoreRequest", number(&self.cpu_request)),
            ("cpuCoreLimit", number(&self.cpu_limit)),
            ("cpuMemoryRequest", text(&self.memory_request)),
            ("cpuMemoryLimit", text(&self.memory_limit)),
            ("largeShmRequest", flag(self.large_shm)),
            (
                "extendedResources",
                rows(&self.extended_resources, |r| {
                    row(vec![
                        ("resource", required(&r.name)),
                        ("quantity", number(&r.value)),
                    ])
                }),
            ),
        ])
    }

    fn storage(&self) -> Option<Value> {
        let mut storage = Map::new();
        for volume in &self.volumes {
            let array = storage
                .entry(volume.kind.array())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = array {
                items.push(volume.to_json());
            }
        }
        (!storage.is_empty()).then_some(Value::Object(storage))
    }

    fn security(&self) -> Option<Value> {
        object(vec![
            ("uidGidSource", text(&self.uid_gid_source)),
            ("runAsUid", number(&self.run_as_uid)),
            ("runAsGid", number(&self.run_as_gid)),
            ("supplementalGroups", text(&self.supplemental_groups)),
            ("runAsNonRoot", flag(self.run_as_non_root)),
            ("capabilities", list(&self.capabilities)),
            ("seccompProfileType", text(&self.seccomp_profile)),
            (
                "readOnlyRootFilesystem",
                flag(self.read_only_root_filesystem),
            ),
            (
                "allowPrivilegeEscalation",
                tri_state(&self.allow_privilege_escalation),
            ),
            ("hostIpc", flag(self.host_ipc)),
            ("hostNetwork", flag(self.host_network)),
        ])
    }

    /// The worker's (or the single pod's) spec.
    fn spec(&self) -> Map<String, Value> {
        let mut spec = match serde_json::from_str::<Value>(&self.carried) {
            Ok(Value::Object(carried)) => carried,
            _ => Map::new(),
        };
        let name_value =
            |r: &KeyValueRow| row(vec![("name", required(&r.name)), ("value", text(&r.value))]);
        let entries = vec![
            ("image", text(&self.image)),
            ("imagePullPolicy", text(&self.image_pull_policy)),
            ("command", text(&self.command)),
            ("args", text(&self.args)),
            ("workingDir", text(&self.working_dir)),
            (
                "environmentVariables",
                rows(&self.env, |e| {
                    if e.from_secret {
                        row(vec![
                            ("name", required(&e.name)),
                            (
                                "secret",
                                Some(row(vec![
                                    ("name", required(&e.secret_name)),
                                    ("key", required(&e.secret_key)),
                                ])),
                            ),
                        ])
                    } else {
                        row(vec![
                            ("name", required(&e.name)),
                            ("value", Some(Value::String(e.value.clone()))),
                        ])
                    }
                }),
            ),
            ("labels", rows(&self.labels, name_value)),
            ("annotations", rows(&self.annotations, name_value)),
            ("compute", self.compute()),
            ("storage", self.storage()),
            ("security", self.security()),
            (
                "tolerations",
                rows(&self.tolerations, |t| {
                    row(vec![
                        ("key", text(&t.key)),
                        ("operator", text(&t.operator)),
                        ("value", text(&t.value)),
                        ("effect", text(&t.effect)),
                        ("seconds", number(&t.seconds)),
                    ])
                }),
            ),
            ("nodePools", list(&self.node_pools)),
            ("nodeType", text(&self.node_type)),
            (
                "podAffinity",
                text(&self.pod_affinity).map(|kind| {
                    row(vec![
                        ("type", Some(kind)),
                        ("key", required(&self.pod_affinity_key)),
                    ])
                }),
            ),
            ("priorityClass", text(&self.priority_class)),
            ("backoffLimit", number(&self.backoff_limit)),
            (
                "autoDeletionTimeAfterCompletionSeconds",
                number(&self.auto_deletion_seconds),
            ),
            (
                "terminateAfterPreemption",
                flag(self.terminate_after_preemption),
            ),
        ];
        for (key, value) in entries {
            put(&mut spec, key, value);
        }
        if !self.distributed {
            put(&mut spec, "completions", number(&self.completions));
            put(&mut spec, "parallelism", number(&self.parallelism));
        }
        spec
    }

    /// The request JSON this draft describes (see the module docs).
    pub fn to_request(&self) -> Value {
        let mut spec = self.spec();
        if self.distributed {
            for key in [
                "completions",
                "parallelism",
                "master",
                "masterSpecSameAsWorker",
            ] {
                spec.remove(key);
            }
            let worker = spec.clone();
            spec.insert(
                "distributedFramework".into(),
                text(&self.framework).unwrap_or(Value::String(String::new())),
            );
            spec.insert(
                "numWorkers".into(),
                number(&self.num_workers).unwrap_or(Value::String(String::new())),
            );
            if self.master_own_resources {
                let mut master = worker;
                for key in [
                    "distributedFramework",
                    "numWorkers",
                    "minReplicas",
                    "maxReplicas",
                ] {
                    master.remove(key);
                }
                match object(vec![
                    ("gpuDevicesRequest", number(&self.master_gpu_devices)),
                    ("cpuCoreRequest", number(&self.master_cpu_request)),
                    ("cpuMemoryRequest", text(&self.master_memory_request)),
                ]) {
                    Some(compute) => master.insert("compute".into(), compute),
                    None => master.remove("compute"),
                };
                spec.insert("masterSpecSameAsWorker".into(), Value::Bool(false));
                spec.insert("master".into(), Value::Object(master));
            } else {
                spec.insert("masterSpecSameAsWorker".into(), Value::Bool(true));
            }
        } else {
            for key in [
                "distributedFramework",
                "numWorkers",
                "minReplicas",
                "maxReplicas",
                "masterSpecSameAsWorker",
                "master",
            ] {
                spec.remove(key);
            }
        }
        json!({
            "name": self.name.trim(),
            "projectId": self.project.trim(),
            "spec": Value::Object(spec),
        })
    }

    /// [`TrainingDraft::to_request`], parsed and validated exactly as the API does.
    pub fn validate(&self) -> Result<Value, Vec<FieldError>> {
        let request = self.to_request();
        if self.distributed {
            parse::distributed(&request).map(|_| request)
        } else {
            parse::training(&request).map(|_| request)
        }
    }

    /// The JSON path of volume row `i` (its index counts only earlier rows of the same array).
    pub fn volume_path(&self, i: usize) -> String {
        let Some(volume) = self.volumes.get(i) else {
            return format!("spec.storage.volumes[{i}]");
        };
        let array = volume.kind.array();
        let index = self.volumes[..i]
            .iter()
            .filter(|v| v.kind.array() == array)
            .count();
        format!("spec.storage.{array}[{index}]")
    }

    /// The spec keys a clone carries that the form has no field for, sorted.
    pub fn carried_keys(&self) -> Vec<String> {
        match serde_json::from_str::<Value>(&self.carried) {
            Ok(Value::Object(map)) => {
                let mut keys: Vec<String> = map.keys().cloned().collect();
                keys.sort();
                keys
            }
            _ => Vec::new(),
        }
    }

    /// The draft a stored request (`{name, projectId, spec}`) becomes, for "Clone". Whatever the
    /// form cannot show is carried unchanged, so a clone submits what the original did.
    pub fn from_request(kind: &str, request: &Value) -> TrainingDraft {
        let spec = request["spec"].as_object().cloned().unwrap_or_default();
        let distributed = kind == "distributed"
            || spec.contains_key("distributedFramework")
            || spec.contains_key("numWorkers");
        let s = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => String::new(),
        };
        let at = |k: &str| spec.get(k).map(s).unwrap_or_default();
        let join = |v: Option<&Value>| {
            v.and_then(Value::as_array)
                .map(|a| a.iter().map(s).collect::<Vec<_>>().join(", "))
                .unwrap_or_default()
        };
        let pairs = |v: Option<&Value>, key: &str, value: &str| -> Vec<KeyValueRow> {
            v.and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|r| KeyValueRow {
                            name: s(&r[key]),
                            value: s(&r[value]),
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let null = Value::Null;
        let compute = spec.get("compute").unwrap_or(&null);
        let security = spec.get("security").unwrap_or(&null);
        let gpu_mode = match compute["gpuRequestType"].as_str() {
            Some("portion") => GpuMode::Portion,
            Some("memory") => GpuMode::Memory,
            Some("migProfile") => GpuMode::Mig,
            _ if !compute["gpuDevicesRequest"].is_null() => GpuMode::Devices,
            _ => GpuMode::None,
        };
        let master = spec.get("master").unwrap_or(&null);
        let master_own = spec.get("masterSpecSameAsWorker").and_then(Value::as_bool) == Some(false)
            && master.is_object();

        let mut carried = Map::new();
        for (key, value) in &spec {
            if !FORM_KEYS.contains(&key.as_str()) {
                carried.insert(key.clone(), value.clone());
            }
        }
        // Volumes of shapes the form cannot edit (extra keys) are carried whole.
        let mut volumes = Vec::new();
        if let Some(storage) = spec.get("storage").and_then(Value::as_object) {
            let mut kept = Map::new();
            for (array, items) in storage {
                let editable = VOLUME_KEYS.iter().find(|(a, _)| a == array);
                let Some((_, keys)) = editable else {
                    kept.insert(array.clone(), items.clone());
                    continue;
                };
                for item in items.as_array().into_iter().flatten() {
                    let fits = item
                        .as_object()
                        .is_some_and(|o| o.keys().all(|k| keys.contains(&k.as_str())));
                    if fits {
                        volumes.push(VolumeRow::from_json(array, item));
                    } else if let Value::Array(list) = kept
                        .entry(array.clone())
                        .or_insert_with(|| Value::Array(Vec::new()))
                    {
                        list.push(item.clone());
                    }
                }
            }
            if !kept.is_empty() {
                carried.insert("storage".into(), Value::Object(kept));
            }
        }
        if let Some(compute) = compute.as_object() {
            let extra: Map<String, Value> = compute
                .iter()
                .filter(|(k, _)| !COMPUTE_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !extra.is_empty() {
                carried.insert("compute".into(), Value::Object(extra));
            }
        }

        TrainingDraft {
            name: request["name"].as_str().unwrap_or_default().to_owned(),
            project: request.get("projectId").map(s).unwrap_or_default(),
            image: at("image"),
            image_pull_policy: at("imagePullPolicy"),
            command: at("command"),
            args: at("args"),
            working_dir: at("workingDir"),
            env: spec
                .get("environmentVariables")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|e| EnvRow {
                            name: s(&e["name"]),
                            from_secret: e["secret"].is_object(),
                            value: s(&e["value"]),
                            secret_name: s(&e["secret"]["name"]),
                            secret_key: s(&e["secret"]["key"]),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            labels: pairs(spec.get("labels"), "name", "value"),
            annotations: pairs(spec.get("annotations"), "name", "value"),
            gpu_mode,
            gpu_devices: s(&compute["gpuDevicesRequest"]),
            gpu_portion: s(&compute["gpuPortionRequest"]),
            gpu_memory: s(&compute["gpuMemoryRequest"]),
            mig_profile: s(&compute["migProfile"]),
            cpu_request: s(&compute["cpuCoreRequest"]),
            cpu_limit: s(&compute["cpuCoreLimit"]),
            memory_request: s(&compute["cpuMemoryRequest"]),
            memory_limit: s(&compute["cpuMemoryLimit"]),
            large_shm: compute["largeShmRequest"].as_bool().unwrap_or(false),
            extended_resources: pairs(compute.get("extendedResources"), "resource", "quantity"),
            volumes,
            uid_gid_source: s(&security["uidGidSource"]),
            run_as_uid: s(&security["runAsUid"]),
            run_as_gid: s(&security["runAsGid"]),
            supplemental_groups: s(&security["supplementalGroups"]),
            run_as_non_root: security["runAsNonRoot"].as_bool().unwrap_or(false),
            capabilities: join(security.get("capabilities")),
            seccomp_profile: s(&security["seccompProfileType"]),
            read_only_root_filesystem: security["readOnlyRootFilesystem"]
                .as_bool()
                .unwrap_or(false),
            allow_privilege_escalation: s(&security["allowPrivilegeEscalation"]),
            host_ipc: security["hostIpc"].as_bool().unwrap_or(false),
            host_network: security["hostNetwork"].as_bool().unwrap_or(false),
            tolerations: spec
                .get("tolerations")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|t| TolerationRow {
                            key: s(&t["key"]),
                            operator: s(&t["operator"]),
                            value: s(&t["value"]),
                            effect: s(&t["effect"]),
                            seconds: s(&t["seconds"]),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            node_pools: join(spec.get("nodePools")),
            node_type: at("nodeType"),
            pod_affinity: spec
                .get("podAffinity")
                .map(|a| s(&a["type"]))
                .unwrap_or_default(),
            pod_affinity_key: spec
                .get("podAffinity")
                .map(|a| s(&a["key"]))
                .unwrap_or_default(),
            priority_class: at("priorityClass"),
            distributed,
            framework: spec
                .get("distributedFramework")
                .map(s)
                .unwrap_or_else(|| "PyTorch".to_owned()),
            num_workers: spec
                .get("numWorkers")
                .map(s)
                .unwrap_or_else(|| "1".to_owned()),
            master_own_resources: master_own,
            master_gpu_devices: s(&master["compute"]["gpuDevicesRequest"]),
            master_cpu_request: s(&master["compute"]["cpuCoreRequest"]),
            master_memory_request: s(&master["compute"]["cpuMemoryRequest"]),
            completions: at("completions"),
            parallelism: at("parallelism"),
            backoff_limit: at("backoffLimit"),
            auto_deletion_seconds: at("autoDeletionTimeAfterCompletionSeconds"),
            terminate_after_preemption: spec
                .get("terminateAfterPreemption")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            carried: if carried.is_empty() {
                String::new()
            } else {
                Value::Object(carried).to_string()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(draft: &TrainingDraft) -> Vec<String> {
        draft
            .validate()
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.path)
            .collect()
    }

    /// What the dashboard's browser test fills in: PyTorch, two workers, a toleration, an NFS
    /// volume, security settings and a variable from a secret.
    fn pytorch() -> TrainingDraft {
        TrainingDraft {
            name: "pt-dashboard".into(),
            image: "pytorch/pytorch:2.4.0".into(),
            command: "torchrun train.py".into(),
            env: vec![EnvRow {
                name: "HF_TOKEN".into(),
                from_secret: true,
                secret_name: "hf".into(),
                secret_key: "token".into(),
                ..EnvRow::default()
            }],
            gpu_mode: GpuMode::Devices,
            gpu_devices: "1".into(),
            cpu_request: "1".into(),
            memory_request: "2Gi".into(),
            volumes: vec![VolumeRow {
                kind: VolumeKind::Nfs,
                endpoint: "nfs.example.com".into(),
                source: "/exports/datasets".into(),
                mount_path: "/data".into(),
                ..VolumeRow::default()
            }],
            uid_gid_source: "custom".into(),
            run_as_uid: "1000".into(),
            run_as_gid: "1000".into(),
            run_as_non_root: true,
            allow_privilege_escalation: "false".into(),
            tolerations: vec![TolerationRow {
                key: "nvidia.com/gpu".into(),
                operator: "Exists".into(),
                effect: "NoSchedule".into(),
                ..TolerationRow::default()
            }],
            distributed: true,
            num_workers: "2".into(),
            ..TrainingDraft::new("default")
        }
    }

    #[test]
    fn a_distributed_pytorch_draft_is_the_request_a_script_would_send() {
        let draft = pytorch();
        let request = draft.validate().expect("valid");
        assert_eq!(
            request,
            json!({
                "name": "pt-dashboard",
                "projectId": "default",
                "spec": {
                    "image": "pytorch/pytorch:2.4.0",
                    "command": "torchrun train.py",
                    "environmentVariables": [{"name": "HF_TOKEN", "secret": {"name": "hf", "key": "token"}}],
                    "compute": {"gpuDevicesRequest": 1, "cpuCoreRequest": 1, "cpuMemoryRequest": "2Gi"},
                    "storage": {"nfs": [{"server": "nfs.example.com", "path": "/exports/datasets", "mountPath": "/data"}]},
                    "security": {"uidGidSource": "custom", "runAsUid": 1000, "runAsGid": 1000,
                                 "runAsNonRoot": true, "allowPrivilegeEscalation": false},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "distributedFramework": "PyTorch",
                    "numWorkers": 2,
                    "masterSpecSameAsWorker": true,
                }
            })
        );
    }

    #[test]
    fn a_master_with_its_own_resources_copies_the_worker_with_its_compute() {
        let draft = TrainingDraft {
            master_own_resources: true,
            master_cpu_request: "2".into(),
            ..pytorch()
        };
        let request = draft.validate().expect("valid");
        let spec = &request["spec"];
        assert_eq!(spec["masterSpecSameAsWorker"], false);
        assert_eq!(spec["master"]["compute"], json!({"cpuCoreRequest": 2}));
        assert_eq!(spec["master"]["image"], "pytorch/pytorch:2.4.0");
        assert!(spec["master"].get("numWorkers").is_none());
    }

    #[test]
    fn a_blank_draft_names_the_required_fields() {
        let found = paths(&TrainingDraft::new("default"));
        assert!(found.contains(&"name".to_owned()), "{found:?}");
        assert!(found.contains(&"spec.image".to_owned()), "{found:?}");
    }

    #[test]
    fn the_invalid_inputs_of_the_browser_test_are_named_by_path() {
        let draft = TrainingDraft {
            name: "Bad_Name".into(),
            image: "busybox".into(),
            gpu_mode: GpuMode::Portion,
            gpu_portion: "1.5".into(),
            tolerations: vec![TolerationRow {
                operator: "Exists".into(),
                value: "gpu".into(),
                ..TolerationRow::default()
            }],
            ..TrainingDraft::new("default")
        };
        let found = paths(&draft);
        for path in [
            "name",
            "spec.compute.gpuPortionRequest",
            "spec.tolerations[0].value",
        ] {
            assert!(found.contains(&path.to_owned()), "{path} in {found:?}");
        }
    }

    #[test]
    fn text_in_a_number_field_is_the_parsers_type_error_not_a_panic() {
        let draft = TrainingDraft {
            num_workers: "abc".into(),
            ..pytorch()
        };
        assert!(
            paths(&draft)
                .iter()
                .any(|p| p.starts_with("spec.numWorkers"))
        );
    }

    #[test]
    fn blank_rows_keep_their_place_so_errors_point_at_the_right_row() {
        let draft = TrainingDraft {
            env: vec![
                EnvRow::default(),
                EnvRow {
                    name: "OK".into(),
                    value: "1".into(),
                    ..EnvRow::default()
                },
            ],
            ..pytorch()
        };
        let found = paths(&draft);
        assert!(
            found.contains(&"spec.environmentVariables[0].name".to_owned()),
            "{found:?}"
        );
        assert!(
            !found
                .iter()
                .any(|p| p.starts_with("spec.environmentVariables[1]"))
        );
    }

    #[test]
    fn volume_paths_count_rows_of_the_same_array() {
        let volume = |kind| VolumeRow {
            kind,
            ..VolumeRow::default()
        };
        let draft = TrainingDraft {
            volumes: vec![
                volume(VolumeKind::Nfs),
                volume(VolumeKind::ExistingPvc),
                volume(VolumeKind::NewPvc),
                volume(VolumeKind::Nfs),
            ],
            ..TrainingDraft::default()
        };
        let found: Vec<String> = (0..4).map(|i| draft.volume_path(i)).collect();
        assert_eq!(
            found,
            [
                "spec.storage.nfs[0]",
                "spec.storage.pvc[0]",
                "spec.storage.pvc[1]",
                "spec.storage.nfs[1]"
            ]
        );
    }

    #[test]
    fn a_draft_survives_the_round_trip_through_its_request() {
        for draft in [
            pytorch(),
            TrainingDraft {
                master_own_resources: true,
                master_gpu_devices: "2".into(),
                ..pytorch()
            },
            TrainingDraft {
                name: "plain".into(),
                image: "busybox".into(),
                gpu_mode: GpuMode::Portion,
                gpu_portion: "0.5".into(),
                labels: vec![KeyValueRow {
                    name: "team".into(),
                    value: "vision".into(),
                }],
                volumes: vec![VolumeRow {
                    kind: VolumeKind::NewPvc,
                    size: "10Gi".into(),
                    access_mode: "ReadWriteMany".into(),
                    mount_path: "/ckpt".into(),
                    ..VolumeRow::default()
                }],
                completions: "2".into(),
                parallelism: "2".into(),
                ..TrainingDraft::new("default")
            },
        ] {
            let kind = if draft.distributed {
                "distributed"
            } else {
                "training"
            };
            assert_eq!(
                TrainingDraft::from_request(kind, &draft.to_request()),
                draft
            );
        }
    }

    #[test]
    fn a_clone_of_the_seed_request_keeps_every_key() {
        let original: Value = serde_json::from_str(include_str!(
            "../../../../server/tests/fixtures/seed-003-consistent.json"
        ))
        .unwrap();
        let draft = TrainingDraft::from_request("training", &original);
        assert!(
            !draft.carried_keys().is_empty(),
            "the form cannot show everything"
        );
        let again = draft.to_request();
        parse::training(&again).expect("the clone is valid");
        // An explicit `false` means what leaving it out means; the form leaves it out.
        let keys = |v: &Value| {
            let mut k: Vec<String> = v["spec"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, v)| **v != Value::Bool(false))
                .map(|(k, _)| k.clone())
                .collect();
            k.sort();
            k
        };
        assert_eq!(keys(&again), keys(&original));
        assert_eq!(
            again["spec"]["storage"].as_object().map(|s| s.len()),
            original["spec"]["storage"].as_object().map(|s| s.len())
        );
    }

    #[test]
    fn odd_json_makes_an_empty_draft_not_a_panic() {
        for value in [
            json!(3),
            json!([1]),
            json!({"spec": "x"}),
            json!({"spec": {"compute": 1, "storage": {"nfs": 2}}}),
        ] {
            let draft = TrainingDraft::from_request("training", &value);
            let _ = draft.to_request();
        }
    }
}
