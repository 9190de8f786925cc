//! The form's state: the draft every field edits, what the validator says about it, and which
//! fields have been edited (a field shows its error once it has been, and every field does after
//! a submit attempt).

use crate::draft::{Draft, Kind, Path};
use leptos::lazy;
use leptos::prelude::*;
use std::collections::HashSet;
use tephra_core::model::policy::{FormHints, Hint, apply_defaults, check_request};
use tephra_core::model::validation::FieldError;

/// The request validator, run on a draft. It lives in a chunk of its own, loaded when the form
/// is first used (see [`FormState::new`]): the strict parser that gives the API's own messages
/// and paths is most of the form's code, and the form is readable and editable without it.
///
/// The project's policies are checked too, as the server does: on the request with their
/// defaults filled in, each refusal naming the rule and who set it.
///
/// The policy comes as JSON text and is parsed here, so its decoder is in this chunk rather than
/// in the form's.
#[lazy]
pub fn check(input: (Draft, String)) -> Vec<FieldError> {
    let (draft, policy) = input;
    let policy: tephra_core::model::policy::FormPolicy =
        serde_json::from_str(&policy).unwrap_or_default();
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

/// The form's state, shared by every field through context.
#[derive(Clone, Copy)]
pub struct FormState {
    pub draft: RwSignal<Draft>,
    /// What the policies of the draft's project show beside each field, for each kind of
    /// request, and the policies themselves for the validator.
    pub policy: RwSignal<FormHints>,
    /// What the validator says about the draft (the latest draft it has answered for).
    pub errors: RwSignal<Vec<FieldError>>,
    /// Counts the checks started, so an answer about an older draft is dropped.
    checks: StoredValue<u64>,
    /// What the server said about the last submit (a taken name, an unknown project...).
    pub server_errors: RwSignal<Vec<FieldError>>,
    touched: RwSignal<HashSet<String>>,
    /// Set by a submit attempt: from then on every error shows.
    pub submitted: RwSignal<bool>,
}

impl FormState {
    /// The validator runs after every change once a field has been edited or a submit tried;
    /// before that no message would show, so a page that is only read never loads it.
    pub fn new(
        initial: Draft,
        policy: FormHints,
        server_errors: Vec<FieldError>,
        submitted: bool,
    ) -> Self {
        let form = FormState {
            draft: RwSignal::new(initial),
            policy: RwSignal::new(policy),
            errors: RwSignal::new(Vec::new()),
            checks: StoredValue::new(0),
            server_errors: RwSignal::new(server_errors),
            touched: RwSignal::new(HashSet::new()),
            submitted: RwSignal::new(submitted),
        };
        Effect::new(move |_| {
            let draft = form.draft.get();
            form.policy.track();
            if form.submitted.get() || form.touched.with(|t| !t.is_empty()) {
                leptos::task::spawn_local(async move {
                    form.check(draft).await;
                });
            }
        });
        form
    }

    /// Validates `draft` and shows the answer unless a newer check has started meanwhile;
    /// returns the errors.
    pub async fn check(self, draft: Draft) -> Vec<FieldError> {
        self.checks.update_value(|n| *n += 1);
        let this = self.checks.get_value();
        let policy = self.policy.with_untracked(|p| p.policy.clone());
        let errors = check((draft, policy)).await;
        if self.checks.get_value() == this {
            self.errors.set(errors.clone());
        }
        errors
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

    pub fn touch(&self, path: &str) {
        if !self.touched.with_untracked(|t| t.contains(path)) {
            self.touched.update(|t| {
                t.insert(path.to_owned());
            });
        }
        // What the server said was about the previous input.
        if self
            .server_errors
            .with_untracked(|e| e.iter().any(|e| e.path == path))
        {
            self.server_errors.update(|e| e.retain(|e| e.path != path));
        }
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
            self.server_errors
                .with(|e| e.iter().find(|e| e.path == path).map(|e| e.message.clone()))
        })
    }

    /// Every error to list in the summary: the validator's and the server's.
    pub fn all_errors(&self) -> Vec<FieldError> {
        let mut all = self.errors.get();
        for e in self.server_errors.get() {
            if !all.contains(&e) {
                all.push(e);
            }
        }
        all
    }

    /// The text of the field at `path`, and a setter that writes it as `kind`.
    ///
    /// The field keeps showing exactly what was typed as long as it still means what the draft
    /// holds: "1." is 1 and "python " is "python" in the request, and showing those back would
    /// eat the decimal point or the space before the next keystroke. A change from elsewhere
    /// (another GPU style, a removed row) shows the draft's value.
    pub fn bind(&self, path: &Path, kind: Kind) -> (Signal<String>, Callback<String>) {
        let draft = self.draft;
        let typed = RwSignal::new(None::<String>);
        let (read, write) = (path.clone(), path.clone());
        (
            Signal::derive(move || {
                draft.with(|d| {
                    let current = d.get(&read);
                    match typed.get() {
                        Some(text) if kind.value(&text).as_ref() == current => text,
                        _ => d.text(&read),
                    }
                })
            }),
            Callback::new(move |text: String| {
                typed.set(Some(text.clone()));
                draft.update(|d| d.set_text(&write, kind, &text));
            }),
        )
    }
}

pub fn use_form() -> FormState {
    use_context::<FormState>().expect("fields live inside a TrainingForm")
}
