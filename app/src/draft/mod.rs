//! The new-training form's state: the request itself, as the JSON the API takes.
//!
//! There is no second model of a training to keep in step with the request types: each form
//! field reads and writes the request document at its [`Path`] (named through the types with
//! [`key!`](crate::key)), converting its text by its [`Kind`]. Text that does not fit is written
//! as typed, so the strict request parser (the one the API runs) reports every problem with the
//! API's own path and message. A clone is the stored request, whole: keys no field shows are kept
//! and submitted as they were.

mod env;
pub mod fields;
mod generic;
mod gpu;
mod link;
pub use generic::TYPE_KEY;
pub mod op;
pub mod path;
pub mod posted;
#[cfg(test)]
mod tests;
pub mod text;
mod write;

use crate::key;
pub use gpu::GpuMode;
pub use path::Path;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tephra_core::model::kind::WorkloadKind;
use tephra_core::model::training::distributed::{DistributedSpec, Framework};
use tephra_core::model::training::parse;
use tephra_core::model::training::request::{TrainingRequest, TrainingSpec};
use tephra_core::model::validation::FieldError;
pub use text::Kind;
use write::set_in;

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
