//! Form fields bound to a [`TrainingDraft`], each tied to its label, its hint and its error.
//!
//! Every field knows the JSON path the request validator reports it under, so the message shown
//! under a field is the validator's (the API's) own. A field shows its error once it has been
//! edited, and every field does after a submit attempt. Each input also has the `name` an HTML
//! form posts it under (`draft[...]`), so the form submits without JavaScript too.

use crate::model::training::draft::TrainingDraft;
use crate::model::validation::FieldError;
use leptos::prelude::*;
use std::collections::HashSet;

pub const INPUT_CLASS: &str = "block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-indigo-500 aria-[invalid=true]:border-red-600 dark:border-slate-600 dark:bg-slate-900 dark:aria-[invalid=true]:border-red-400";
const LABEL_CLASS: &str = "text-sm font-medium";
const HINT_CLASS: &str = "text-xs text-slate-600 dark:text-slate-400";
const ERROR_CLASS: &str = "text-xs font-medium text-red-700 dark:text-red-300";

/// The form's state, shared by every field through context.
#[derive(Clone, Copy)]
pub struct FormState {
    pub draft: RwSignal<TrainingDraft>,
    /// What the validator says about the current draft.
    pub errors: Memo<Vec<FieldError>>,
    /// What the server said about the last submit (a taken name, an unknown project...).
    pub server_errors: RwSignal<Vec<FieldError>>,
    touched: RwSignal<HashSet<String>>,
    /// Set by a submit attempt: from then on every error shows.
    pub submitted: RwSignal<bool>,
}

