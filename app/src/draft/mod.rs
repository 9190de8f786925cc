//! The new-training form's state: the request itself, as the JSON the API takes.
//!
//! There is no second model of a training to keep in step with the request types: each form
//! field reads and writes the request document at its [`Path`] (named through the types with
//! [`key!`](crate::key)), converting its text by its [`Kind`]. Text that does not fit is written
//! as typed, so the strict request parser (the one the API runs) reports every problem with the
//! API's own path and message. A clone is the stored request, whole: keys no field shows are kept
//! and submitted as they were.

pub mod fields;
mod generic;
mod link;
pub use generic::TYPE_KEY;
pub mod path;
pub mod posted;
#[cfg(test)]
mod tests;
pub mod text;

use crate::key;
pub use path::Path;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tephra_core::model::kind::WorkloadKind;
use tephra_core::model::training::distributed::{DistributedSpec, Framework};
use tephra_core::model::training::parse;
use tephra_core::model::training::request::{
    Compute, GpuRequestType, TrainingRequest, TrainingSpec,
};
use tephra_core::model::validation::FieldError;
pub use text::Kind;

/// How the GPUs of one pod are asked for. Not a request field of its own: it is read from, and
/// written to, `compute.gpuRequestType` and the fields that style uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuMode {
    #[default]
    None,
    /// Whole GPUs: `gpuDevicesRequest`.
    Devices,
    /// A fraction of one GPU: `gpuRequestType: portion`.
    Portion,
    /// GPU memory: `gpuRequestType: memory`.
    Memory,
    /// A MIG profile: `gpuRequestType: migProfile`.
    Mig,
}

impl GpuMode {
    pub const ALL: [GpuMode; 5] = [
        GpuMode::None,
        GpuMode::Devices,
        GpuMode::Portion,
        GpuMode::Memory,
        GpuMode::Mig,
    ];

    /// The value the mode's radio button posts.
    pub fn as_str(self) -> &'static str {
        match self {
            GpuMode::None => "none",
            GpuMode::Devices => "devices",
            GpuMode::Portion => "portion",
            GpuMode::Memory => "memory",
            GpuMode::Mig => "mig",
        }
    }

    pub fn parse(text: &str) -> GpuMode {
        GpuMode::ALL
            .into_iter()
            .find(|m| m.as_str() == text)
            .unwrap_or_default()
    }

    fn request_type(self) -> Option<GpuRequestType> {
        match self {
            GpuMode::Portion => Some(GpuRequestType::Portion),
            GpuMode::Memory => Some(GpuRequestType::Memory),
            GpuMode::Mig => Some(GpuRequestType::MigProfile),
            GpuMode::None | GpuMode::Devices => None,
        }
    }

    /// The compute keys this style asks with.
    fn keys(self) -> Vec<String> {
        match self {
            GpuMode::None => vec![],
            GpuMode::Devices => vec![key!(Compute.gpu_devices_request)],
            GpuMode::Portion => vec![
                key!(Compute.gpu_portion_request),
                key!(Compute.gpu_portion_limit),
            ],
            GpuMode::Memory => vec![
                key!(Compute.gpu_memory_request),
                key!(Compute.gpu_memory_limit),
            ],
            GpuMode::Mig => vec![key!(Compute.mig_profile)],
        }
    }
}

/// A value as the JSON serde writes for it (an enum's variant name, a number).
fn json<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The request the form edits (`{name, projectId, spec}`), distributed when its spec names a
/// framework or a worker count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Draft(Value);

impl Default for Draft {
    fn default() -> Self {
        Draft::new("")
    }
}

impl Draft {
    /// A blank request in `project`.
    pub fn new(project: &str) -> Draft {
        let mut draft = Draft(Value::Object(Map::new()));
        draft.set(&fields::name(), Some(Value::String(String::new())));
        draft.set(&fields::project(), Some(Value::String(project.to_owned())));
        draft.set(&fields::spec(), Some(Value::Object(Map::new())));
        draft
    }

    /// A stored request (`{name, projectId, spec}`), for "Clone": every key is kept. Anything
    /// that is not a JSON object starts a blank draft.
    pub fn from_stored(request: &Value) -> Draft {
        match request {
            Value::Object(_) => {
                Draft::from_stored_generic(request).unwrap_or_else(|| Draft(request.clone()))
            }
            _ => Draft::new(""),
        }
    }

    /// The value at `path`, if there is one.
    pub fn get(&self, path: &Path) -> Option<&Value> {
        path.steps().iter().try_fold(&self.0, |v, step| match step {
            path::Step::Key(k) => v.get(k),
            path::Step::Index(i) => v.get(i),
        })
    }

