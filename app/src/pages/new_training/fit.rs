//! "Will it fit now?": what a submit would meet (the project's quota and limits, the largest
//! node, free GPUs in its pools), answered by the server each time it draws the form, from the
//! same computation as the API's `POST .../fit`.

use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::fit::{FitShown, Verdict};

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

/// What the server answered for the draft as it was last drawn.
#[component]
pub fn FitNow(fit: Result<FitShown, AppError>) -> impl IntoView {
    let verdict = match fit {
        Ok(fit) => {
            let (title, class) = headline(fit.verdict);
            Either::Left(view! {
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
        Err(error) => {
            let fields = error.field_errors().len();
            let text = if fields > 0 {
                format!("Answered once the form is valid ({fields} field(s) to fix).")
            } else {
                error.to_string()
            };
            Either::Right(view! { <p class="text-slate-600 dark:text-slate-300">{text}</p> })
        }
    };
    view! {
        <section id="fit" aria-labelledby="fit-heading" class=PANEL_CLASS data-testid="fit">
            <h2 id="fit-heading" class="text-lg font-semibold">"Will it fit now?"</h2>
            <div id="fit-verdict" aria-live="polite" data-testid="fit-verdict" class="mt-1 flex flex-col gap-1" data-live="">
                {verdict}
            </div>
        </section>
    }
}
