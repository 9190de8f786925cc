//! What the page says once as it loads, beside what moves: how to fix a failure, where a waiting
//! training stands and when it can start, its time limit and waits; and below the live parts,
//! what was asked for and what Tephra created (the request as JSON, the Volcano Job as YAML).

use crate::components::style::{CARD_CLASS, PRIMARY_BUTTON_CLASS};
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::diagnosis::Fix;
use tephra_core::model::waits::Wait;
use tephra_core::model::workload::WorkloadDetail;

/// How to fix it, its place and start, its time limit and how long it waited to run, as of the
/// page's loading: rendered on the server (inside the live island, after the reason) and never
/// shipped to the browser as data.
#[component]
pub(super) fn Submitted(detail: WorkloadDetail) -> impl IntoView {
    let waited = (!detail.waits.is_empty()).then(|| {
        let said: Vec<String> = detail.waits.iter().map(Wait::said).collect();
        view! {
            <section aria-labelledby="waited-heading" class=CARD_CLASS data-testid="waited">
                <h2 id="waited-heading" class="mb-3 text-lg font-semibold">"Time waited to run"</h2>
                <p class="text-sm text-slate-700 dark:text-slate-300">
                    {format!("Waited to run: {}.", said.join("; "))}
                </p>
            </section>
        }
    });
    let project = detail.workload.project_name.clone();
    let queue = detail
        .queue
        .map(|standing| view! { <super::queue::QueuePlace standing project /> });
    let limit = detail.time_limit.map(|countdown| {
        view! {
            <section aria-labelledby="limit-heading" class=CARD_CLASS data-testid="time-limit">
                <h2 id="limit-heading" class="mb-3 text-lg font-semibold">"Time limit"</h2>
                <p class="text-sm text-slate-700 dark:text-slate-300">
                    {format!("When this page was loaded: it {countdown}. Its pods get their grace period to save a checkpoint; resume it to run again.")}
                </p>
            </section>
        }
    });
    let fix = detail.workload.status.fix.as_ref().map(|fix| {
        let href = format!(
            "/trainings/new{}",
            tephra_core::model::url::query(&[
                ("from", Some(&detail.workload.workload_id)),
                ("fix", Some(&fix.to_string())),
            ])
        );
        let what = match fix {
            Fix::Memory { container, mib } => {
                format!("Give container {container} {mib} MiB of memory and submit it again.")
            }
            Fix::Image { image } => {
                format!("Correct the image {image:?} (or its pull secret) and submit it again.")
            }
        };
        view! {
            <section aria-labelledby="fix-heading" class=CARD_CLASS data-testid="fix">
                <h2 id="fix-heading" class="mb-3 text-lg font-semibold">"How to fix it"</h2>
                <p class="text-sm text-slate-700 dark:text-slate-300">{what}</p>
                <a href=href class=format!("mt-3 inline-block {PRIMARY_BUTTON_CLASS}")>"Edit and resubmit"</a>
            </section>
        }
    });
    let kept = view! { <super::kept::KeptLogs logs=detail.kept_logs /> };
    view! {
        {fix}
        {kept}
        {queue}
        {limit}
        {waited}
    }
}

/// What was asked for and what Tephra created: fixed once submitted, rendered on the server
/// below the live parts of the page.
#[component]
pub(super) fn Asked(
    request: serde_json::Value,
    rendered_yaml: Result<String, String>,
) -> impl IntoView {
    view! {
        <section aria-labelledby="spec-heading" class=CARD_CLASS>
            <h2 id="spec-heading" class="mb-3 text-lg font-semibold">"What was asked for"</h2>
            <pre class="max-h-96 overflow-auto rounded-md bg-slate-100 p-3 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 dark:bg-slate-950" data-testid="spec" tabindex="0" aria-label="The request as submitted (JSON)">
                {serde_json::to_string_pretty(&request).unwrap_or_default()}
            </pre>
        </section>
        <section aria-labelledby="yaml-heading" class=CARD_CLASS>
            <h2 id="yaml-heading" class="mb-3 text-lg font-semibold">"Volcano Job (YAML)"</h2>
            {match rendered_yaml {
                Ok(yaml) => Either::Left(view! {
                    <pre class="max-h-[32rem] overflow-auto rounded-md bg-slate-100 p-3 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 dark:bg-slate-950" data-testid="rendered-yaml" tabindex="0" aria-label="The Volcano Job and its objects (YAML)">
                        {yaml}
                    </pre>
                }),
                Err(why) => Either::Right(view! { <p class="text-sm text-red-800 dark:text-red-300">{why}</p> }),
            }}
        </section>
    }
}
