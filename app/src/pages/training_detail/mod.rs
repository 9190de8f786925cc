//! One training: where it is and why, its gang, tasks, pods and events, what was asked for and
//! what Tephra created, and the actions its phase allows. Everything follows the event stream.

use crate::api::{act_on_workload, get_workload};
use crate::components::live::{LiveMessage, subscribe};
use crate::components::loaded::loaded;
use crate::components::toast::use_toasts;
use crate::components::{phase_badge::PhaseBadge, relative_time::Age};
use crate::error::AppError;
use crate::model::action::Action as Verb;
use crate::model::phase::Phase;
use crate::model::url::query;
use crate::model::workload::{HistoryEntry, Workload, WorkloadDetail, WorkloadEvent};
use crate::pages::trainings::{PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

const CARD_CLASS: &str =
    "rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900";
const DANGER_BUTTON_CLASS: &str = "inline-flex items-center rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-500 disabled:cursor-not-allowed disabled:opacity-50";

#[component]
pub fn TrainingDetailPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let detail = Resource::new(move || id.get(), get_workload);
    view! {
        // The training's name replaces this title once it has loaded.
        <Title text="Training" />
        {loaded(detail, |d| view! {
            <Title text=d.workload.name.clone() />
            <LiveDetail workload=d.workload.clone() history=d.history.clone()>
                <Submitted detail=d />
            </LiveDetail>
        })}
    }
}

/// What was asked for and what Tephra created: fixed once submitted, so rendered on the server
/// and never shipped to the browser as data.
#[component]
fn Submitted(detail: WorkloadDetail) -> impl IntoView {
    view! {
        <section aria-labelledby="spec-heading" class=CARD_CLASS>
            <h2 id="spec-heading" class="mb-3 text-lg font-semibold">"What was asked for"</h2>
            <pre class="max-h-96 overflow-auto rounded-md bg-slate-100 p-3 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 dark:bg-slate-950" data-testid="spec" tabindex="0" aria-label="The request as submitted (JSON)">
                {serde_json::to_string_pretty(&detail.workload.request()).unwrap_or_default()}
            </pre>
        </section>
        <section aria-labelledby="yaml-heading" class=CARD_CLASS>
            <h2 id="yaml-heading" class="mb-3 text-lg font-semibold">"Volcano Job (YAML)"</h2>
            {match detail.rendered_yaml {
                Ok(yaml) => view! {
                    <pre class="max-h-[32rem] overflow-auto rounded-md bg-slate-100 p-3 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 dark:bg-slate-950" data-testid="rendered-yaml" tabindex="0" aria-label="The Volcano Job and its objects (YAML)">
                        {yaml}
                    </pre>
                }
                    .into_any(),
                Err(why) => view! { <p class="text-sm text-red-800 dark:text-red-300">{why}</p> }.into_any(),
            }}
        </section>
    }
}

/// Everything on the page that moves: the phase, the reason, the gang, tasks, pods, events and
/// the actions, from the event stream. The history is read again when the phase changes (only
/// the server has it).
#[island(lazy)]
fn LiveDetail(workload: Workload, history: Vec<HistoryEntry>, children: Children) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let id = workload.workload_id.clone();
    let workload = RwSignal::new(workload);
    let history = RwSignal::new(history);
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
    view! {
        <div class="flex flex-col gap-6" data-testid="training-detail" data-phase=move || phase.get().as_str()>
            <Header workload deleted />
            <Show when=move || deleted.get()>
                <p role="alert" class="rounded-lg border border-slate-300 bg-slate-100 p-4 text-sm dark:border-slate-700 dark:bg-slate-800">
                    "This training has been deleted: its Job, pods, volumes and services are gone. "
                    <a href="/trainings" class="text-indigo-700 underline dark:text-indigo-300">"Back to the trainings"</a>
                </p>
            </Show>
            <Reason workload />
            <Trouble workload />
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
            <section aria-labelledby="pods-heading" class=CARD_CLASS>
                <h2 id="pods-heading" class="mb-3 text-lg font-semibold">"Pods"</h2>
                <Pods workload />
            </section>
            <section aria-labelledby="events-heading" class=CARD_CLASS>
                <h2 id="events-heading" class="mb-3 text-lg font-semibold">"Recent events"</h2>
                <Events workload />
            </section>
            {children()}
        </div>
    }
}

