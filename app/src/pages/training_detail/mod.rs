//! One training: where it is and why, its gang, tasks, pods and events, what was asked for and
//! what Tephra created, and the actions its phase allows. Everything follows the event stream.

mod actions;
mod confirm;
mod edit;
mod events;
mod gpu_chart;
mod header;
mod kept;
mod logs;
mod pods;
mod queue;
mod reason;
mod submitted;
mod tasks;
mod timeline;

use self::{
    events::Events,
    gpu_chart::GpuChart,
    header::Header,
    logs::Logs,
    pods::Pods,
    reason::{Reason, Trouble},
    submitted::{Asked, Submitted},
    tasks::Tasks,
    timeline::Timeline,
};
use crate::api::get_workload;
use crate::components::live::{LiveMessage, subscribe};
use crate::components::loaded::loaded;
use crate::components::style::CARD_CLASS;
use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use tephra_core::model::url::query;
use tephra_core::model::usage::Standing;
use tephra_core::model::workload::{HistoryEntry, Workload, WorkloadEvent};

#[component]
pub fn TrainingDetailPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let detail = Resource::new(move || id.get(), get_workload);
    view! {
        // The training's name replaces this title once it has loaded.
        <Title text="Training" />
        {loaded(detail, |d| {
            let request = d.workload.request();
            let rendered_yaml = d.rendered_yaml.clone();
            view! {
                <Title text=d.workload.name.clone() />
                <div class="flex flex-col gap-6">
                    <LiveDetail workload=d.workload.clone() history=d.history.clone() standing=d.standing.clone()>
                        <Submitted detail=d />
                    </LiveDetail>
                    <Asked request rendered_yaml />
                </div>
            }
        })}
    }
}

/// Everything on the page that moves: the phase, the reason, the gang, tasks, pods, events and
/// the actions, from the event stream. The history is read again when the phase changes (only
/// the server has it).
#[island(lazy)]
fn LiveDetail(
    workload: Workload,
    history: Vec<HistoryEntry>,
    standing: Option<Standing>,
    children: Children,
) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let id = workload.workload_id.clone();
    let workload = RwSignal::new(workload);
    let history = RwSignal::new(history);
    let standing = RwSignal::new(standing);
    let deleted = RwSignal::new(false);
    let reload = {
        let id = id.clone();
        move || {
            let id = id.clone();
            leptos::task::spawn_local(async move {
                match get_workload(id).await {
                    Ok(fresh) => {
                        workload.set(fresh.workload);
                        history.set(fresh.history);
                        standing.set(fresh.standing);
                    }
                    Err(AppError::NotFound(_)) => deleted.set(true),
                    Err(error) => leptos::logging::warn!("cannot reload the training: {error}"),
                }
            })
        }
    };
    subscribe(
        format!(
            "/api/v1/workloads/events{}",
            query(&[("workloadId", Some(&id))])
        ),
        move |message: LiveMessage<WorkloadEvent>| match message {
            LiveMessage::Workload(e) if e.deleted => deleted.set(true),
            LiveMessage::Workload(e) => {
                let phase_changed = workload.with_untracked(|w| w.actual_phase != e.actual_phase);
                workload.update(|w| {
                    w.desired_phase = e.desired_phase;
                    w.actual_phase = e.actual_phase;
                    w.phase_message = e.phase_message.clone();
                    w.updated_at = e.updated_at.clone();
                    w.status = e.status;
                });
                if phase_changed {
                    reload();
                }
            }
            LiveMessage::Resync => reload(),
        },
    );
    let phase = Memo::new(move |_| workload.with(|w| w.actual_phase));
    let log_pod = RwSignal::new(None::<String>);
    view! {
        <div class="flex flex-col gap-6" data-testid="training-detail" data-phase=move || phase.get().as_str()>
            <Header workload deleted />
            <Show when=move || deleted.get()>
                <p role="alert" class="rounded-lg border border-slate-300 bg-slate-100 p-4 text-sm dark:border-slate-700 dark:bg-slate-800">
                    "This training has been deleted: its Job, pods, volumes and services are gone. "
                    <a href="/trainings" class="text-indigo-700 underline dark:text-indigo-300">"Back to the trainings"</a>
                </p>
            </Show>
            <Reason workload standing history />
            <Trouble workload />
            {children()}
            <div class="grid gap-6 lg:grid-cols-3">
                <section aria-labelledby="timeline-heading" class=format!("{CARD_CLASS} lg:col-span-1")>
                    <h2 id="timeline-heading" class="mb-3 text-lg font-semibold">"Timeline"</h2>
                    {move || view! { <Timeline history=history.get() /> }}
                </section>
                <section aria-labelledby="tasks-heading" class=format!("{CARD_CLASS} lg:col-span-2")>
                    <h2 id="tasks-heading" class="mb-3 text-lg font-semibold">"Tasks"</h2>
                    <Tasks workload />
                </section>
            </div>
            <section aria-labelledby="gpu-heading" class=CARD_CLASS>
                <h2 id="gpu-heading" class="mb-3 text-lg font-semibold">"GPU use"</h2>
                <GpuChart workload />
            </section>
            <section aria-labelledby="pods-heading" class=CARD_CLASS>
                <h2 id="pods-heading" class="mb-3 text-lg font-semibold">"Pods"</h2>
                <Pods workload log_pod />
            </section>
            <section aria-labelledby="logs-heading" id="logs" class=CARD_CLASS>
                <h2 id="logs-heading" class="mb-3 text-lg font-semibold">"Logs"</h2>
                <Logs workload selected=log_pod />
            </section>
            <section aria-labelledby="events-heading" class=CARD_CLASS>
                <h2 id="events-heading" class="mb-3 text-lg font-semibold">"Recent events"</h2>
                <Events workload />
            </section>
        </div>
    }
}

/// The column headings of the small tables on this page (tasks, pods).
#[component]
fn Headings(labels: &'static [&'static str]) -> impl IntoView {
    view! {
        <thead class="text-slate-600 dark:text-slate-300">
            <tr>
                {labels
                    .iter()
                    .map(|label| view! { <th scope="col" class="py-1 pr-4 font-medium">{*label}</th> })
                    .collect_view()}
            </tr>
        </thead>
    }
}
