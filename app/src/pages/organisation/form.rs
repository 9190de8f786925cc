//! What the organisation page's forms share: the classes of their fields and table rows, the
//! form that posts to a server function, and how its answer is shown.
//!
//! Each form is a plain HTML form: without scripts the browser posts it and comes back to the
//! page. With them, [`super::follow`] posts it in place, shows the answer in the form's slot and
//! reads the tables again.

use leptos::prelude::*;

pub(super) const FIELD: &str = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-950";
pub(super) const LABEL: &str = "text-sm font-medium";
pub(super) const ROW: &str = "border-b border-slate-100 last:border-0 dark:border-slate-800";
pub(super) const CELL: &str = "px-4 py-2";
/// A refusal's box, drawn by the policy editor ([`super::Refusal`]) and for a form's answer.
pub(super) const REFUSAL: &str = "mt-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200";
pub(super) const REFUSAL_LIST: &str = "list-disc pl-5";
/// What a form says when the server did what it asked; only the browser says it.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub(super) const DONE: &str = "mt-3 text-sm text-emerald-800 dark:text-emerald-300";

/// A form posting to the server function at `action` (its `PATH`). Its answer goes to the
/// element `outcome` ([`Outcome`]): `done` when it succeeded, the refusal otherwise.
#[component]
pub(super) fn ServerForm(
    action: &'static str,
    outcome: &'static str,
    done: &'static str,
    #[prop(optional)] testid: &'static str,
    #[prop(optional)] class: &'static str,
    children: Children,
) -> impl IntoView {
    view! {
        <form
            method="post"
            action=action
            class=class
            data-testid=(!testid.is_empty()).then_some(testid)
            data-outcome=outcome
            data-done=done
        >
            {children()}
        </form>
    }
}

/// Where the answer to the forms naming `id` is shown.
#[component]
pub(super) fn Outcome(id: &'static str) -> impl IntoView {
    view! { <div id=id aria-live="polite"></div> }
}
