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

    /// What a cloned spec holds that the form does not show, as a JSON object put under the
    /// form's spec: keys without a field (ports, probes, exposed URLs...), rows with keys the
    /// form lacks (appended after the form's rows), a master unlike its workers. So a clone
    /// loses nothing.
    pub carried: String,
}

use super::distributed::DISTRIBUTED_KEYS;
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

/// Text written as typed: values of variables and annotations may mean their spaces.
fn verbatim(value: &str) -> Option<Value> {
    Some(Value::String(value.to_owned()))
}

fn rows<T>(items: &[T], f: impl Fn(&T) -> Value) -> Option<Value> {
    (!items.is_empty()).then(|| Value::Array(items.iter().map(f).collect()))
}

/// A stored scalar as the text a form field shows.
fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// A stored list as comma-separated text.
fn joined(value: &Value) -> String {
    value
        .as_array()
        .map(|a| a.iter().map(shown).collect::<Vec<_>>().join(", "))
        .unwrap_or_default()
}

/// `value` without `false` and `null` members at any depth. In rows (variables, labels, volumes,
/// ...) every flag the API takes reads absent as false (`readOnly`, `exclude`, `existingPvc`,
/// access modes), so a stored `false` says nothing the form's row does not.
fn normalized(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !matches!(v, Value::Bool(false) | Value::Null))
                .map(|(k, v)| (k.clone(), normalized(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

/// Stored rows as form rows, except rows the form would not write back exactly (keys it has no
/// field for, values of another type): those are returned, unchanged, to be carried. A value
/// that is not a list at all is carried whole.
fn split<T>(
    stored: Option<&Value>,
    read: impl Fn(&Value) -> T,
    write: impl Fn(&T) -> Value,
) -> (Vec<T>, Option<Value>) {
    let items = match stored {
        None | Some(Value::Null) => return (Vec::new(), None),
        Some(Value::Array(items)) => items,
        Some(other) => return (Vec::new(), Some(other.clone())),
    };
    let mut rows = Vec::new();
    let mut rest = Vec::new();
    for item in items {
        let row = read(item);
        if normalized(&write(&row)) == normalized(item) {
            rows.push(row);
        } else {
            rest.push(item.clone());
        }
    }
    (rows, (!rest.is_empty()).then_some(Value::Array(rest)))
}

/// The form's `value` over what a clone carried: objects merge (the form wins), lists
/// concatenate with the form's rows first (so row `i` is still element `i` and error paths point
/// at it), and a carried value the form leaves blank stays.
fn merge(carried: Option<Value>, value: Option<Value>) -> Option<Value> {
    match (carried, value) {
        (Some(Value::Object(mut old)), Some(Value::Object(new))) => {
            for (k, v) in new {
                if let Some(merged) = merge(old.remove(&k), Some(v)) {
                    old.insert(k, merged);
                }
            }
            Some(Value::Object(old))
        }
        (Some(Value::Array(rest)), Some(Value::Array(mut first))) => {
            first.extend(rest);
            Some(Value::Array(first))
        }
        (carried, None) => carried,
        (_, value) => value,
    }
}

fn put(spec: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(merged) = merge(spec.remove(key), value) {
        spec.insert(key.to_owned(), merged);
    }
}

impl EnvRow {
    fn to_json(&self) -> Value {
        if self.from_secret {
            row(vec![
                ("name", required(&self.name)),
                (
                    "secret",
                    Some(row(vec![
                        ("name", required(&self.secret_name)),
                        ("key", required(&self.secret_key)),
                    ])),
                ),
            ])
        } else {
            // An empty value is a value: the variable is set to "".
            row(vec![
                ("name", required(&self.name)),
                ("value", verbatim(&self.value)),
            ])
        }
    }

    fn from_json(v: &Value) -> EnvRow {
        EnvRow {
            name: shown(&v["name"]),
            from_secret: v["secret"].is_object(),
            value: shown(&v["value"]),
            secret_name: shown(&v["secret"]["name"]),
            secret_key: shown(&v["secret"]["key"]),
        }
    }
}

impl KeyValueRow {
    /// A label: the API requires a value, and an empty one is a valid label value.
    fn label_json(&self) -> Value {
        row(vec![
            ("name", required(&self.name)),
            ("value", required(&self.value)),
        ])
    }

    fn annotation_json(&self) -> Value {
        row(vec![
            ("name", required(&self.name)),
            ("value", verbatim(&self.value)),
        ])
    }

    fn resource_json(&self) -> Value {
        row(vec![
            ("resource", required(&self.name)),
            ("quantity", number(&self.value)),
        ])
    }

    fn from_json(v: &Value, name: &str, value: &str) -> KeyValueRow {
        KeyValueRow {
            name: shown(&v[name]),
            value: shown(&v[value]),
        }
    }
}

impl TolerationRow {
    fn to_json(&self) -> Value {
        row(vec![
            ("key", text(&self.key)),
            ("operator", text(&self.operator)),
            ("value", text(&self.value)),
            ("effect", text(&self.effect)),
            ("seconds", number(&self.seconds)),
        ])
    }

    fn from_json(v: &Value) -> TolerationRow {
        TolerationRow {
            key: shown(&v["key"]),
            operator: shown(&v["operator"]),
            value: shown(&v["value"]),
            effect: shown(&v["effect"]),
            seconds: shown(&v["seconds"]),
        }
    }
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

/// The arrays under `spec.storage` the form has rows for; others (`dataVolume`) are carried.
const VOLUME_ARRAYS: [&str; 7] = [
    "pvc",
    "nfs",
    "hostPath",
    "configMapVolume",
    "secretVolume",
    "git",
    "s3",
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

/// The master's compute keys the form has fields for.
const MASTER_COMPUTE_KEYS: [&str; 3] = ["gpuDevicesRequest", "cpuCoreRequest", "cpuMemoryRequest"];

/// Whether a carried compute key still belongs with the form's GPU choice. With fractional GPUs
/// `gpuDevicesRequest` counts the fractions (two halves of two GPUs) and the form has no field for
/// it, so a clone carries it; a limit belongs to its own style. Once the user picks another
/// style they would be rejected ("must not be set with gpuRequestType ...") or silently change
/// what is asked for, so they are dropped.
fn carried_compute_applies(mode: GpuMode, key: &str) -> bool {
    match key {
        "gpuDevicesRequest" => matches!(mode, GpuMode::Portion | GpuMode::Memory | GpuMode::Mig),
        "gpuPortionLimit" => mode == GpuMode::Portion,
        "gpuMemoryLimit" => mode == GpuMode::Memory,
        _ => true,
    }
}

impl TrainingDraft {
    /// What the form starts with for a project: everything blank, framework `PyTorch`, one
    /// worker.
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
                rows(&self.extended_resources, KeyValueRow::resource_json),
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

    fn pod_affinity(&self) -> Option<Value> {
        text(&self.pod_affinity).map(|kind| {
            row(vec![
                ("type", Some(kind)),
                ("key", required(&self.pod_affinity_key)),
            ])
        })
    }

    /// The carried spec keys; blank or invalid `carried` is nothing.
    fn carried_map(&self) -> Map<String, Value> {
        match serde_json::from_str::<Value>(&self.carried) {
            Ok(Value::Object(carried)) => carried,
            _ => Map::new(),
        }
    }

    /// The worker's (or the single pod's) spec, with what a clone carried underneath.
    fn spec(&self) -> Map<String, Value> {
        let mut spec = self.carried_map();
        if let Some(Value::Object(compute)) = spec.get_mut("compute") {
            compute.retain(|key, _| carried_compute_applies(self.gpu_mode, key));
            if compute.is_empty() {
                spec.remove("compute");
            }
        }
        let entries = vec![
            ("image", text(&self.image)),
            ("imagePullPolicy", text(&self.image_pull_policy)),
            ("command", text(&self.command)),
            ("args", text(&self.args)),
            ("workingDir", text(&self.working_dir)),
            ("environmentVariables", rows(&self.env, EnvRow::to_json)),
            ("labels", rows(&self.labels, KeyValueRow::label_json)),
            (
                "annotations",
                rows(&self.annotations, KeyValueRow::annotation_json),
            ),
            ("compute", self.compute()),
            ("storage", self.storage()),
            ("security", self.security()),
            (
                "tolerations",
                rows(&self.tolerations, TolerationRow::to_json),
            ),
            ("nodePools", list(&self.node_pools)),
            ("nodeType", text(&self.node_type)),
            ("podAffinity", self.pod_affinity()),
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
        // The distributed validator rejects these ("not used by distributed trainings"), so a
        // distributed draft never writes them, even when carried.
        if self.distributed {
            spec.remove("completions");
            spec.remove("parallelism");
        } else {
            put(&mut spec, "completions", number(&self.completions));
            put(&mut spec, "parallelism", number(&self.parallelism));
        }
        spec
    }

    /// The master's spec when it asks for its own resources: a master a clone carried (one that
    /// differs from its workers in more than the form shows), or else a copy of the worker; with
    /// the form's master compute over its own.
    fn master(&self, worker: &Map<String, Value>, carried: Option<Value>) -> Value {
        let (mut master, compute) = match carried {
            Some(Value::Object(mut master)) => {
                let compute = match master.remove("compute") {
                    Some(Value::Object(mut compute)) => {
                        compute.retain(|k, _| !MASTER_COMPUTE_KEYS.contains(&k.as_str()));
                        Some(Value::Object(compute))
                    }
                    other => other,
                };
                (master, compute)
            }
            _ => {
                let mut master = worker.clone();
                master.remove("compute");
                (master, None)
            }
        };
        let own = object(vec![
            ("gpuDevicesRequest", number(&self.master_gpu_devices)),
            ("cpuCoreRequest", number(&self.master_cpu_request)),
            ("cpuMemoryRequest", text(&self.master_memory_request)),
        ]);
        match merge(compute, own) {
            Some(Value::Object(c)) if c.is_empty() => {}
            Some(compute) => {
                master.insert("compute".into(), compute);
            }
            None => {}
        }
        Value::Object(master)
    }

    /// The request JSON this draft describes: a training request, or a distributed one when
    /// `distributed` is set. Never fails; see the module docs for how text becomes JSON.
    pub fn to_request(&self) -> Value {
        let mut spec = self.spec();
        let carried_master = spec.remove("master");
        spec.remove("masterSpecSameAsWorker");
        if self.distributed {
            let mut worker = spec.clone();
            for key in DISTRIBUTED_KEYS {
                worker.remove(key);
            }
            spec.insert(
                "distributedFramework".into(),
                text(&self.framework).unwrap_or(Value::String(String::new())),
            );
            spec.insert(
                "numWorkers".into(),
                number(&self.num_workers).unwrap_or(Value::String(String::new())),
            );
            if self.master_own_resources {
                spec.insert("masterSpecSameAsWorker".into(), Value::Bool(false));
                spec.insert("master".into(), self.master(&worker, carried_master));
            } else {
                spec.insert("masterSpecSameAsWorker".into(), Value::Bool(true));
            }
        } else {
            for key in DISTRIBUTED_KEYS {
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

    /// The JSON path of volume row `i`, e.g. `spec.storage.nfs[1]`: its index counts only earlier
    /// rows of the same array.
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

    /// The spec keys a clone carries that the form does not show, sorted.
    pub fn carried_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.carried_map().keys().cloned().collect();
        keys.sort();
        keys
    }

    /// The draft a stored request (`{name, projectId, spec}`) becomes, for "Clone". `kind` is
    /// `training` or `distributed` (a spec with `distributedFramework` or `numWorkers` is
    /// distributed either way). Whatever the form cannot show or would not write back the same
    /// (keys without a field, rows with extra keys, values of another type) is carried
    /// unchanged, so a clone submits what the original did. Any JSON is accepted.
    pub fn from_request(kind: &str, request: &Value) -> TrainingDraft {
        let null = Value::Null;
        let spec = request["spec"].as_object().cloned().unwrap_or_default();
        let field = |k: &str| spec.get(k).unwrap_or(&null);
        let at = |k: &str| shown(field(k));
        let distributed = kind == "distributed"
            || spec.contains_key("distributedFramework")
            || spec.contains_key("numWorkers");

        let mut carried: Map<String, Value> = spec
            .iter()
            .filter(|(k, _)| !FORM_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut carry = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                carried.insert(key.to_owned(), value);
            }
        };
        // Sections of another shape cannot be shown; carried, the parser names them as it did
        // for the original.
        let section = |k: &str| match spec.get(k) {
            None | Some(Value::Null) => (&null, None),
            Some(v @ Value::Object(_)) => (v, None),
            Some(other) => (&null, Some(other.clone())),
        };

        let (env, rest) = split(
            spec.get("environmentVariables"),
            EnvRow::from_json,
            EnvRow::to_json,
        );
        carry("environmentVariables", rest);
        let (labels, rest) = split(
            spec.get("labels"),
            |v| KeyValueRow::from_json(v, "name", "value"),
            KeyValueRow::label_json,
        );
        carry("labels", rest);
        let (annotations, rest) = split(
            spec.get("annotations"),
            |v| KeyValueRow::from_json(v, "name", "value"),
            KeyValueRow::annotation_json,
        );
        carry("annotations", rest);
        let (tolerations, rest) = split(
            spec.get("tolerations"),
            TolerationRow::from_json,
            TolerationRow::to_json,
        );
        carry("tolerations", rest);

        let node_pools = match spec.get("nodePools") {
            Some(pools) if list(&joined(pools)).as_ref() != Some(pools) => {
                carry("nodePools", Some(pools.clone()));
                String::new()
            }
            pools => pools.map(joined).unwrap_or_default(),
        };

        let (affinity, odd) = section("podAffinity");
        carry("podAffinity", odd);
        let (mut pod_affinity, mut pod_affinity_key) =
            (shown(&affinity["type"]), shown(&affinity["key"]));
        if affinity.is_object() {
            let probe = TrainingDraft {
                pod_affinity: pod_affinity.clone(),
                pod_affinity_key: pod_affinity_key.clone(),
                ..TrainingDraft::default()
            };
            if probe.pod_affinity().as_ref() != Some(affinity) {
                carry("podAffinity", Some(affinity.clone()));
                (pod_affinity, pod_affinity_key) = (String::new(), String::new());
            }
        }

        let (compute, odd) = section("compute");
        carry("compute", odd);
        let gpu_mode = match compute["gpuRequestType"].as_str() {
            Some("portion") => GpuMode::Portion,
            Some("memory") => GpuMode::Memory,
            Some("migProfile") => GpuMode::Mig,
            _ if !compute["gpuDevicesRequest"].is_null() => GpuMode::Devices,
            _ => GpuMode::None,
        };
        let (extended_resources, rest) = split(
            compute.get("extendedResources"),
            |v| KeyValueRow::from_json(v, "resource", "quantity"),
            KeyValueRow::resource_json,
        );
        if let Value::Object(compute) = compute {
            let mut extra: Map<String, Value> = compute
                .iter()
                .filter(|(k, _)| {
                    !COMPUTE_KEYS.contains(&k.as_str())
                        || (k.as_str() == "gpuDevicesRequest"
                            && carried_compute_applies(gpu_mode, k))
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if let Some(rest) = rest {
                extra.insert("extendedResources".into(), rest);
            }
            if !extra.is_empty() {
                carry("compute", Some(Value::Object(extra)));
            }
        }

        let (storage, odd) = section("storage");
        carry("storage", odd);
        let mut volumes = Vec::new();
        if let Value::Object(storage) = storage {
            let mut kept = Map::new();
            for (array, items) in storage {
                if !VOLUME_ARRAYS.contains(&array.as_str()) {
                    kept.insert(array.clone(), items.clone());
                    continue;
                }
                let (rows, rest) = split(
                    Some(items),
                    |v| VolumeRow::from_json(array, v),
                    VolumeRow::to_json,
                );
                volumes.extend(rows);
                if let Some(rest) = rest {
                    kept.insert(array.clone(), rest);
                }
            }
            if !kept.is_empty() {
                carry("storage", Some(Value::Object(kept)));
            }
        }

        let (security, odd) = section("security");
        carry("security", odd);

        // The form shows the master as "the worker, with its own GPUs, CPU and memory"; a master
        // that differs in anything else is carried whole and used instead of the worker's copy.
        let master = field("master");
        let master_own = distributed
            && master.is_object()
            && field("masterSpecSameAsWorker").as_bool() != Some(true);
        let master_compute = &master["compute"];
        if master_own {
            let mut worker = spec.clone();
            for key in DISTRIBUTED_KEYS
                .iter()
                .chain(&["completions", "parallelism", "compute"])
            {
                worker.remove(*key);
            }
            let mut rest = master.as_object().cloned().unwrap_or_default();
            rest.remove("compute");
            let compute_fits = match master_compute {
                Value::Null => true,
                Value::Object(_) => {
                    let probe = TrainingDraft {
                        master_gpu_devices: shown(&master_compute["gpuDevicesRequest"]),
                        master_cpu_request: shown(&master_compute["cpuCoreRequest"]),
                        master_memory_request: shown(&master_compute["cpuMemoryRequest"]),
                        ..TrainingDraft::default()
                    };
                    probe.master(&Map::new(), None).get("compute") == Some(master_compute)
                }
                _ => false,
            };
            if rest != worker || !compute_fits {
                carry("master", Some(master.clone()));
            }
        }

        let framework = match field("distributedFramework") {
            Value::Null => "PyTorch".to_owned(),
            // The API accepts the long name; the form's choice is the short one.
            Value::String(f) if f == "TensorFlow" => "TF".to_owned(),
            other => shown(other),
        };

        TrainingDraft {
            name: shown(&request["name"]),
            project: shown(&request["projectId"]),
            image: at("image"),
            image_pull_policy: at("imagePullPolicy"),
            command: at("command"),
            args: at("args"),
            working_dir: at("workingDir"),
            env,
            labels,
            annotations,
            gpu_mode,
            gpu_devices: if gpu_mode == GpuMode::Devices {
                shown(&compute["gpuDevicesRequest"])
            } else {
                String::new()
            },
            gpu_portion: shown(&compute["gpuPortionRequest"]),
            gpu_memory: shown(&compute["gpuMemoryRequest"]),
            mig_profile: shown(&compute["migProfile"]),
            cpu_request: shown(&compute["cpuCoreRequest"]),
            cpu_limit: shown(&compute["cpuCoreLimit"]),
            memory_request: shown(&compute["cpuMemoryRequest"]),
            memory_limit: shown(&compute["cpuMemoryLimit"]),
            large_shm: compute["largeShmRequest"].as_bool().unwrap_or(false),
            extended_resources,
            volumes,
            uid_gid_source: shown(&security["uidGidSource"]),
            run_as_uid: shown(&security["runAsUid"]),
            run_as_gid: shown(&security["runAsGid"]),
            supplemental_groups: shown(&security["supplementalGroups"]),
            run_as_non_root: security["runAsNonRoot"].as_bool().unwrap_or(false),
            capabilities: joined(&security["capabilities"]),
            seccomp_profile: shown(&security["seccompProfileType"]),
            read_only_root_filesystem: security["readOnlyRootFilesystem"]
                .as_bool()
                .unwrap_or(false),
            allow_privilege_escalation: shown(&security["allowPrivilegeEscalation"]),
            host_ipc: security["hostIpc"].as_bool().unwrap_or(false),
            host_network: security["hostNetwork"].as_bool().unwrap_or(false),
            tolerations,
            node_pools,
            node_type: at("nodeType"),
            pod_affinity,
            pod_affinity_key,
            priority_class: at("priorityClass"),
            distributed,
            framework,
            num_workers: match field("numWorkers") {
                Value::Null => "1".to_owned(),
                n => shown(n),
            },
            master_own_resources: master_own,
            master_gpu_devices: shown(&master_compute["gpuDevicesRequest"]),
            master_cpu_request: shown(&master_compute["cpuCoreRequest"]),
            master_memory_request: shown(&master_compute["cpuMemoryRequest"]),
            completions: at("completions"),
            parallelism: at("parallelism"),
            backoff_limit: at("backoffLimit"),
            auto_deletion_seconds: at("autoDeletionTimeAfterCompletionSeconds"),
            terminate_after_preemption: field("terminateAfterPreemption")
                .as_bool()
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

    fn seed(file: &str) -> Value {
        let text = match file {
            "consistent" => {
                include_str!("../../../../server/tests/fixtures/seed-003-consistent.json")
            }
            _ => include_str!("../../../../server/tests/fixtures/seed-003-request.json"),
        };
        serde_json::from_str(text).expect("a fixture is JSON")
    }

    #[test]
    fn a_clone_of_the_seed_request_keeps_every_key() {
        let original = seed("consistent");
        let draft = TrainingDraft::from_request("training", &original);
        assert_eq!(
            draft.carried_keys(),
            [
                "compute",
                "createHomeDir",
                "exposedUrls",
                "ports",
                "probes",
                "stdin",
                "storage",
                "tolerations",
                "tty"
            ]
        );
        let again = draft.to_request();
        parse::training(&again).expect("the clone is valid");
        // Not just the keys: the whole spec comes back, up to the `false`s that mean what leaving
        // them out means (the form leaves them out).
        assert_eq!(normalized(&again["spec"]), normalized(&original["spec"]));
    }

    #[test]
    fn a_clone_of_the_invalid_run_ai_example_fails_where_the_original_does() {
        // Run:ai's own example is not a valid request (a variable with both a value and a
        // secret, a git volume without a repository, mount paths "string", ids with uidGidSource
        // fromTheImage...).
        let original = seed("request");
        let expected: Vec<String> = parse::training(&original)
            .expect_err("the example is invalid")
            .into_iter()
            .map(|e| e.path)
            .collect();
        let draft = TrainingDraft::from_request("training", &original);
        let found = paths(&draft);
        // The form writes the GPU style it shows (portion) and drops the memory and MIG fields
        // the original also set; everything else fails the same way.
        let expected: Vec<String> = expected
            .into_iter()
            .filter(|p| p != "spec.compute.gpuMemoryRequest" && p != "spec.compute.migProfile")
            .collect();
        assert_eq!(found, expected);
        assert!(
            found.contains(&"spec.environmentVariables[0]".to_owned()),
            "{found:?}"
        );
    }

    #[test]
    fn rows_the_form_cannot_show_are_carried_after_the_rows_it_can() {
        let original = json!({
            "name": "rows", "projectId": "p",
            "spec": {
                "image": "busybox",
                "environmentVariables": [
                    {"name": "PROXY", "exclude": true},
                    {"name": "A", "value": "1", "exclude": false}
                ],
                "tolerations": [{"name": "gpu rule", "key": "gpu", "operator": "Exists"}],
                "compute": {"extendedResources": [{"resource": "example.com/foo", "quantity": "2"}]},
                "storage": {"nfs": [
                    {"name": "data", "server": "nfs.example.com", "path": "/a", "mountPath": "/a"},
                    {"server": "nfs.example.com", "path": "/b", "mountPath": "/b", "readOnly": false}
                ]}
            }
        });
        let draft = TrainingDraft::from_request("training", &original);
        assert_eq!(draft.env.len(), 1);
        assert_eq!(draft.env[0].name, "A");
        assert!(draft.tolerations.is_empty());
        assert!(draft.extended_resources.is_empty());
        assert_eq!(draft.volumes.len(), 1);
        assert_eq!(draft.volume_path(0), "spec.storage.nfs[0]");
        assert_eq!(
            draft.carried_keys(),
            ["compute", "environmentVariables", "storage", "tolerations"]
        );
        let again = draft.validate().expect("valid");
        let spec = &again["spec"];
        assert_eq!(
            spec["environmentVariables"],
            json!([{"name": "A", "value": "1"}, {"name": "PROXY", "exclude": true}])
        );
        assert_eq!(spec["tolerations"], original["spec"]["tolerations"]);
        assert_eq!(spec["compute"], original["spec"]["compute"]);
        assert_eq!(
            spec["storage"]["nfs"],
            json!([
                {"server": "nfs.example.com", "path": "/b", "mountPath": "/b"},
                {"name": "data", "server": "nfs.example.com", "path": "/a", "mountPath": "/a"}
            ])
        );
    }

    #[test]
    fn a_label_may_have_an_empty_value() {
        let draft = TrainingDraft {
            name: "labels".into(),
            image: "busybox".into(),
            labels: vec![KeyValueRow {
                name: "flag".into(),
                value: String::new(),
            }],
            ..TrainingDraft::new("default")
        };
        let request = draft.validate().expect("valid");
        assert_eq!(
            request["spec"]["labels"],
            json!([{"name": "flag", "value": ""}])
        );
    }

    #[test]
    fn fractional_gpus_keep_their_device_count_until_the_style_changes() {
        let original = json!({
            "name": "halves", "projectId": "p",
            "spec": {"image": "busybox", "compute": {
                "gpuDevicesRequest": 2, "gpuRequestType": "portion",
                "gpuPortionRequest": 0.5, "gpuPortionLimit": 0.75
            }}
        });
        let draft = TrainingDraft::from_request("training", &original);
        assert_eq!(draft.gpu_mode, GpuMode::Portion);
        assert_eq!(draft.gpu_devices, "");
        assert_eq!(draft.validate().expect("valid"), original);

        let mig = TrainingDraft {
            gpu_mode: GpuMode::Mig,
            mig_profile: "1g.5gb".into(),
            ..draft.clone()
        };
        assert_eq!(
            mig.validate().expect("valid")["spec"]["compute"],
            json!({"gpuDevicesRequest": 2, "gpuRequestType": "migProfile", "migProfile": "1g.5gb"})
        );
        let whole = TrainingDraft {
            gpu_mode: GpuMode::Devices,
            gpu_devices: "1".into(),
            ..draft.clone()
        };
        assert_eq!(
            whole.validate().expect("valid")["spec"]["compute"],
            json!({"gpuDevicesRequest": 1})
        );
        let none = TrainingDraft {
            gpu_mode: GpuMode::None,
            ..draft
        };
        assert!(none.to_request()["spec"].get("compute").is_none());
    }

    #[test]
    fn a_master_unlike_its_workers_is_carried_whole() {
        let original = json!({
            "name": "tf", "projectId": "p",
            "spec": {
                "image": "tensorflow/tensorflow",
                "distributedFramework": "TensorFlow",
                "numWorkers": 3,
                "minReplicas": 2,
                "masterSpecSameAsWorker": false,
                "master": {"image": "tensorflow/tensorflow:chief", "compute": {"cpuCoreRequest": 2, "largeShmRequest": true}}
            }
        });
        let draft = TrainingDraft::from_request("training", &original);
        assert!(draft.distributed);
        assert!(draft.master_own_resources);
        assert_eq!(draft.framework, "TF");
        assert_eq!(draft.master_cpu_request, "2");
        assert_eq!(draft.carried_keys(), ["master", "minReplicas"]);
        let again = TrainingDraft {
            master_cpu_request: "4".into(),
            ..draft
        }
        .validate()
        .expect("valid");
        assert_eq!(
            again["spec"]["master"],
            json!({"image": "tensorflow/tensorflow:chief", "compute": {"cpuCoreRequest": 4, "largeShmRequest": true}})
        );
        assert_eq!(again["spec"]["distributedFramework"], "TF");
        assert_eq!(again["spec"]["minReplicas"], 2);
    }

    #[test]
    fn odd_json_makes_an_empty_draft_not_a_panic() {
        for value in [
            json!(null),
            json!(3),
            json!("x"),
            json!([1]),
            json!({"spec": "x"}),
            json!({"name": 5, "projectId": {}, "spec": []}),
            json!({"spec": {"compute": 1, "storage": {"nfs": 2}}}),
            json!({"spec": {"compute": {"extendedResources": 3, "gpuRequestType": 1}, "storage": 1}}),
            json!({"spec": {"environmentVariables": [1, null, {"secret": 2}], "labels": "x",
                            "tolerations": [[]], "nodePools": [1, [2]], "podAffinity": 4,
                            "security": {"capabilities": "x"}}}),
            json!({"spec": {"numWorkers": "x", "master": 5, "masterSpecSameAsWorker": false}}),
            json!({"spec": {"distributedFramework": {}, "master": {"compute": 5}}}),
            json!({"spec": {"numWorkers": 1, "master": {"compute": {"cpuCoreRequest": []}}}}),
            json!({"spec": {"storage": {"pvc": [{"claimInfo": 1}], "git": [3], "s3": {}}}}),
        ] {
            for kind in ["training", "distributed"] {
                let draft = TrainingDraft::from_request(kind, &value);
                let _ = draft.validate();
                let again = TrainingDraft::from_request(kind, &draft.to_request());
                let _ = again.validate();
            }
        }
    }

    #[test]
    fn an_odd_section_is_carried_so_the_clone_fails_where_the_original_does() {
        let original = json!({"name": "odd", "projectId": "p",
                              "spec": {"image": "busybox", "compute": 1, "tolerations": "x"}});
        let expected: Vec<String> = parse::training(&original)
            .expect_err("invalid")
            .into_iter()
            .map(|e| e.path)
            .collect();
        let draft = TrainingDraft::from_request("training", &original);
        assert_eq!(draft.to_request(), original);
        assert_eq!(paths(&draft), expected);
    }
}
