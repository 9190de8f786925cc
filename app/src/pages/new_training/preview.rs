//! The preview: the Volcano Job (and any PVCs and Services) exactly as submitting would create
//! them, rendered by the server from the draft each time it draws the form while it is open.

use crate::components::form::OpButton;
use crate::components::style::SECONDARY_BUTTON_CLASS;
use crate::draft::op::Op;
use crate::error::AppError;
use leptos::either::{Either, EitherOf3};
use leptos::prelude::*;

/// `yaml`: the preview when it is open.
#[component]
pub fn Preview(yaml: Option<Result<String, AppError>>, form: &'static str) -> impl IntoView {
    let open = yaml.is_some();
    let label = if open { "Hide YAML" } else { "Preview YAML" };
    let shown = match yaml {
        None => EitherOf3::A(view! {
            <p class="text-sm text-slate-600 dark:text-slate-300">
                "See the exact Job, volumes and services Tephra will create before you submit."
            </p>
        }),
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
    };
    view! {
        <aside aria-labelledby="preview-heading" class="flex flex-col gap-3">
            <div class="flex items-center justify-between gap-3">
                <h2 id="preview-heading" class="text-lg font-semibold">"Volcano Job preview"</h2>
                <OpButton op=Op::Preview(!open) label=label.to_owned() class=SECONDARY_BUTTON_CLASS
                    form id="preview-toggle".to_owned() testid="preview-toggle" expanded=open />
            </div>
            // Not a live region: the whole Job read out at every pause in typing would drown
            // the messages; it is read where it stands.
            <div id="preview-panel" data-live="">{shown}</div>
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
