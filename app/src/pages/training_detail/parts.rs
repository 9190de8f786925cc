//! What the server renders of the page's moving parts: why the training is where it is, its
//! timeline, tasks, GPU use, pods and events. The page's island reads them again as HTML when
//! the training changes ([`PART_IDS`]), so the browser carries no code to draw them.

use super::{
    events::Events,
    gpu_chart::GpuChart,
    pods::Pods,
    reason::{Reason, Trouble},
    submitted::Submitted,
    tasks::Tasks,
    timeline::Timeline,
};
use crate::components::style::CARD_CLASS;
use leptos::prelude::*;
use tephra_core::model::workload::WorkloadDetail;

/// The elements read again, by id.
#[cfg(feature = "hydrate")]
pub(super) const PART_IDS: &[&str] = &[
    "training-why",
    "training-timeline",
    "training-tasks",
    POD_ID,
    "training-events",
];
/// The pods' table, whose ages the island keeps current.
pub(super) const POD_ID: &str = "training-pods";

#[component]
pub(super) fn Parts(detail: WorkloadDetail) -> impl IntoView {
    let w = detail.workload.clone();
    let uses_gpus = w.gpus > 0.0;
    let (standing, history) = (detail.standing.clone(), detail.history.clone());
    view! {
        // A column of its own: the island puts its children in an element of its own.
        <div class="flex flex-col gap-6">
        // `contents`: the parts sit in the column as if the wrapper were not there.
        <div id="training-why" class="contents">
            <Reason workload=w.clone() standing history=history.clone() />
            <Trouble workload=w.clone() />
        </div>
        <Submitted detail />
        <div class="grid gap-6 lg:grid-cols-3">
            <section aria-labelledby="timeline-heading" class=format!("{CARD_CLASS} lg:col-span-1")>
                <h2 id="timeline-heading" class="mb-3 text-lg font-semibold">"Timeline"</h2>
                <div id="training-timeline"><Timeline history /></div>
            </section>
            <section aria-labelledby="tasks-heading" class=format!("{CARD_CLASS} lg:col-span-2")>
                <h2 id="tasks-heading" class="mb-3 text-lg font-semibold">"Tasks"</h2>
                <div id="training-tasks"><Tasks workload=w.clone() /></div>
            </section>
        </div>
        <section aria-labelledby="gpu-heading" class=CARD_CLASS>
            <h2 id="gpu-heading" class="mb-3 text-lg font-semibold">"GPU use"</h2>
            <GpuChart uses_gpus />
        </section>
        <section aria-labelledby="pods-heading" class=CARD_CLASS>
            <h2 id="pods-heading" class="mb-3 text-lg font-semibold">"Pods"</h2>
            <div id=POD_ID><Pods workload=w.clone() /></div>
        </section>
        <section aria-labelledby="events-heading" class=CARD_CLASS>
            <h2 id="events-heading" class="mb-3 text-lg font-semibold">"Recent events"</h2>
            <div id="training-events"><Events workload=w /></div>
        </section>
        </div>
    }
}
