//! "Will it fit now?": what a submit would meet (the project's quota and limits, the largest
//! node, free GPUs in its pools), asked of the server as the form changes, from the same
//! computation as the API's `POST .../fit`.

use crate::api::fit_training;
use crate::components::form::use_form;
use crate::draft::Draft;
use leptos::either::EitherOf3;
use leptos::prelude::*;
use std::time::Duration;
use tephra_core::model::fit::Verdict;

/// How long the answer waits after the last keystroke before asking the server again.
const FIT_DEBOUNCE: Duration = Duration::from_millis(500);

const PANEL_CLASS: &str = "rounded-lg border border-slate-200 bg-white p-4 text-sm dark:border-slate-800 dark:bg-slate-900";

fn headline(verdict: Verdict) -> (&'static str, &'static str) {
    match verdict {
        Verdict::WithinQuota => (
            "Fits now",
            "font-semibold text-emerald-800 dark:text-emerald-300",
        ),
        Verdict::OverQuota => (
            "Runs over quota: on idle GPUs, and may be preempted",
            "font-semibold text-amber-800 dark:text-amber-300",
        ),
        Verdict::Waiting => (
            "Waits for GPUs",
            "font-semibold text-amber-800 dark:text-amber-300",
        ),
        Verdict::Queued => (
            "Queued: starts when its project's work frees room",
            "font-semibold text-amber-800 dark:text-amber-300",
        ),
        Verdict::Refused => (
            "Can never run as asked",
            "font-semibold text-red-700 dark:text-red-300",
        ),
    }
}

#[component]
pub fn FitNow() -> impl IntoView {
    let form = use_form();
    let fit = Action::new(|draft: &Draft| fit_training(draft.clone()));
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let draft = form.draft.get();
        let mine = generation.get_value() + 1;
        generation.set_value(mine);
        set_timeout(
            move || {
                if generation.get_value() == mine {
                    fit.dispatch(draft);
                }
            },
            FIT_DEBOUNCE,
        );
    });
    view! {
        <section aria-labelledby="fit-heading" class=PANEL_CLASS data-testid="fit">
            <h2 id="fit-heading" class="text-lg font-semibold">"Will it fit now?"</h2>
            <div aria-live="polite" data-testid="fit-verdict" class="mt-1 flex flex-col gap-1">
                {move || match fit.value().get() {
                    None => EitherOf3::A(view! { <p class="text-slate-600 dark:text-slate-300">"Checking…"</p> }),
                    Some(Ok(fit)) => {
                        let (title, class) = headline(fit.verdict);
                        EitherOf3::B(view! {
                            <p class=class>{title}</p>
                            <p>{fit.message}</p>
                            <p class="text-slate-600 dark:text-slate-300">{fit.numbers}</p>
                            <ul class="list-disc pl-5">
                                {fit.details.into_iter().map(|(field, message)| view! {
                                    <li><code>{field}</code>": "{message}</li>
                                }).collect_view()}
                            </ul>
                        })
                    }
                    Some(Err(error)) => {
                        let fields = error.field_errors().len();
                        let text = if fields > 0 {
                            format!("Answered once the form is valid ({fields} field(s) to fix).")
                        } else {
                            error.to_string()
                        };
                        EitherOf3::C(view! { <p class="text-slate-600 dark:text-slate-300">{text}</p> })
                    }
                }}
            </div>
        </section>
    }
}