    /// The text an input at `path` shows.
    pub fn text(&self, path: &Path) -> String {
        text::shown(self.get(path))
    }

    /// Whether the value at `path` is `true`.
    pub fn is_true(&self, path: &Path) -> bool {
        self.get(path) == Some(&Value::Bool(true))
    }

    /// Writes the field at `path` from its input's text.
    pub fn set_text(&mut self, path: &Path, kind: Kind, text: &str) {
        self.set(path, kind.value(text));
    }

    /// Puts `value` at `path`, making the objects on the way; `None` removes the key, and with
    /// it objects left empty (a blank row of a list keeps its place). A row that does not exist
    /// is not made: rows are added with [`Draft::push_row`].
    pub fn set(&mut self, path: &Path, value: Option<Value>) {
        set_in(&mut self.0, path.steps(), value);
    }

    /// How many rows the list at `path` has.
    pub fn rows(&self, path: &Path) -> usize {
        self.get(path).and_then(Value::as_array).map_or(0, Vec::len)
    }

    /// Appends `row` to the list at `path`.
    pub fn push_row(&mut self, path: &Path, row: Value) {
        let mut items = self
            .get(path)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        items.push(row);
        self.set(path, Some(Value::Array(items)));
    }

    /// Removes row `i` of the list at `path`, and the list once it is empty.
    pub fn remove_row(&mut self, path: &Path, i: usize) {
        let Some(mut items) = self.get(path).and_then(Value::as_array).cloned() else {
            return;
        };
        if i < items.len() {
            items.remove(i);
        }
        self.set(path, (!items.is_empty()).then_some(Value::Array(items)));
    }

    pub fn name(&self) -> String {
        self.text(&fields::name())
    }

    /// The project the draft names (its id or name, as typed).
    pub fn project(&self) -> String {
        self.text(&fields::project())
    }

    /// Fills what the draft leaves out from the policies' defaults; what it holds stays.
    pub fn fill_defaults(&mut self, layers: &[tephra_core::model::policy::Policy]) {
        tephra_core::model::policy::apply_defaults(&mut self.0, layers);
    }

    pub fn set_name(&mut self, name: &str) {
        self.set(&fields::name(), Some(Value::String(name.to_owned())));
    }

    pub fn is_distributed(&self) -> bool {
        let spec = fields::spec();
        self.get(&spec.key(key!(DistributedSpec.distributed_framework)))
            .is_some()
            || self
                .get(&spec.key(key!(DistributedSpec.num_workers)))
                .is_some()
    }

    /// Makes the request distributed (PyTorch, one worker, the master like a worker) or single.
    /// Completions and parallelism mean nothing to a distributed training, which refuses them.
    pub fn set_distributed(&mut self, on: bool) {
        if on == self.is_distributed() {
            return;
        }
        let spec = fields::spec();
        if on {
            self.set_generic(false);
            for key in [
                key!(TrainingSpec.completions),
                key!(TrainingSpec.parallelism),
            ] {
                self.set(&spec.key(key), None);
            }
            let set = |d: &mut Draft, key: String, value: Value| d.set(&spec.key(key), Some(value));
            set(
                self,
                key!(DistributedSpec.distributed_framework),
                json(Framework::PyTorch),
            );
            set(self, key!(DistributedSpec.num_workers), json(1));
            set(
                self,
                key!(DistributedSpec.master_spec_same_as_worker),
                json(true),
            );
        } else {
            for key in fields::distributed_keys() {
                self.set(&spec.key(key), None);
            }
        }
    }

    pub fn gpu_mode(&self) -> GpuMode {
        let compute = fields::compute();
        let requested = self.get(&compute.key(key!(Compute.gpu_request_type)));
        GpuMode::ALL
            .into_iter()
            .find(|m| m.request_type().is_some() && requested == Some(&json(m.request_type())))
            .unwrap_or_else(|| {
                if self
                    .get(&compute.key(key!(Compute.gpu_devices_request)))
                    .is_some()
                {
                    GpuMode::Devices
                } else {
                    GpuMode::None
                }
            })
    }

    /// Switches the GPU style: sets `gpuRequestType` and drops the fields of the other styles,
    /// which the validator would refuse beside it. Whole GPUs start at one, so the choice shows.
    /// With fractions, `gpuDevicesRequest` counts them and stays, unless it was whole GPUs.
    pub fn set_gpu_mode(&mut self, mode: GpuMode) {
        let before = self.gpu_mode();
        if mode == before {
            return;
        }
        let compute = fields::compute();
        for other in GpuMode::ALL.into_iter().filter(|m| *m != mode) {
            for key in other.keys() {
                let devices = key == key!(Compute.gpu_devices_request);
                if !devices || before == GpuMode::Devices || mode == GpuMode::None {
                    self.set(&compute.key(key), None);
                }
            }
        }
        self.set(
            &compute.key(key!(Compute.gpu_request_type)),
            mode.request_type().map(json),
        );
        let devices = compute.key(key!(Compute.gpu_devices_request));
        if mode == GpuMode::Devices && self.get(&devices).is_none() {
            self.set(&devices, Some(json(1)));
        }
    }