#[component]
fn Header(workload: RwSignal<Workload>, deleted: RwSignal<bool>) -> impl IntoView {
    let w = workload.get_untracked();
    view! {
        <div class="flex flex-wrap items-start justify-between gap-4">
            <div>
                <p class="text-sm text-slate-600 dark:text-slate-300">
                    <a href="/trainings" class="hover:underline">"Trainings"</a>
                    " / " {w.project_name.clone()}
                </p>
                <h1 class="flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
                    <span data-testid="training-name">{w.name.clone()}</span>
                    <span data-testid="phase">
                        {move || view! { <PhaseBadge phase=workload.with(|w| w.actual_phase) /> }}
                    </span>
                </h1>
                <p class="mt-1 text-sm text-slate-600 dark:text-slate-300">
                    {if w.kind == "distributed" { "Distributed training" } else { "Training" }}
                    " by " {w.created_by.clone()} ", created "
                    <Age rfc3339=w.created_at.clone() />
                    " ago"
                    {move || {
                        let (desired, actual) = workload.with(|w| (w.desired_phase, w.actual_phase));
                        (desired != actual && !actual.is_finished())
                            .then(|| format!(" · asked to be {}", desired.as_str()))
                    }}
                </p>
            </div>
            <Actions workload deleted />
        </div>
    }
    .into_any()
}

/// What Tephra cannot fix on its own: an error acting on the cluster (retried with backoff) and a
/// Job changed by hand.
#[component]
fn Trouble(workload: RwSignal<Workload>) -> impl IntoView {
    view! {
        {move || {
            let status = workload.with(|w| w.status.clone());
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
        }}
    }
    .into_any()
}

