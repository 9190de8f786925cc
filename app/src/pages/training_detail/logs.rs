//! One container's log: choose the pod and container, how many of the newest lines, whether to
//! follow; or download it. Read through Tephra's logs API, which asks the Kubernetes logs API.

use crate::components::log_stream::{LogMessage, read};
use crate::components::style::SECONDARY_BUTTON_CLASS;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::url::query;
use tephra_core::model::workload::Workload;

/// Most lines the page keeps; older ones scroll away (the download has them all).
const KEPT_LINES: usize = 5_000;
const TAIL_CHOICES: &[&str] = &["100", "1000", "10000", "all"];

const SELECT_CLASS: &str = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";

/// What the reader shows, from its controls.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Choice {
    pod: String,
    container: String,
    tail: String,
    follow: bool,
    timestamps: bool,
}

impl Choice {
    fn url(&self, workload_id: &str, download: bool) -> String {
        let tail = if download { "all" } else { &self.tail };
        format!(
            "/api/v1/workloads/{workload_id}/pods/{}/logs{}",
            tephra_core::model::url::encode(&self.pod),
            query(&[
                ("container", Some(&self.container)),
                ("tailLines", Some(tail)),
                ("follow", (self.follow && !download).then_some("true")),
                ("timestamps", self.timestamps.then_some("true")),
                ("download", download.then_some("true")),
            ])
        )
    }
}

/// `selected` is the pod to read, set here or by the pods table's "Logs" buttons.
#[component]
pub(super) fn Logs(
    workload: RwSignal<Workload>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    let id = workload.with_untracked(|w| w.workload_id.clone());
    let pods = Memo::new(move |_| {
        workload.with(|w| {
            w.status
                .pods
                .iter()
                .map(|p| (p.name.clone(), p.containers.clone()))
                .collect::<Vec<_>>()
        })
    });
    // The first pod until one is chosen; a chosen pod that went away leaves the choice empty.
    let pod = Memo::new(move |_| {
        selected
            .get()
            .or_else(|| pods.with(|p| p.first().map(|(name, _)| name.clone())))
    });
    let containers = Memo::new(move |_| {
        let pod = pod.get();
        pods.with(|p| {
            p.iter()
                .find(|(name, _)| Some(name) == pod.as_ref())
                .map(|(_, c)| c.clone())
                .unwrap_or_default()
        })
    });
    let container = RwSignal::new(None::<String>);
    let tail = RwSignal::new("1000".to_owned());
    let follow = RwSignal::new(true);
    let timestamps = RwSignal::new(false);
    // Pressing "Read again" makes a new reader even when nothing else changed.
    let again = RwSignal::new(0u32);
    let choice = Memo::new(move |_| {
        let pod = pod.get()?;
        let containers = containers.get();
        let container = container
            .get()
            .filter(|c| containers.contains(c))
            .or_else(|| containers.first().cloned())?;
        Some(Choice {
            pod,
            container,
            tail: tail.get(),
            follow: follow.get(),
            timestamps: timestamps.get(),
        })
    });
    let download = {
        let id = id.clone();
        move || choice.get().map(|c| c.url(&id, true))
    };
    view! {
        <div class="flex flex-col gap-3" data-testid="logs">
            <div class="flex flex-wrap items-end gap-3 text-sm">
                {pod_and_container(pods, pod, containers, choice, selected, container)}
                {reading_options(tail, follow, timestamps)}
                <button type="button" class=SECONDARY_BUTTON_CLASS on:click=move |_| again.update(|n| *n += 1)>
                    "Read again"
                </button>
                <a class=SECONDARY_BUTTON_CLASS data-testid="logs-download" href=download download="">
                    "Download"
                </a>
            </div>
            {reader(id, choice, again)}
        </div>
    }
}

/// Which pod and which of its containers to read.
fn pod_and_container(
    pods: Memo<Vec<(String, Vec<String>)>>,
    pod: Memo<Option<String>>,
    containers: Memo<Vec<String>>,
    choice: Memo<Option<Choice>>,
    selected: RwSignal<Option<String>>,
    container: RwSignal<Option<String>>,
) -> impl IntoView {
    view! {
        <label class="flex flex-col gap-1">
            <span class="font-medium">"Pod"</span>
            <select class=SELECT_CLASS data-testid="logs-pod"
                on:change=move |e| selected.set(Some(event_target_value(&e)))>
                {move || options(
                    pods.get().into_iter().map(|(name, _)| name),
                    pod.get(),
                )}
            </select>
        </label>
        <label class="flex flex-col gap-1">
            <span class="font-medium">"Container"</span>
            <select class=SELECT_CLASS data-testid="logs-container"
                on:change=move |e| container.set(Some(event_target_value(&e)))>
                {move || options(
                    containers.get(),
                    choice.with(|c| c.as_ref().map(|c| c.container.clone())),
                )}
            </select>
        </label>
    }
}