    /// Whether the master of a distributed training has a spec of its own.
    pub fn master_own(&self) -> bool {
        self.get(&fields::spec().key(key!(DistributedSpec.master_spec_same_as_worker)))
            == Some(&Value::Bool(false))
    }

    /// The request to send. The form edits only what sets the master apart (its compute, and
    /// whatever a clone brought); the master is the worker's spec with that laid over it.
    pub fn to_request(&self) -> Value {
        if self.is_generic() {
            return self.generic_request();
        }
        let mut request = self.0.clone();
        if !(self.is_distributed() && self.master_own()) {
            return request;
        }
        let spec_key = key!(TrainingRequest.spec);
        let Some(Value::Object(spec)) = request.get_mut(&spec_key) else {
            return request;
        };
        let master_key = key!(DistributedSpec.master);
        let own = match spec.get(&master_key) {
            Some(Value::Object(own)) => own.clone(),
            // Not an object: sent as it is, for the parser to name.
            Some(_) => return request,
            None => Map::new(),
        };
        let compute_key = key!(TrainingSpec.compute);
        let keys = fields::distributed_keys();
        let mut master: Map<String, Value> = spec
            .iter()
            .filter(|(k, _)| !keys.contains(*k) && **k != compute_key)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        master.extend(own);
        spec.insert(master_key, Value::Object(master));
        request
    }

    /// [`Draft::to_request`], parsed and validated exactly as the API does.
    pub fn validate(&self) -> Result<Value, Vec<FieldError>> {
        let request = self.to_request();
        if self.is_generic() {
            return parse::generic(&request)
                .map(|_| request)
                .map_err(|errors| generic::place_errors(self, errors));
        }
        if self.is_distributed() {
            parse::distributed(&request).map(|_| request)
        } else {
            parse::training(&request).map(|_| request)
        }
    }

    /// The API collection the request goes to.
    pub fn kind(&self) -> WorkloadKind {
        if self.is_generic() {
            WorkloadKind::Generic
        } else if self.is_distributed() {
            WorkloadKind::Distributed
        } else {
            WorkloadKind::Training
        }
    }

    /// The spec keys no section of the form shows (kept as they were), sorted.
    pub fn unshown_keys(&self) -> Vec<String> {
        let shown = fields::shown_spec_keys();
        let mut keys: Vec<String> = self
            .get(&fields::spec())
            .and_then(Value::as_object)
            .map(|spec| {
                spec.keys()
                    .filter(|k| !shown.contains(k))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        keys.sort();
        keys
    }
}

fn set_in(node: &mut Value, steps: &[path::Step], value: Option<Value>) {
    let Some((step, rest)) = steps.split_first() else {
        if let Some(value) = value {
            *node = value;
        }
        return;
    };
    match step {
        path::Step::Key(key) => {
            if !node.is_object() {
                if value.is_none() {
                    return;
                }
                *node = Value::Object(Map::new());
            }
            let Value::Object(map) = node else { return };
            if rest.is_empty() {
                match value {
                    Some(value) => {
                        map.insert(key.clone(), value);
                    }
                    None => {
                        map.remove(key);
                    }
                }
                return;
            }
            let removing = value.is_none();
            // Nothing to remove; and a row is never made here, so neither is its list.
            let into_row = matches!(rest.first(), Some(path::Step::Index(_)));
            if !map.contains_key(key) && (removing || into_row) {
                return;
            }
            let child = map.entry(key.clone()).or_insert(Value::Null);
            set_in(child, rest, value);
            // An object emptied by a removal goes too, so a cleared section is absent rather than
            // `{}`; rows are kept by the array step below.
            if removing && matches!(child, Value::Object(m) if m.is_empty()) {
                map.remove(key);
            }
        }
        path::Step::Index(i) => {
            let Some(child) = node.as_array_mut().and_then(|items| items.get_mut(*i)) else {
                return;
            };
            if rest.is_empty() {
                if let Some(value) = value {
                    *child = value;
                }
                return;
            }
            // A row keeps its place even when its last field is cleared.
            if value.is_none() && !child.is_object() {
                return;
            }
            set_in(child, rest, value);
            if child.is_null() {
                *child = Value::Object(Map::new());
            }
        }
    }
}
