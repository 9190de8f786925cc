//! The policy editor: one scope's own policy as JSON, checked by the server as saving would
//! (it parses, narrows the scopes around it, its defaults keep every rule), with a preview of
//! each field the form will fill, lock or bound.

use super::Refusal;
use super::form::FIELD;
use crate::api::{get_policy_text, try_policy};
use crate::components::style::{CARD_CLASS, PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use crate::components::table::{Column, Table};
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::org::Organisation;
use tephra_core::model::policy::{PolicyField, PolicyKind};

/// The select of scopes, read again after a save so a department or project created on the
/// page can be chosen at once.
pub(super) const POLICY_SCOPE_ID: &str = "policy-scope";

/// The scopes a policy can be set on, as `(value, label)`: `system:`, `department:<name>`,
/// `project:<name>`.
pub(super) fn scopes(org: &Organisation) -> Vec<(String, String)> {
    let mut scopes = vec![("system:".to_owned(), "The system".to_owned())];
    scopes.extend(org.departments.iter().map(|d| {
        (
            format!("department:{}", d.name),
            format!("Department {}", d.name),
        )
    }));
    scopes.extend(
        org.projects
            .iter()
            .map(|p| (format!("project:{}", p.name), format!("Project {}", p.name))),
    );
    scopes
}

fn split(scope: &str) -> (String, String) {
    let (kind, id) = scope.split_once(':').unwrap_or((scope, ""));
    (kind.to_owned(), id.to_owned())
}

const PREVIEW_COLUMNS: [Column; 3] = [
    Column::text("Field"),
    Column::text("What the form shows"),
    Column::text("Starts as"),
];

/// The page's one island. It opens on the system's trainings `policy`, rendered by the server too.
/// The scope is followed on its label: the page puts a fresh select in place after a save.
///
/// It also posts the page's forms ([`super::follow`]): one island rather than two measured
/// 0.4 to 2.6 KiB less on every other page, as wasm-split cuts fewer shared chunks.
#[island(lazy)]
pub fn PolicyEditor(policy: String, scopes: Vec<(String, String)>) -> impl IntoView {
    crate::components::hydrated::island_ready();
    super::follow::follow();
    let scope = RwSignal::new("system:".to_owned());
    let kind = RwSignal::new(PolicyKind::Trainings);
    let text = RwSignal::new(policy.clone());
    let answer: Answer = RwSignal::new(None);
    // Edits of the text so far: what someone types after picking a scope is theirs, and the
    // scope's stored policy arriving later must not overwrite it.
    let typed = RwSignal::new(0_u64);
    load_stored(scope, kind, text, typed, answer);
    let run = move |save: bool| {
        let (s, id) = split(&scope.get_untracked());
        let (k, body) = (kind.get_untracked(), text.get_untracked());
        leptos::task::spawn_local(async move {
            let result = try_policy(s, id, k, body, save).await;
            answer.set(Some((save, result)));
        });
    };
    view! {
        <section class=CARD_CLASS aria-labelledby="policies-heading">
            <h2 id="policies-heading" class="mb-1 font-semibold">"Policies"</h2>
            <p class="mb-3 max-w-3xl text-sm text-slate-600 dark:text-slate-400">
                "Defaults fill what a request leaves out; rules (" <code>"canEdit"</code>", "<code>"canAdd"</code>", "<code>"min"</code>", "<code>"max"</code>", "<code>"step"</code>", "<code>"options"</code>", "<code>"required"</code>", "<code>"registries"</code>
                ") bind it. A department's or project's policy may only narrow the ones around it."
            </p>
            <div class="grid gap-3 sm:grid-cols-2">
                <label class="text-sm font-medium" on:change=move |ev| scope.set(event_target_value(&ev))>
                    "Scope"
                    <select id=POLICY_SCOPE_ID class=FIELD>
                        {scopes.into_iter().map(|(value, label)| view! { <option value=value>{label}</option> }).collect_view()}
                    </select>
                </label>
                <label class="text-sm font-medium">
                    "Kind"
                    <select id="policy-kind" class=FIELD on:change=move |ev| kind.set(event_target_value(&ev).parse().unwrap_or_default())>
                        <option value=PolicyKind::Trainings.as_str()>"Trainings"</option>
                        <option value=PolicyKind::Distributed.as_str()>"Distributed trainings"</option>
                    </select>
                </label>
            </div>
            <label for="policy-text" class="mt-3 block text-sm font-medium">
                "This scope's policy: " <code>"{\"defaults\": {…}, \"rules\": {…}}"</code> ", shaped like the request's spec"
            </label>
            <textarea
                id="policy-text"
                rows="14"
                spellcheck="false"
                class=format!("{FIELD} font-mono")
                prop:value=move || text.get()
                on:input=move |ev| {
                    text.set(event_target_value(&ev));
                    typed.update(|n| *n += 1);
                }
            >
                // `prop:value` is set in the browser only; the server renders the text itself.
                {policy}
            </textarea>
            <div class="mt-3 flex gap-3">
                <button type="button" class=SECONDARY_BUTTON_CLASS data-testid="policy-preview" on:click=move |_| run(false)>"Preview"</button>
                <button type="button" class=PRIMARY_BUTTON_CLASS data-testid="policy-save" on:click=move |_| run(true)>"Save"</button>
            </div>
            {move || answer.get().map(|(saved, result)| match result {
                Ok(fields) => Either::Left(view! { <Preview saved fields /> }),
                Err(error) => Either::Right(view! { <Refusal error /> }),
            })}
        </section>
    }
}

/// The policy answered so far: a preview or save's fields, or why it was refused.
type Answer = RwSignal<Option<(bool, Result<Vec<PolicyField>, AppError>)>>;

/// Puts the chosen scope's stored policy of the chosen kind in `text` whenever either changes,
/// unless something was typed since the choice.
fn load_stored(
    scope: RwSignal<String>,
    kind: RwSignal<PolicyKind>,
    text: RwSignal<String>,
    typed: RwSignal<u64>,
    answer: Answer,
) {
    Effect::new(move |_| {
        let (s, id) = split(&scope.get());
        let k = kind.get();
        answer.set(None);
        let typed_before = typed.get_untracked();
        leptos::task::spawn_local(async move {
            match get_policy_text(s, id, k).await {
                Ok(own) if typed.get_untracked() == typed_before => text.set(own),
                Ok(_) => {}
                Err(error) => answer.set(Some((false, Err(error)))),
            }
        });
    });
}

#[component]
fn Preview(saved: bool, fields: Vec<PolicyField>) -> impl IntoView {
    view! {
        <p role="status" class="mt-3 text-sm" data-testid="policy-status">
            {if saved { "Saved. The form now shows:" } else { "Valid. With it, the form would show:" }}
        </p>
        <Table testid="policy-preview-table" columns=&PREVIEW_COLUMNS>
            {fields.into_iter().map(|f| view! {
                <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                    <td class="px-4 py-2 font-mono text-xs">{f.path}</td>
                    <td class="px-4 py-2">{f.rule.unwrap_or_default()}</td>
                    <td class="px-4 py-2 font-mono text-xs">{f.default.unwrap_or_default()}</td>
                </tr>
            }).collect_view()}
        </Table>
    }
}