/// How much to read and how: the newest lines, following, timestamps.
fn reading_options(
    tail: RwSignal<String>,
    follow: RwSignal<bool>,
    timestamps: RwSignal<bool>,
) -> impl IntoView {
    view! {
        <label class="flex flex-col gap-1">
            <span class="font-medium">"Newest lines"</span>
            <select class=SELECT_CLASS data-testid="logs-tail"
                on:change=move |e| tail.set(event_target_value(&e))>
                {TAIL_CHOICES.iter().map(|n| {
                    view! { <option value=*n selected=move || tail.get() == *n>{*n}</option> }
                }).collect_view()}
            </select>
        </label>
        <label class="flex items-center gap-2 pb-1">
            <input type="checkbox" data-testid="logs-follow" prop:checked=move || follow.get()
                on:change=move |e| follow.set(event_target_checked(&e)) />
            "Follow"
        </label>
        <label class="flex items-center gap-2 pb-1">
            <input type="checkbox" data-testid="logs-timestamps" prop:checked=move || timestamps.get()
                on:change=move |e| timestamps.set(event_target_checked(&e)) />
            "Timestamps"
        </label>
    }
}

/// The reader of the chosen container, made again on each choice and each "Read again".
fn reader(id: String, choice: Memo<Option<Choice>>, again: RwSignal<u32>) -> impl IntoView {
    move || {
        again.track();
        match choice.get() {
            Some(c) => Either::Left(view! { <Reader url=c.url(&id, false) follow=c.follow /> }),
            None => Either::Right(view! {
                <p class="text-sm text-slate-600 dark:text-slate-300">"No pod to read: logs appear once a pod has started."</p>
            }),
        }
    }
}

/// A select's options, `chosen` selected.
fn options(names: impl IntoIterator<Item = String>, chosen: Option<String>) -> impl IntoView {
    names
        .into_iter()
        .map(|name| {
            let selected = chosen.as_ref() == Some(&name);
            let label = name.clone();
            view! { <option value=name selected=selected>{label}</option> }
        })
        .collect_view()
}

/// Where the reader stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Reading,
    Ended,
    Failed(String),
}

/// The lines at `url`, read while this is shown: a new choice makes a new reader.
#[component]
fn Reader(url: String, follow: bool) -> impl IntoView {
    let lines = RwSignal::new(Vec::<String>::new());
    let state = RwSignal::new(State::Reading);
    let pre = NodeRef::<leptos::html::Pre>::new();
    read(url, move |message| match message {
        LogMessage::Line(line) => lines.update(|l| {
            l.push(line);
            if l.len() > KEPT_LINES {
                l.drain(..l.len() - KEPT_LINES);
            }
        }),
        LogMessage::End => state.set(State::Ended),
        LogMessage::Failure(why) => state.set(State::Failed(why)),
    });
    // Keep the newest line in view, as `kubectl logs -f` does.
    Effect::new(move |_| {
        lines.track();
        if let Some(pre) = pre.get() {
            pre.set_scroll_top(pre.scroll_height());
        }
    });
    view! {
        <pre node_ref=pre data-testid="log-lines" data-state=move || match state.get() {
                State::Reading => "reading",
                State::Ended => "ended",
                State::Failed(_) => "failed",
            }
            class="max-h-96 min-h-24 overflow-auto rounded-md bg-slate-950 p-3 font-mono text-xs leading-5 text-slate-100">
            {move || lines.with(|l| l.join("\n"))}
        </pre>
        <p class="text-xs text-slate-600 dark:text-slate-300" role="status">
            {move || match state.get() {
                State::Reading if follow => "Following: new lines appear as the container writes them.".to_owned(),
                State::Reading => "Reading…".to_owned(),
                State::Ended => "The log ended.".to_owned(),
                State::Failed(why) => why,
            }}
        </p>
    }
}
