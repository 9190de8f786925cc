//! Form fields bound to the request a [`Draft`](crate::draft::Draft) holds, each named once: by its
//! [`Path`].
//!
//! From the path a field derives everything else: the value it shows and writes (converted by
//! its [`Kind`]), its element id, the name an HTML form posts it under, and its error, which is
//! the request validator's (the API's) own message for that path. A field shows its error once it
//! has been edited, and every field does after a submit attempt.
//!
//! The fields are drawn on the server only, from what the form last posted; a button that
//! changes the form's shape (a row added or removed) posts its [`Op`]. The browser's part is
//! `pages::new_training::follow`.

use crate::draft::op::Op;
use crate::draft::posted::{OP, input_name, unchecked_name};
use crate::draft::{Kind, Path};
use leptos::either::Either;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use serde_json::Value;

mod state;
pub use state::{Drawn, FormState, check, use_form};

pub const INPUT_CLASS: &str = "block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm disabled:cursor-not-allowed disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-indigo-500 aria-[invalid=true]:border-red-600 dark:border-slate-600 dark:bg-slate-900 dark:aria-[invalid=true]:border-red-400";
const LABEL_CLASS: &str = "text-sm font-medium";
const HINT_CLASS: &str = "text-xs text-slate-600 dark:text-slate-400";
const ERROR_CLASS: &str = "text-xs font-medium text-red-700 dark:text-red-300";
pub const ROW_CLASS: &str = "grid items-start gap-3 rounded-md border border-slate-200 p-3 md:grid-cols-3 dark:border-slate-700";
pub const LINK_BUTTON_CLASS: &str = "self-start rounded-md px-2 py-1 text-sm font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300";

/// The element id of the field at a JSON path.
pub fn field_id(path: &str) -> String {
    let mut id = String::from("f-");
    for c in path.chars() {
        id.push(if c.is_ascii_alphanumeric() { c } else { '-' });
    }
    id
}

/// The name a field's input posts under.
fn posted(name: String) -> String {
    format!("draft[{name}]")
}

/// Under a field: its hint, what the project's policy allows there, and its error.
#[component]
fn Message(path: String, #[prop(optional)] hint: &'static str) -> impl IntoView {
    let form = use_form();
    let id = field_id(&path);
    let rule = form.hint(&path).map(|h| h.text);
    let message = form.message(&path);
    // `data-live`: its content is put in place as the user types (the fields around it are not).
    view! {
        {(!hint.is_empty()).then(|| view! { <p id=format!("{id}-hint") class=HINT_CLASS>{hint}</p> })}
        <p id=format!("{id}-policy") class=HINT_CLASS data-policy-for=id.clone() data-live="">{rule}</p>
        <p id=format!("{id}-error") class=ERROR_CLASS data-error-for=id.clone() aria-live="polite" data-live="">
            {message}
        </p>
    }
}

fn described_by(id: &str, hint: &str) -> String {
    if hint.is_empty() {
        format!("{id}-policy {id}-error")
    } else {
        format!("{id}-hint {id}-policy {id}-error")
    }
}

/// Whether the policy locks the field at `path`; such a field is shown, not edited.
fn locked(form: FormState, path: &str) -> bool {
    form.hint(path).is_some_and(|h| h.locked)
}

/// A button that posts `op`: with scripts the page draws the form again with it made, without
/// them the server sends the browser back to the form with it made.
#[component]
pub fn OpButton(
    op: Op,
    label: String,
    #[prop(optional)] disabled: bool,
    #[prop(default = LINK_BUTTON_CLASS)] class: &'static str,
    /// The form it belongs to, when it is drawn outside it.
    #[prop(optional)]
    form: Option<&'static str>,
    #[prop(optional)] testid: Option<&'static str>,
    #[prop(optional)] id: Option<String>,
    #[prop(optional)] expanded: Option<bool>,
) -> impl IntoView {
    view! {
        <button
            type="submit"
            id=id
            form=form
            name=posted(OP.to_owned())
            value=op.code()
            formaction=crate::api::EditTrainingForm::PATH
            formnovalidate=true
            class=class
            disabled=disabled
            aria-expanded=expanded.map(|e| e.to_string())
            data-testid=testid
        >
            {label}
        </button>
    }
}

/// A text input. Numbers are text inputs with a numeric keyboard, because a browser's number
/// input reports half-typed decimals ("1.") as empty, which would erase them as they are typed;
/// `decimal` asks for a keyboard with a decimal point.
#[component]
pub fn TextField(
    label: &'static str,
    path: Path,
    #[prop(default = Kind::Text)] kind: Kind,
    #[prop(optional)] hint: &'static str,
    #[prop(optional)] placeholder: &'static str,
    #[prop(optional)] decimal: bool,
    #[prop(optional)] required: bool,
) -> impl IntoView {
    let form = use_form();
    let value = form.text(&path);
    let name = posted(input_name(kind, &path));
    let path = path.to_string();
    let id = field_id(&path);
    let inputmode = match (kind, decimal) {
        (Kind::Number, false) => Some("numeric"),
        (Kind::Number, true) => Some("decimal"),
        _ => None,
    };
    let invalid = form.message(&path).is_some();
    let locked = locked(form, &path);
    view! {
        <div class="flex flex-col gap-1">
            <label for=id.clone() class=LABEL_CLASS>
                {label}
                {required.then(|| view! { <span aria-hidden="true" class="text-red-700 dark:text-red-300">" *"</span> })}
            </label>
            <input
                id=id.clone()
                name=name
                type="text"
                inputmode=inputmode
                class=INPUT_CLASS
                placeholder=placeholder
                required=required
                readonly=locked
                aria-invalid=invalid.to_string()
                aria-describedby=described_by(&id, hint)
                value=value
            />
            <Message path hint />
        </div>
    }
}

