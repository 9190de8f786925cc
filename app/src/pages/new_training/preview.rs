//! The preview: the Volcano Job (and any PVCs and Services) exactly as submitting would create
//! them, rendered by the server from the draft.

use crate::api::preview_training;
use crate::components::form::use_form;
use crate::components::style::SECONDARY_BUTTON_CLASS;
use crate::draft::Draft;
use crate::error::AppError;
use leptos::either::{Either, EitherOf3};
use leptos::prelude::*;
use std::time::Duration;

/// How long the preview waits after the last keystroke before asking the server again.
const PREVIEW_DEBOUNCE: Duration = Duration::from_millis(400);

/// The Volcano Job (and any PVCs and Services) exactly as submitting would create them, rendered
/// by the server. Once opened it follows the form.
#[component]
pub fn Preview() -> impl IntoView {
    let form = use_form();
    let open = RwSignal::new(false);
    let preview = Action::new(|draft: &Draft| preview_training(draft.clone()));
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let draft = form.draft.get();
        if !open.get() {
            return;
        }
        let mine = generation.get_value() + 1;
        generation.set_value(mine);
        set_timeout(
            move || {
                if generation.get_value() == mine {
                    preview.dispatch(draft);
                }
            },
            PREVIEW_DEBOUNCE,
        );
    });
    view! {
        <aside aria-labelledby="preview-heading" class="flex flex-col gap-3">
            <div class="flex items-center justify-between gap-3">
                <h2 id="preview-heading" class="text-lg font-semibold">"Volcano Job preview"</h2>
                <button
                    type="button"
                    class=SECONDARY_BUTTON_CLASS
                    aria-expanded=move || open.get().to_string()
                    aria-controls="yaml-preview"
                    data-testid="preview-toggle"
                    on:click=move |_| open.update(|o| *o = !*o)
                >
                    {move || if open.get() { "Hide YAML" } else { "Preview YAML" }}
                </button>
            </div>
            <Show
                when=move || open.get()
                fallback=|| view! {
                    <p class="text-sm text-slate-600 dark:text-slate-300">
                        "See the exact Job, volumes and services Tephra will create before you submit."
                    </p>
                }
            >
                <div id="yaml-preview" aria-live="polite" aria-busy=move || preview.pending().get().to_string()>
                    {move || match preview.value().get() {
                        None => EitherOf3::A(view! { <p class="text-sm text-slate-500">"Rendering…"</p> }),
                        Some(Ok(yaml)) => EitherOf3::B(view! {
                            <pre
                                class="max-h-[75vh] overflow-auto rounded-lg border border-slate-200 bg-white p-3 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-800 dark:bg-slate-900"
                                data-testid="yaml-preview"
                                tabindex="0"
                            >
                                {yaml}
                            </pre>
                        }),
                        Some(Err(error)) => EitherOf3::C(preview_error(&error)),
                    }}
                </div>
            </Show>
        </aside>
    }
}

/// Why there is no preview: the request's problems by field, or the error itself.
fn preview_error(error: &AppError) -> impl IntoView + use<> {
    let fields = error.field_errors();
    view! {
        <div class="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100" data-testid="yaml-preview-error">
            <p class="font-semibold">"Nothing to preview until the form is valid"</p>
            {
                if fields.is_empty() {
                    Either::Left(view! { <p>{error.to_string()}</p> })
                } else {
                    Either::Right(view! {
                        <ul class="mt-1 list-disc pl-5">
                            {fields.into_iter().map(|e| view! {
                                <li><code>{e.path}</code>": "{e.message}</li>
                            }).collect_view()}
                        </ul>
                    })
                }
            }
        </div>
    }
}
