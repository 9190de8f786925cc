//! One training: where it is and why, its gang, tasks, pods and events, what was asked for and
//! what Tephra created, and the actions its phase allows. Everything follows the event stream:
//! the phase and actions in place, the rest read again from the server as HTML.

mod actions;
mod confirm;
mod edit;
mod events;
mod gpu_chart;
mod header;
mod kept;
mod logs;
mod parts;
mod pods;
mod queue;
mod reason;
mod submitted;
mod tasks;
mod timeline;

use self::{header::Header, logs::Logs, parts::Parts, submitted::Asked};
use crate::api::get_workload;
use crate::components::live::{LiveMessage, subscribe};
use crate::components::loaded::loaded;
use crate::components::style::CARD_CLASS;
use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use tephra_core::model::url::query;
use tephra_core::model::workload::{Workload, WorkloadEvent};

/// How long a training's changes gather before its parts are read again.
#[cfg(feature = "hydrate")]
const READ_AFTER: std::time::Duration = std::time::Duration::from_millis(500);
/// How often the pods' ages are brought up to date.
#[cfg(feature = "hydrate")]
const AGE_EVERY: std::time::Duration = std::time::Duration::from_secs(15);

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
                    <LiveDetail workload=d.workload.clone()>
                        <Parts detail=d />
                    </LiveDetail>
                    <Asked request rendered_yaml />
                </div>
            }
        })}
    }
}

/// What acts on the page: the phase and the actions, which follow the event stream, and the
/// log reader. The parts between them (`children`, [`Parts`]) are the server's, read again as
/// HTML after the training changes.
#[island(lazy)]
fn LiveDetail(workload: Workload, children: Children) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let id = workload.workload_id.clone();
    #[cfg(feature = "hydrate")]
    if workload.gpus > 0.0 {
        gpu_chart::keep_reading(&id);
    }
    let workload = RwSignal::new(workload);
    let deleted = RwSignal::new(false);
    let log_pod = RwSignal::new(None::<String>);
    #[cfg(feature = "hydrate")]
    let parts = browser::follow_parts(log_pod);
    let reload = {
        let id = id.clone();
        move || {
            let id = id.clone();
            leptos::task::spawn_local(async move {
                match get_workload(id).await {
                    Ok(fresh) => workload.set(fresh.workload),
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
        move |message: LiveMessage<WorkloadEvent>| {
            match message {
                LiveMessage::Workload(e) if e.deleted => deleted.set(true),
                LiveMessage::Workload(e) => workload.update(|w| {
                    w.desired_phase = e.desired_phase;
                    w.actual_phase = e.actual_phase;
                    w.phase_message = e.phase_message.clone();
                    w.updated_at = e.updated_at.clone();
                    w.status = e.status;
                }),
                LiveMessage::Resync => reload(),
            }
            // A deleted training's page has no parts to read.
            #[cfg(feature = "hydrate")]
            if !deleted.get_untracked() {
                parts.changed();
            }
        },
    );
    let phase = Memo::new(move |_| workload.with(|w| w.actual_phase));
    view! {
        <div class="flex flex-col gap-6" data-testid="training-detail" data-phase=move || phase.get().as_str()>
            <Header workload deleted />
            <Show when=move || deleted.get()>
                <p role="alert" class="rounded-lg border border-slate-300 bg-slate-100 p-4 text-sm dark:border-slate-700 dark:bg-slate-800">
                    "This training has been deleted: its Job, pods, volumes and services are gone. "
                    <a href="/trainings" class="text-indigo-700 underline dark:text-indigo-300">"Back to the trainings"</a>
                </p>
            </Show>
            {children()}
            <section aria-labelledby="logs-heading" id="logs" class=CARD_CLASS>
                <h2 id="logs-heading" class="mb-3 text-lg font-semibold">"Logs"</h2>
                <Logs workload selected=log_pod />
            </section>
        </div>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::parts::{PART_IDS, POD_ID};
    use super::{AGE_EVERY, READ_AFTER};
    use crate::components::fragment::Rereader;
    use crate::components::relative_time::show_ages;
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;

    /// Keeps the pods' ages current, reads the parts again when told of a change, and makes a
    /// pod's "Logs" link choose that pod in the reader.
    pub(super) fn follow_parts(log_pod: RwSignal<Option<String>>) -> Rereader {
        let ages = || show_ages(POD_ID);
        ages();
        if let Ok(handle) = set_interval_with_handle(ages, AGE_EVERY) {
            on_cleanup(move || handle.clear());
        }
        // On the window, as the links are put in place again with every read.
        let links = window_event_listener(leptos::ev::click, move |e| {
            let pod = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|el| el.closest("[data-log-pod]").ok().flatten())
                .and_then(|el| el.get_attribute("data-log-pod"));
            if let Some(pod) = pod {
                log_pod.set(Some(pod));
            }
        });
        on_cleanup(move || links.remove());
        Rereader::new(PART_IDS, READ_AFTER, ages)
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
