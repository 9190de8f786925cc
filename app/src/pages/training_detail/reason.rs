//! Why the training is where it is, and what stands in its way that Tephra cannot clear.

use leptos::prelude::*;
use tephra_core::model::phase::Phase;
use tephra_core::model::usage::Standing;
use tephra_core::model::workload::{HistoryEntry, Workload};

/// Why the training is where it is, in plain words, with the gang and the queue it waits in.
#[component]
pub(super) fn Reason(
    workload: Workload,
    standing: Option<Standing>,
    history: Vec<HistoryEntry>,
) -> impl IntoView {
    let w = workload;
    let waiting = matches!(
        w.actual_phase,
        Phase::Pending | Phase::Creating | Phase::Resuming | Phase::Failed
    );
    let over_quota = standing.as_ref().is_some_and(|s| s.project.over_quota());
    let preemption = w.status.preemption.clone();
    // A suspended training says who suspended it: a person, or the idle GPU rule and why.
    let suspended_by = matches!(w.actual_phase, Phase::Stopping | Phase::Stopped)
        .then(|| super::timeline::last_suspension(&history))
        .flatten();
    if w.phase_message.is_none() && preemption.is_none() && !over_quota && suspended_by.is_none() {
        return None;
    }
    let heading = match w.actual_phase {
        Phase::Pending | Phase::Creating | Phase::Resuming => "Why it is waiting",
        Phase::Failed => "Why it failed",
        _ => "Status",
    };
    let tone = if waiting {
        "border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
    } else {
        "border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
    };
    let gang = w.status.pod_group.as_ref().map(|g| {
        format!(
            "Queue {} · the gang of {} pod(s) must start together · PodGroup {} is {}",
            g.queue, g.min_member, g.name, g.phase
        )
    });
    let gpus = w.gpus;
    // Besides the scheduler's words: where the project and its department stand, while
    // it waits, and while it runs on lent GPUs (it may be preempted).
    let units = standing.filter(|_| waiting || over_quota).map(|s| {
        view! {
            <p class="mt-1 text-sm" data-testid="project-standing">{s.project.describe("Project")}</p>
            <p class="mt-1 text-sm">{s.department.describe("Department")}</p>
        }
    });
    let preempted = preemption.map(|p| {
        let at = p.at.map(|at| format!(", last at {at}")).unwrap_or_default();
        format!(
            "Preempted {} time(s){at}: {}. Volcano takes back GPUs a project uses beyond its quota when another project needs them within its own; the Job restarts when GPUs are free.",
            p.count, p.message
        )
    });
    Some(view! {
        <section aria-labelledby="reason-heading" class=format!("rounded-lg border p-4 {tone}") data-testid="reason">
            <h2 id="reason-heading" class="font-semibold">{heading}</h2>
            {suspended_by.map(|s| view! { <p class="mt-1 text-sm" data-testid="suspended-by">{s}</p> })}
            {w.phase_message.map(|m| view! { <p class="mt-1 text-sm">{m}</p> })}
            {preempted.map(|p| view! { <p class="mt-1 text-sm" data-testid="preemption">{p}</p> })}
            {gang.map(|g| view! { <p class="mt-1 text-sm">{g}</p> })}
            {(gpus > 0.0).then(|| view! {
                <p class="mt-1 text-sm">{format!("Needs {gpus} GPU(s) in total")}</p>
            })}
            {units}
        </section>
    })
}

/// What Tephra cannot fix on its own: an error acting on the cluster (retried with backoff) and a
/// Job changed by hand.
#[component]
pub(super) fn Trouble(workload: Workload) -> impl IntoView {
    let status = workload.status;
    let error = status.reconcile_error.map(|e| {
        let kind = if e.permanent { "needs attention" } else { "retrying" };
        format!(
            "Tephra cannot act on this training in the cluster ({kind}, {} attempt(s), next at {}): {}",
            e.attempts, e.next_attempt_at, e.message
        )
    });
    (error.is_some() || status.drift.is_some()).then(|| view! {
        <section aria-labelledby="trouble-heading" data-testid="trouble"
            class="rounded-lg border border-red-300 bg-red-50 p-4 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
            <h2 id="trouble-heading" class="font-semibold">"Needs attention"</h2>
            {error.map(|e| view! { <p class="mt-1 text-sm">{e}</p> })}
            {status.drift.map(|d| view! { <p class="mt-1 text-sm">{d}</p> })}
        </section>
    })
}
