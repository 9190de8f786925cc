//! The dialog that asks before an action is taken.

use crate::components::style::{DANGER_BUTTON_CLASS, PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use leptos::prelude::*;
use tephra_core::model::action::Action as Verb;

/// The dialog's question, what the action does, and its button.
fn wording(action: Verb) -> (&'static str, &'static str, &'static str) {
    match action {
        Verb::Suspend => (
            "Suspend this training?",
            "Its Job and pods are deleted; volumes and services stay. Resume creates the Job again from the same request.",
            "Suspend",
        ),
        Verb::Resume => (
            "Resume this training?",
            "Its Job is created again from the stored request, and its pods start from the beginning.",
            "Resume",
        ),
        Verb::Delete => (
            "Delete this training?",
            "Its Job, pods, volumes and services are deleted. This cannot be undone; the history stays.",
            "Delete",
        ),
    }
}

/// A modal that asks before an action; Escape or "Cancel" closes it, focus starts on "Cancel".
#[component]
pub(super) fn Confirm(
    confirming: RwSignal<Option<Verb>>,
    name: String,
    on_confirm: impl Fn(Verb) + Clone + Send + Sync + 'static,
) -> impl IntoView {
    let cancel_ref = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if confirming.get().is_some()
            && let Some(button) = cancel_ref.get()
        {
            let _ = button.focus();
        }
    });
    view! {
        <Show when=move || confirming.get().is_some()>
            {
                let name = name.clone();
                let on_confirm = on_confirm.clone();
                move || {
                    let action = confirming.get()?;
                    let (title, text, label) = wording(action);
                    let on_confirm = on_confirm.clone();
                    Some(view! {
                        <div class="fixed inset-0 z-40 flex items-center justify-center bg-slate-900/50 p-4">
                            <div
                                role="alertdialog"
                                aria-modal="true"
                                aria-labelledby="confirm-title"
                                aria-describedby="confirm-text"
                                class="w-full max-w-md rounded-lg bg-white p-6 shadow-xl dark:bg-slate-900"
                                on:keydown=move |ev| {
                                    if ev.key() == "Escape" {
                                        confirming.set(None);
                                    }
                                }
                            >
                                <h2 id="confirm-title" class="text-lg font-semibold">{title}</h2>
                                <p id="confirm-text" class="mt-2 text-sm text-slate-700 dark:text-slate-300">
                                    <span class="font-medium">{name.clone()}</span>": "{text}
                                </p>
                                <div class="mt-6 flex justify-end gap-2">
                                    <button
                                        type="button"
                                        node_ref=cancel_ref
                                        class=SECONDARY_BUTTON_CLASS
                                        on:click=move |_| confirming.set(None)
                                    >
                                        "Cancel"
                                    </button>
                                    <button
                                        type="button"
                                        data-confirm=action.verb()
                                        class=if action == Verb::Delete { DANGER_BUTTON_CLASS } else { PRIMARY_BUTTON_CLASS }
                                        on:click=move |_| {
                                            confirming.set(None);
                                            on_confirm(action);
                                        }
                                    >
                                        {label}
                                    </button>
                                </div>
                            </div>
                        </div>
                    })
                }
            }
        </Show>
    }
}