/// A drop-down of `options` (value, label).
#[component]
pub fn SelectField(
    label: &'static str,
    path: Path,
    options: &'static [(&'static str, &'static str)],
    #[prop(default = Kind::Text)] kind: Kind,
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let form = use_form();
    let value = form.text(&path);
    let name = posted(input_name(kind, &path));
    let path = path.to_string();
    let id = field_id(&path);
    let locked = locked(form, &path);
    view! {
        <div class="flex flex-col gap-1">
            <label for=id.clone() class=LABEL_CLASS>{label}</label>
            <select
                id=id.clone()
                name=name
                class=INPUT_CLASS
                disabled=locked
                aria-describedby=described_by(&id, hint)
            >
                {options
                    .iter()
                    .map(|(v, l)| view! { <option value=*v selected=value == *v>{*l}</option> })
                    .collect_view()}
            </select>
            <Message path hint />
        </div>
    }
}

/// A checkbox; posts `true` when checked, and beside it a hidden input saying it was shown, so
/// a form posted with the box unchecked clears the field.
#[component]
pub fn CheckboxField(
    label: &'static str,
    path: Path,
    #[prop(default = Kind::Flag)] kind: Kind,
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let form = use_form();
    let name = posted(input_name(kind, &path));
    let shown = posted(unchecked_name(kind, &path));
    let checked = form.draft.with(|d| d.is_true(&path));
    let path = path.to_string();
    let id = field_id(&path);
    let locked = locked(form, &path);
    view! {
        <div class="flex flex-col gap-1">
            <div class="flex items-center gap-2">
                <input type="hidden" name=shown value="" />
                <input
                    id=id.clone()
                    name=name
                    type="checkbox"
                    value="true"
                    class=CHECKBOX_CLASS
                    aria-describedby=described_by(&id, hint)
                    checked=checked
                    disabled=locked
                />
                <label for=id.clone() class=LABEL_CLASS>{label}</label>
            </div>
            <Message path hint />
        </div>
    }
}

const CHECKBOX_CLASS: &str =
    "h-4 w-4 rounded-sm border-slate-400 focus-visible:outline-2 focus-visible:outline-indigo-500";

/// Errors about a whole row or section rather than one field.
#[component]
pub fn GroupMessage(path: String) -> impl IntoView {
    let form = use_form();
    let id = field_id(&path);
    view! {
        <p id=format!("{id}-error") class=ERROR_CLASS data-error-for=id data-live="">
            {form.message(&path)}
        </p>
    }
}

/// The rows of the list at `path`, each drawn by `row` from its own path, with a button that
/// adds `template` and one on each row that removes it. A blank row keeps its place, so row `i`
/// is always element `i` and its errors point at it.
#[component]
pub fn RowList(
    title: &'static str,
    path: Path,
    /// What the add button says, after "+ "; none when empty (rows are added elsewhere).
    #[prop(optional)]
    add: &'static str,
    /// What a row is called on its remove button.
    what: &'static str,
    template: fn() -> Value,
    row: fn(Path) -> AnyView,
    /// Draw the title as a legend of its own fieldset (a list inside a section) or not.
    #[prop(default = true)]
    legend: bool,
) -> impl IntoView {
    let form = use_form();
    let count = form.draft.with(|d| d.rows(&path));
    let rows = view! {
        <div class="mt-2 flex flex-col gap-3">
            {(0..count).map(|i| {
                let here = path.index(i);
                let remove = Op::Remove { list: path.clone(), index: i };
                view! {
                    <div class=ROW_CLASS data-row=here.to_string()>
                        {row(here.clone())}
                        <OpButton op=remove label=format!("Remove this {what}")
                            class=REMOVE_CLASS />
                        <GroupMessage path=here.to_string() />
                    </div>
                }
            }).collect_view()}
            {(!add.is_empty()).then(|| {
                let closed = form.adding_closed(&path.to_string());
                let op = Op::Add { list: path.clone(), row: template() };
                view! { <OpButton op label=format!("+ {add}") disabled=closed /> }
            })}
        </div>
    };
    if legend {
        Either::Left(view! {
            <fieldset class="mt-4">
                <legend class="text-sm font-semibold">{title}</legend>
                {rows}
            </fieldset>
        })
    } else {
        Either::Right(rows)
    }
}

const REMOVE_CLASS: &str = "self-start rounded-md px-2 py-1 text-sm font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 md:mt-6 dark:text-indigo-300";

/// A checkbox for a choice that is not a request field of its own (a distributed training, a
/// variable from a secret). `name` is what the form posts when it is checked, if anything; `op`
/// is what the page posts when it changes, if anything (with " on" or " off" after it).
#[component]
pub fn Toggle(
    label: &'static str,
    id: String,
    checked: bool,
    #[prop(optional)] name: &'static str,
    #[prop(optional)] op: Option<String>,
) -> impl IntoView {
    let name = (!name.is_empty()).then(|| posted(name.to_owned()));
    view! {
        <div class="flex items-center gap-2 md:mt-6">
            <input
                id=id.clone()
                name=name
                type="checkbox"
                value="true"
                class=CHECKBOX_CLASS
                checked=checked
                data-op=op
            />
            <label for=id class=LABEL_CLASS>{label}</label>
        </div>
    }
}
