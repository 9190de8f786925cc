//! The form's state as the server draws it: the draft every field shows, what the validator says
//! about it, and which fields have been edited (a field shows its error once it has been, and
//! every field does after a submit attempt). The browser keeps no copy: it posts the form and
//! the server draws it again (see `pages::new_training`).

use crate::draft::{Draft, Path};
use leptos::prelude::*;
use std::collections::HashSet;
use tephra_core::model::policy::{FormHints, Hint, apply_defaults, check_request};
use tephra_core::model::validation::FieldError;

/// The request validator, run on a draft: the strict parser that gives the API's own messages
/// and paths, then the project's policies as the server checks them, on the request with their
/// defaults filled in, each refusal naming the rule and who set it.
pub fn check(draft: &Draft, hints: &FormHints) -> Vec<FieldError> {
    let policy = hints.policy();
    let mut errors = draft.validate().err().unwrap_or_default();
    let layers = policy.layers(draft.is_distributed());
    let mut request = draft.to_request();
    apply_defaults(&mut request, layers);
    for refusal in check_request(&request, layers) {
        if !errors.iter().any(|e| e.path == refusal.path) {
            errors.push(refusal);
        }
    }
    errors
}

/// What the form is drawn from.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Drawn {
    pub draft: Draft,
    /// What the policies of the draft's project show beside each field.
    pub hints: FormHints,
    /// What the validator says about the draft.
    pub errors: Vec<FieldError>,
    /// What the server said about the last submit (a taken name, an unknown project...).
    pub served: Vec<FieldError>,
    /// The paths of the fields edited so far.
    pub touched: HashSet<String>,
    /// Whether a submit has been tried: then every error shows.
    pub submitted: bool,
    /// The volume kind chosen to add, as the chooser posted it.
    pub volume: Option<String>,
}

/// The form's state, shared by every field through context.
#[derive(Clone, Copy)]
pub struct FormState {
    pub draft: RwSignal<Draft>,
    pub policy: RwSignal<FormHints>,
    errors: RwSignal<Vec<FieldError>>,
    served: RwSignal<Vec<FieldError>>,
    touched: RwSignal<HashSet<String>>,
    pub submitted: RwSignal<bool>,
    pub volume: RwSignal<Option<String>>,
}

impl FormState {
    pub fn new(drawn: Drawn) -> Self {
        let mut served = drawn.served;
        // What the server said was about the input before the edit.
        served.retain(|e| !drawn.touched.contains(&e.path));
        FormState {
            draft: RwSignal::new(drawn.draft),
            policy: RwSignal::new(drawn.hints),
            errors: RwSignal::new(drawn.errors),
            served: RwSignal::new(served),
            touched: RwSignal::new(drawn.touched),
            submitted: RwSignal::new(drawn.submitted),
            volume: RwSignal::new(drawn.volume),
        }
    }

    /// The policy's hint for the field at `path` (`spec.compute.gpuDevicesRequest`, or the same
    /// below `spec.master`), over the layers that apply to the draft as it is.
    pub fn hint(&self, path: &str) -> Option<Hint> {
        let below_spec = path
            .strip_prefix("spec.master.")
            .or_else(|| path.strip_prefix("spec."))?;
        let distributed = self.draft.with(Draft::is_distributed);
        self.policy
            .with(|p| p.get(distributed, below_spec).cloned())
    }

    /// Whether the policy lets no entries be added to the list at `path`.
    pub fn adding_closed(&self, path: &str) -> bool {
        self.hint(path).is_some_and(|h| h.closed)
    }

    /// The message to show under the field at `path`, if any.
    pub fn message(&self, path: &str) -> Option<String> {
        let shown = self.submitted.get() || self.touched.with(|t| t.contains(path));
        let client = shown
            .then(|| {
                self.errors
                    .with(|e| e.iter().find(|e| e.path == path).map(|e| e.message.clone()))
            })
            .flatten();
        client.or_else(|| {
            self.served
                .with(|e| e.iter().find(|e| e.path == path).map(|e| e.message.clone()))
        })
    }

    /// Every error to list in the summary once a submit has been tried: the validator's and the
    /// server's; before, the server's.
    pub fn summary(&self) -> Vec<FieldError> {
        let mut all = if self.submitted.get() {
            self.errors.get()
        } else {
            Vec::new()
        };
        for e in self.served.get() {
            if !all.contains(&e) {
                all.push(e);
            }
        }
        all
    }

    /// What the server said about the last submit without scripts, to post back with the form.
    pub fn served(&self) -> Vec<FieldError> {
        self.served.get()
    }

    /// The text of the field at `path`.
    pub fn text(&self, path: &Path) -> String {
        self.draft.with(|d| d.text(path))
    }
}

pub fn use_form() -> FormState {
    use_context::<FormState>().expect("fields live inside the form's body")
}