/// Why the training is where it is, in plain words, with the gang and the queue it waits in.
#[component]
fn Reason(workload: RwSignal<Workload>) -> impl IntoView {
    let waiting = move || {
        workload.with(|w| {
            matches!(
                w.actual_phase,
                Phase::Pending | Phase::Creating | Phase::Failed
            )
        })
    };
    view! {
        {move || {
            let w = workload.get();
            let message = w.phase_message.clone()?;
            let heading = match w.actual_phase {
                Phase::Pending | Phase::Creating => "Why it is waiting",
                Phase::Failed => "Why it failed",
                _ => "Status",
            };
            let tone = if waiting() {
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
            let gpus = w.gpus();
            Some(view! {
                <section aria-labelledby="reason-heading" class=format!("rounded-lg border p-4 {tone}") data-testid="reason">
                    <h2 id="reason-heading" class="font-semibold">{heading}</h2>
                    <p class="mt-1 text-sm">{message}</p>
                    {gang.map(|g| view! { <p class="mt-1 text-sm">{g}</p> })}
                    {(gpus > 0.0).then(|| view! {
                        <p class="mt-1 text-sm">{format!("Needs {gpus} GPU(s) in total")}</p>
                    })}
                </section>
            })
        }}
    }
    .into_any()
}

fn describe(entry: &HistoryEntry) -> String {
    let who = entry
        .actor
        .clone()
        .unwrap_or_else(|| "the cluster".to_owned());
    match entry.action.as_str() {
        // The badge beside it names the phase; the words say why.
        "phase" => entry.detail["reason"]
            .as_str()
            .map(|reason| {
                let to = entry.detail["to"].as_str().unwrap_or_default();
                reason
                    .strip_prefix(to)
                    .map(|rest| rest.trim_start_matches(':').trim())
                    .unwrap_or(reason)
                    .to_owned()
            })
            .unwrap_or_default(),
        "submit" => format!("Submitted by {who}"),
        "suspend" => format!("Suspended by {who}"),
        "resume" => format!("Resumed by {who}"),
        "delete" => format!("Deletion asked by {who}"),
        other => format!("{other} ({who})"),
    }
}

#[component]
fn Timeline(history: Vec<HistoryEntry>) -> impl IntoView {
    view! {
        <ol class="relative flex flex-col gap-3 border-l border-slate-300 pl-4 text-sm dark:border-slate-700" data-testid="timeline">
            {history
                .into_iter()
                .map(|entry| {
                    let phase = (entry.action == "phase")
                        .then(|| entry.detail["to"].as_str().and_then(|p| p.parse::<Phase>().ok()))
                        .flatten();
                    view! {
                        <li>
                            <p class="text-xs text-slate-600 dark:text-slate-400">
                                <crate::components::relative_time::Timestamp rfc3339=entry.at.clone() />
                            </p>
                            <p class="flex flex-wrap items-center gap-2">
                                {phase.map(|phase| view! { <PhaseBadge phase /> })}
                                <span>{describe(&entry)}</span>
                            </p>
                        </li>
                    }
                })
                .collect_view()}
        </ol>
    }
    .into_any()
}

#[component]
fn Tasks(workload: RwSignal<Workload>) -> impl IntoView {
    view! {
        {move || {
            let tasks = workload.with(|w| w.status.tasks.clone());
            if tasks.is_empty() {
                return view! {
                    <p class="text-sm text-slate-600 dark:text-slate-300">"No pods yet."</p>
                }
                    .into_any();
            }
            view! {
                <table class="w-full text-left text-sm" data-testid="tasks-table">
                    <thead class="text-slate-600 dark:text-slate-300">
                        <tr>
                            <th scope="col" class="py-1 pr-4 font-medium">"Task"</th>
                            <th scope="col" class="py-1 pr-4 font-medium">"Pending"</th>
                            <th scope="col" class="py-1 pr-4 font-medium">"Running"</th>
                            <th scope="col" class="py-1 pr-4 font-medium">"Succeeded"</th>
                            <th scope="col" class="py-1 pr-4 font-medium">"Failed"</th>
                        </tr>
                    </thead>
                    <tbody class="tabular-nums">
                        {tasks
                            .into_iter()
                            .map(|(task, c)| {
                                let key = task.clone();
                                view! {
                                <tr data-task=key>
                                    <th scope="row" class="py-1 pr-4 font-medium">{task}</th>
                                    <td class="py-1 pr-4">{c.pending}</td>
                                    <td class="py-1 pr-4">{c.running}</td>
                                    <td class="py-1 pr-4">{c.succeeded}</td>
                                    <td class="py-1 pr-4">{c.failed}</td>
                                </tr>
                            }})
                            .collect_view()}
                    </tbody>
                </table>
            }
                .into_any()
        }}
    }
    .into_any()
}

#[component]
fn Pods(workload: RwSignal<Workload>) -> impl IntoView {
    view! {
        {move || {
            let pods = workload.with(|w| w.status.pods.clone());
            if pods.is_empty() {
                return view! {
                    <p class="text-sm text-slate-600 dark:text-slate-300">"No pods exist right now."</p>
                }
                    .into_any();
            }
            view! {
                <div class="overflow-x-auto">
                    <table class="w-full text-left text-sm" data-testid="pods-table">
                        <thead class="text-slate-600 dark:text-slate-300">
                            <tr>
                                <th scope="col" class="py-1 pr-4 font-medium">"Pod"</th>
                                <th scope="col" class="py-1 pr-4 font-medium">"Task"</th>
                                <th scope="col" class="py-1 pr-4 font-medium">"Node"</th>
                                <th scope="col" class="py-1 pr-4 font-medium">"Phase"</th>
                                <th scope="col" class="py-1 pr-4 font-medium">"Restarts"</th>
                                <th scope="col" class="py-1 pr-4 font-medium">"Age"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {pods
                                .into_iter()
                                .map(|p| {
                                    let (pod, phase) = (p.name.clone(), p.phase.clone());
                                    view! {
                                    <tr data-pod=pod data-phase=phase>
                                        <td class="py-1 pr-4 font-mono text-xs">{p.name}</td>
                                        <td class="py-1 pr-4">{p.task}</td>
                                        <td class="py-1 pr-4">{p.node.unwrap_or_else(|| "not placed".to_owned())}</td>
                                        <td class="py-1 pr-4">{p.phase}</td>
                                        <td class="py-1 pr-4 tabular-nums">{p.restarts}</td>
                                        <td class="py-1 pr-4">{p.created_at.map(|at| view! { <Age rfc3339=at /> })}</td>
                                    </tr>
                                }})
                                .collect_view()}
                        </tbody>
                    </table>
                </div>
            }
                .into_any()
        }}
    }
    .into_any()
}

#[component]
fn Events(workload: RwSignal<Workload>) -> impl IntoView {
    view! {
        {move || {
            let mut events = workload.with(|w| w.status.events.clone());
            if events.is_empty() {
                return view! {
                    <p class="text-sm text-slate-600 dark:text-slate-300">"No events yet."</p>
                }
                    .into_any();
            }
            events.reverse();
            view! {
                <ul class="flex flex-col gap-2 text-sm" data-testid="events">
                    {events
                        .into_iter()
                        .map(|e| {
                            let warning = e.kind == "Warning";
                            view! {
                                <li class="flex flex-wrap gap-x-3">
                                    <span class=if warning {
                                        "font-semibold text-red-800 dark:text-red-300"
                                    } else {
                                        "font-semibold"
                                    }>
                                        {if warning { "Warning " } else { "" }}
                                        {e.reason}
                                    </span>
                                    <span class="text-slate-600 dark:text-slate-300">{e.object}</span>
                                    <span class="basis-full">{e.message}</span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            }
                .into_any()
        }}
    }
    .into_any()
}

/// Clone, suspend, resume and delete. Each action asks for confirmation, and a button is
/// disabled (with the reason as its description) when the phase does not allow it.
#[component]
fn Actions(workload: RwSignal<Workload>, deleted: RwSignal<bool>) -> impl IntoView {
    let toasts = use_toasts();
    let confirming = RwSignal::new(None::<Verb>);
    let id = workload.get_untracked().workload_id;
    let name = workload.get_untracked().name;
    let act = {
        let id = id.clone();
        let name = name.clone();
        Action::new(move |action: &Verb| {
            let (id, name, action) = (id.clone(), name.clone(), *action);
            async move { (action, name, act_on_workload(id, action).await) }
        })
    };
    Effect::new(move |_| {
        if let Some((action, name, result)) = act.value().get() {
            match result {
                Ok(updated) => {
                    workload.set(updated);
                    let said = format!("asked to {} {name}", action.verb());
                    if action == Verb::Delete {
                        toasts.success_on_next_page(&said);
                        crate::components::navigate::to("/trainings");
                    } else {
                        toasts.success(said);
                    }
                }
                Err(error) => toasts.error(format!("could not {} {name}: {error}", action.verb())),
            }
        }
    });
    let why_not = move |action: Verb| {
        if deleted.get() {
            return Some("it has been deleted".to_owned());
        }
        workload.with(|w| action.apply(w.desired_phase, w.actual_phase).err())
    };
    let pending = act.pending();
    view! {
        <div class="flex flex-wrap items-center gap-2" data-testid="actions">
            <a href=format!("/trainings/new{}", query(&[("from", Some(&id))])) class=SECONDARY_BUTTON_CLASS>
                "Clone"
            </a>
            {[Verb::Suspend, Verb::Resume, Verb::Delete]
                .into_iter()
                .map(|action| {
                    let label = match action {
                        Verb::Suspend => "Suspend",
                        Verb::Resume => "Resume",
                        Verb::Delete => "Delete",
                    };
                    let class = if action == Verb::Delete { DANGER_BUTTON_CLASS } else { SECONDARY_BUTTON_CLASS };
                    let reason_id = format!("why-not-{}", action.verb());
                    view! {
                        <button
                            type="button"
                            class=class
                            data-action=action.verb()
                            disabled=move || why_not(action).is_some() || pending.get()
                            title=move || why_not(action).map(|why| format!("Cannot {}: {why}", action.verb()))
                            aria-describedby=move || why_not(action).map(|_| reason_id.clone())
                            on:click=move |_| confirming.set(Some(action))
                        >
                            {label}
                        </button>
                        <span id=format!("why-not-{}", action.verb()) class="sr-only">
                            {move || why_not(action).map(|why| format!("Cannot {}: {why}", action.verb()))}
                        </span>
                    }
                })
                .collect_view()}
        </div>
        <Confirm confirming name on_confirm=move |action| { act.dispatch(action); } />
    }
    .into_any()
}

/// A modal that asks before an action; Escape or "Cancel" closes it, focus starts on "Cancel".
#[component]
fn Confirm(
    confirming: RwSignal<Option<Verb>>,
    name: String,
    on_confirm: impl Fn(Verb) + Clone + Send + Sync + 'static,
) -> impl IntoView {
    let cancel_ref = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if confirming.get().is_some()
            && let Some(button) = cancel_ref.get()
        {
            let _ = button.focus();
        }
    });
    view! {
        <Show when=move || confirming.get().is_some()>
            {
                let name = name.clone();
                let on_confirm = on_confirm.clone();
                move || {
                    let action = confirming.get()?;
                    let (title, text, label) = match action {
                        Verb::Suspend => (
                            "Suspend this training?",
                            "Its Job and pods are deleted; volumes and services stay. Resume creates the Job again from the same request.",
                            "Suspend",
                        ),
                        Verb::Resume => (
                            "Resume this training?",
                            "Its Job is created again from the stored request, and its pods start from the beginning.",
                            "Resume",
                        ),
                        Verb::Delete => (
                            "Delete this training?",
                            "Its Job, pods, volumes and services are deleted. This cannot be undone; the history stays.",
                            "Delete",
                        ),
                    };
                    let on_confirm = on_confirm.clone();
                    Some(view! {
                        <div class="fixed inset-0 z-40 flex items-center justify-center bg-slate-900/50 p-4">
                            <div
                                role="alertdialog"
                                aria-modal="true"
                                aria-labelledby="confirm-title"
                                aria-describedby="confirm-text"
                                class="w-full max-w-md rounded-lg bg-white p-6 shadow-xl dark:bg-slate-900"
                                on:keydown=move |ev| {
                                    if ev.key() == "Escape" {
                                        confirming.set(None);
                                    }
                                }
                            >
                                <h2 id="confirm-title" class="text-lg font-semibold">{title}</h2>
                                <p id="confirm-text" class="mt-2 text-sm text-slate-700 dark:text-slate-300">
                                    <span class="font-medium">{name.clone()}</span>": "{text}
                                </p>
                                <div class="mt-6 flex justify-end gap-2">
                                    <button
                                        type="button"
                                        node_ref=cancel_ref
                                        class=SECONDARY_BUTTON_CLASS
                                        on:click=move |_| confirming.set(None)
                                    >
                                        "Cancel"
                                    </button>
                                    <button
                                        type="button"
                                        data-confirm=action.verb()
                                        class=if action == Verb::Delete { DANGER_BUTTON_CLASS } else { PRIMARY_BUTTON_CLASS }
                                        on:click=move |_| {
                                            confirming.set(None);
                                            on_confirm(action);
                                        }
                                    >
                                        {label}
                                    </button>
                                </div>
                            </div>
                        </div>
                    })
                }
            }
        </Show>
    }
    .into_any()
}