impl FormState {
    pub fn new(initial: TrainingDraft, server_errors: Vec<FieldError>, submitted: bool) -> Self {
        let draft = RwSignal::new(initial);
        FormState {
            draft,
            errors: Memo::new(move |_| draft.with(|d| d.validate().err().unwrap_or_default())),
            server_errors: RwSignal::new(server_errors),
            touched: RwSignal::new(HashSet::new()),
            submitted: RwSignal::new(submitted),
        }
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
}

pub fn use_form() -> FormState {
    use_context::<FormState>().expect("fields live inside a TrainingForm")
}

/// The element id of the field at a JSON path.
pub fn field_id(path: &str) -> String {
    let mut id = String::from("f-");
    for c in path.chars() {
        id.push(if c.is_ascii_alphanumeric() { c } else { '-' });
    }
    id
}

/// A getter and a setter for one field of the draft.
#[macro_export]
macro_rules! bind {
    ($form:expr, $($field:ident).+) => {{
        let draft = $form.draft;
        (
            Signal::derive(move || draft.with(|d| d.$($field).+.clone())),
            Callback::new(move |v| draft.update(|d| d.$($field).+ = v)),
        )
    }};
}

/// A getter and a setter for one field of row `i` of a list in the draft.
#[macro_export]
macro_rules! bind_row {
    ($form:expr, $list:ident, $i:expr, $field:ident) => {{
        let draft = $form.draft;
        let i = $i;
        (
            Signal::derive(move || {
                draft.with(|d| d.$list.get(i).map(|r| r.$field.clone()).unwrap_or_default())
            }),
            Callback::new(move |v| {
                draft.update(|d| {
                    if let Some(r) = d.$list.get_mut(i) {
                        r.$field = v;
                    }
                })
            }),
        )
    }};
}

#[component]
fn Message(path: String, #[prop(optional)] hint: &'static str) -> impl IntoView {
    let form = use_form();
    let id = field_id(&path);
    let message = move || form.message(&path);
    view! {
        {(!hint.is_empty()).then(|| view! { <p id=format!("{id}-hint") class=HINT_CLASS>{hint}</p> })}
        <p id=format!("{id}-error") class=ERROR_CLASS data-error-for=id.clone() aria-live="polite">
            {message}
        </p>
    }
}

fn described_by(id: &str, hint: &str) -> String {
    if hint.is_empty() {
        format!("{id}-error")
    } else {
        format!("{id}-hint {id}-error")
    }
}

/// A text input. `kind` is the input type (`text`, `url`...); `number` fields are text inputs
/// with a numeric keyboard, because a browser's number input reports half-typed decimals ("1.")
/// as empty, which would erase them as they are typed.
#[component]
pub fn TextField(
    label: &'static str,
    path: String,
    name: String,
    value: Signal<String>,
    set: Callback<String>,
    #[prop(optional)] hint: &'static str,
    #[prop(optional)] placeholder: &'static str,
    #[prop(default = "text")] kind: &'static str,
    #[prop(optional)] step: &'static str,
    #[prop(optional)] required: bool,
) -> impl IntoView {
    let form = use_form();
    let id = field_id(&path);
    let (kind, inputmode) = match (kind, step.is_empty()) {
        ("number", true) => ("text", Some("numeric")),
        ("number", false) => ("text", Some("decimal")),
        (other, _) => (other, None),
    };
    let invalid = {
        let path = path.clone();
        move || form.message(&path).is_some()
    };
    let touched_path = path.clone();
    view! {
        <div class="flex flex-col gap-1">
            <label for=id.clone() class=LABEL_CLASS>
                {label}
                {required.then(|| view! { <span aria-hidden="true" class="text-red-700 dark:text-red-300">" *"</span> })}
            </label>
            <input
                id=id.clone()
                name=name
                type=kind
                inputmode=inputmode
                class=INPUT_CLASS
                placeholder=placeholder
                required=required
                aria-invalid=move || invalid().to_string()
                aria-describedby=described_by(&id, hint)
                prop:value=move || value.get()
                on:input=move |ev| {
                    form.touch(&touched_path);
                    set.run(event_target_value(&ev));
                }
            />
            <Message path hint />
        </div>
    }
}

/// A drop-down of `options` (value, label).
#[component]
pub fn SelectField(
    label: &'static str,
    path: String,
    name: String,
    value: Signal<String>,
    set: Callback<String>,
    options: &'static [(&'static str, &'static str)],
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let form = use_form();
    let id = field_id(&path);
    let touched_path = path.clone();
    view! {
        <div class="flex flex-col gap-1">
            <label for=id.clone() class=LABEL_CLASS>{label}</label>
            <select
                id=id.clone()
                name=name
                class=INPUT_CLASS
                aria-describedby=described_by(&id, hint)
                on:change=move |ev| {
                    form.touch(&touched_path);
                    set.run(event_target_value(&ev));
                }
            >
                {options
                    .iter()
                    .map(|(v, l)| {
                        view! {
                            <option value=*v selected=move || value.get() == *v>
                                {*l}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
            <Message path hint />
        </div>
    }
}

/// A checkbox; posts `true` when checked (and nothing when not, which reads as false).
#[component]
pub fn CheckboxField(
    label: &'static str,
    path: String,
    name: String,
    value: Signal<bool>,
    set: Callback<bool>,
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let form = use_form();
    let id = field_id(&path);
    let touched_path = path.clone();
    view! {
        <div class="flex flex-col gap-1">
            <div class="flex items-center gap-2">
                <input
                    id=id.clone()
                    name=name
                    type="checkbox"
                    value="true"
                    class="h-4 w-4 rounded-sm border-slate-400 focus-visible:outline-2 focus-visible:outline-indigo-500"
                    aria-describedby=described_by(&id, hint)
                    prop:checked=move || value.get()
                    on:change=move |ev| {
                        form.touch(&touched_path);
                        set.run(event_target_checked(&ev));
                    }
                />
                <label for=id.clone() class=LABEL_CLASS>{label}</label>
            </div>
            <Message path hint />
        </div>
    }
}

/// Errors about a whole row or section rather than one field.
#[component]
pub fn GroupMessage(path: String) -> impl IntoView {
    let form = use_form();
    let id = field_id(&path);
    view! {
        <p class=ERROR_CLASS data-error-for=id>
            {move || form.message(&path)}
        </p>
    }
}
