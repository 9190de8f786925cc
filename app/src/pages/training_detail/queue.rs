//! Where a waiting training stands in the order the scheduler considers waiting gangs, and what
//! is ahead of it: as of the page's loading, rendered on the server.

use crate::components::style::{CARD_CLASS, LINK_CLASS};
use leptos::prelude::*;
use tephra_core::model::eta::{EtaBound, StartEstimate};
use tephra_core::model::queue::{AheadOf, QueueStanding};

/// GPUs in words: "1 GPU", "2 GPUs", "0.5 GPUs".
fn gpus(n: f64) -> String {
    if n == 1.0 {
        "1 GPU".to_owned()
    } else {
        format!("{} GPUs", (n * 100.0).round() / 100.0)
    }
}

fn ahead_item(a: AheadOf) -> impl IntoView {
    view! {
        <li>
            <a href=format!("/trainings/{}", a.workload_id) class=LINK_CLASS>{a.name}</a>
            {format!(" in {}, {}, by {}", a.project_name, gpus(a.gpus), a.created_by)}
        </li>
    }
}

#[component]
pub(super) fn QueuePlace(standing: QueueStanding, project: String) -> impl IntoView {
    let p = standing.position;
    let summary = format!(
        "When this page was loaded: {} of {} waiting in project {project}; {} of {} waiting for \
         the same nodes, in every project.",
        tephra_core::model::queue::ordinal(p.in_project),
        p.project_waiting,
        tephra_core::model::queue::ordinal(p.in_pools),
        p.pools_waiting,
    );
    let named = standing.ahead.len();
    let others = (standing.others_ahead > 0).then(|| {
        let more = if named > 0 { " more" } else { "" };
        format!(
            "{}{more} ahead of it in projects you cannot see, or further ahead.",
            standing.others_ahead
        )
    });
    let list = (named > 0).then(|| {
        view! {
            <p class="mt-2 text-sm">"First ahead of it for the same nodes:"</p>
            <ul class="mt-1 list-disc pl-5 text-sm" data-testid="ahead">
                {standing.ahead.into_iter().map(ahead_item).collect_view()}
            </ul>
        }
    });
    let eta = standing.eta.map(|eta| view! { <Estimate eta /> });
    view! {
        {eta}
        <section aria-labelledby="queue-heading" class=CARD_CLASS data-testid="queue-place">
            <h2 id="queue-heading" class="mb-3 text-lg font-semibold">"Place in the queue"</h2>
            <p class="text-sm text-slate-700 dark:text-slate-300">{summary}</p>
            {list}
            {others.map(|text| view! { <p class="mt-2 text-sm text-slate-700 dark:text-slate-300">{text}</p> })}
            <p class="mt-2 text-xs text-slate-600 dark:text-slate-400">
                "The scheduler considers higher priorities first, then the project furthest below its quota, then the oldest; a gang that does not fit the free GPUs is passed over, so one behind may start first."
            </p>
        </section>
    }
}

fn items(lines: Vec<String>, testid: &'static str) -> impl IntoView {
    view! {
        <ul class="mt-1 list-disc pl-5 text-sm" data-testid=testid>
            {lines.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
        </ul>
    }
}

/// When it can start, with what the estimate rests on and what would make it sooner (or able to
/// start at all).
#[component]
fn Estimate(eta: StartEstimate) -> impl IntoView {
    let grounds = (!eta.rests_on.is_empty() && eta.bound != EtaBound::Never).then(|| {
        view! {
            <p class="mt-2 text-sm">"It rests on:"</p>
            {items(eta.rests_on, "eta-grounds")}
        }
    });
    // A gang that can never start as asked is not made "sooner" by a change: it is made able.
    let heading = if eta.bound == EtaBound::Never {
        "What would let it start:"
    } else {
        "What would make it start sooner:"
    };
    let sooner = (!eta.sooner.is_empty()).then(|| {
        view! {
            <p class="mt-2 text-sm">{heading}</p>
            {items(eta.sooner, "eta-sooner")}
        }
    });
    view! {
        <section aria-labelledby="eta-heading" class=CARD_CLASS data-testid="eta" data-bound=format!("{:?}", eta.bound).to_lowercase()>
            <h2 id="eta-heading" class="mb-3 text-lg font-semibold">"When it can start"</h2>
            <p class="text-sm font-medium" data-testid="eta-summary">
                {format!("When this page was loaded: {}.", eta.summary)}
            </p>
            {grounds}
            {sooner}
            <p class="mt-2 text-xs text-slate-600 dark:text-slate-400">
                "Estimated from Tephra's own workloads: their GPUs, their time limits and the gangs ahead. It holds if nothing new arrives ahead of it and the nodes stay."
            </p>
        </section>
    }
}
