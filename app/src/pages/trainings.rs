//! All trainings the user may see: filtered, searched, sorted and paged through the URL (so every
//! view can be bookmarked and works without JavaScript), and kept current by the event stream.

use crate::api::{list_projects, list_workloads};
use crate::components::live::{LiveMessage, subscribe};
use crate::components::{error_panel::ErrorPanel, phase_badge::PhaseBadge, relative_time::Age};
use crate::model::phase::Phase;
use crate::model::url::query;
use crate::model::workload::{Workload, WorkloadEvent, WorkloadPage, WorkloadQuery};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::{A, Form};
use leptos_router::hooks::use_query_map;

/// The list's query from the page URL.
fn query_from_url() -> Memo<WorkloadQuery> {
    let params = use_query_map();
    Memo::new(move |_| {
        params.with(|p| {
            let text = |k: &str| p.get(k).filter(|v| !v.is_empty());
            WorkloadQuery {
                project_id: text("projectId"),
                phase: text("phase"),
                created_by: text("createdBy"),
                name: text("name"),
                sort_by: text("sortBy"),
                sort_order: text("sortOrder"),
                offset: text("offset").and_then(|o| o.parse().ok()),
                limit: text("limit").and_then(|l| l.parse().ok()),
            }
        })
    })
}

/// The URL of the list with `query`.
pub fn list_href(q: &WorkloadQuery) -> String {
    let offset = q.offset.filter(|o| *o > 0).map(|o| o.to_string());
    let limit = q.limit.map(|l| l.to_string());
    format!(
        "/trainings{}",
        query(&[
            ("projectId", q.project_id.as_deref()),
            ("phase", q.phase.as_deref()),
            ("createdBy", q.created_by.as_deref()),
            ("name", q.name.as_deref()),
            ("sortBy", q.sort_by.as_deref()),
            ("sortOrder", q.sort_order.as_deref()),
            ("offset", offset.as_deref()),
            ("limit", limit.as_deref()),
        ])
    )
}

const BUTTON: &str = "inline-flex items-center rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500";
pub const PRIMARY_BUTTON: &str = "inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50";
pub const SECONDARY_BUTTON: &str = "inline-flex items-center rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800";
pub const INPUT: &str = "block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-600 dark:bg-slate-900";

#[component]
pub fn TrainingsPage() -> impl IntoView {
    let q = query_from_url();
    let page = Resource::new(move || q.get(), list_workloads);
    view! {
        <Title text="Trainings" />
        <div class="mb-6 flex flex-wrap items-center justify-between gap-4">
            <h1 class="text-2xl font-semibold tracking-tight">"Trainings"</h1>
            <a href="/trainings/new" class=PRIMARY_BUTTON>
                "New training"
            </a>
        </div>
        <Filters q />
        <Transition fallback=|| view! { <p class="text-slate-500">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match page.await {
                    Ok(p) if p.total == 0 => {
                        view! { <EmptyState filtered=q.with_untracked(is_filtered) /> }.into_any()
                    }
                    Ok(p) => view! { <TrainingTable page=p q on_stale=move || page.refetch() /> }
                        .into_any(),
                    Err(error) => view! { <ErrorPanel error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

fn is_filtered(q: &WorkloadQuery) -> bool {
    q.project_id.is_some() || q.phase.is_some() || q.created_by.is_some() || q.name.is_some()
}

/// A GET form: the filters become the URL, with or without JavaScript.
#[component]
fn Filters(q: Memo<WorkloadQuery>) -> impl IntoView {
    let projects = OnceResource::new(list_projects());
    let current = move || q.get();
    view! {
        <Form method="GET" action="/trainings" attr:class="mb-4 flex flex-wrap items-end gap-3" attr:aria-label="Filter trainings">
            <div class="flex flex-col gap-1">
                <label for="filter-name" class="text-xs font-medium text-slate-600 dark:text-slate-300">
                    "Name contains"
                </label>
                <input
                    id="filter-name"
                    name="name"
                    type="search"
                    class=INPUT
                    prop:value=move || current().name.unwrap_or_default()
                />
            </div>
            <div class="flex flex-col gap-1">
                <label for="filter-project" class="text-xs font-medium text-slate-600 dark:text-slate-300">
                    "Project"
                </label>
                <select id="filter-project" name="projectId" class=INPUT>
                    <option value="">"All projects"</option>
                    <Suspense>
                        {move || Suspend::new(async move {
                            projects
                                .await
                                .unwrap_or_default()
                                .into_iter()
                                .map(|p| {
                                    let selected = current().project_id.as_deref()
                                        == Some(p.name.as_str())
                                        || current().project_id.as_deref() == Some(p.id.as_str());
                                    view! {
                                        <option value=p.name.clone() selected=selected>
                                            {p.name.clone()}
                                        </option>
                                    }
                                })
                                .collect_view()
                        })}
                    </Suspense>
                </select>
            </div>
            <div class="flex flex-col gap-1">
                <label for="filter-phase" class="text-xs font-medium text-slate-600 dark:text-slate-300">
                    "Phase"
                </label>
                <select id="filter-phase" name="phase" class=INPUT>
                    <option value="">"Any phase"</option>
                    {Phase::ALL
                        .into_iter()
                        .map(|phase| {
                            view! {
                                <option
                                    value=phase.as_str()
                                    selected=move || current().phase.as_deref() == Some(phase.as_str())
                                >
                                    {phase.as_str()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <div class="flex flex-col gap-1">
                <label for="filter-creator" class="text-xs font-medium text-slate-600 dark:text-slate-300">
                    "Created by"
                </label>
                <input
                    id="filter-creator"
                    name="createdBy"
                    type="text"
                    class=INPUT
                    prop:value=move || current().created_by.unwrap_or_default()
                />
            </div>
            <input type="hidden" name="sortBy" prop:value=move || current().sort_by.unwrap_or_default() />
            <input type="hidden" name="sortOrder" prop:value=move || current().sort_order.unwrap_or_default() />
            <button type="submit" class=SECONDARY_BUTTON>
                "Apply"
            </button>
            <Show when=move || is_filtered(&current())>
                <a href="/trainings" class=format!("{BUTTON} text-indigo-700 underline dark:text-indigo-300")>
                    "Clear filters"
                </a>
            </Show>
        </Form>
    }
    .into_any()
}

#[component]
fn EmptyState(filtered: bool) -> impl IntoView {
    view! {
        <div class="rounded-lg border border-dashed border-slate-300 p-10 text-center dark:border-slate-700" data-testid="empty-state">
            {if filtered {
                view! {
                    <p class="text-lg font-medium">"No trainings match these filters"</p>
                    <p class="mt-2 text-sm text-slate-600 dark:text-slate-400">
                        <a href="/trainings" class="text-indigo-700 underline dark:text-indigo-300">"Clear the filters"</a>
                        " to see every training."
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <p class="text-lg font-medium">"No trainings yet"</p>
                    <p class="mt-2 text-sm text-slate-600 dark:text-slate-400">
                        "Describe the image, the command and the GPUs it needs, and Tephra starts all its pods together. "
                        <a href="/trainings/new" class="text-indigo-700 underline dark:text-indigo-300">"Submit your first training"</a>
                        ", or POST one to "
                        <code class="rounded-md bg-slate-100 px-1 dark:bg-slate-800">"/api/v1/workloads/trainings"</code>
                        "."
                    </p>
                }
                    .into_any()
            }}
        </div>
    }
}

/// A column header that sorts by `key`; the current sort is announced with `aria-sort`.
#[component]
fn SortHeader(label: &'static str, key: &'static str, q: Memo<WorkloadQuery>) -> impl IntoView {
    let active = move || q.with(|q| q.sort_by.as_deref().unwrap_or("createdAt") == key);
    let ascending = move || q.with(|q| q.sort_order.as_deref() == Some("asc"));
    let href = move || {
        let mut next = q.get();
        next.sort_by = Some(key.to_owned());
        next.sort_order = Some(
            if active() && !ascending() {
                "asc"
            } else {
                "desc"
            }
            .to_owned(),
        );
        next.offset = None;
        list_href(&next)
    };
    let aria_sort = move || match (active(), ascending()) {
        (false, _) => "none",
        (true, true) => "ascending",
        (true, false) => "descending",
    };
    view! {
        <th scope="col" class="px-4 py-2 font-medium" aria-sort=aria_sort>
            <A href=href attr:class="hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500">
                {label}
                <span aria-hidden="true">
                    {move || match (active(), ascending()) {
                        (false, _) => "",
                        (true, true) => " ↑",
                        (true, false) => " ↓",
                    }}
                </span>
            </A>
        </th>
    }
}

/// The running and total pods of all tasks.
fn task_totals(w: &Workload) -> (u32, u32) {
    w.status.tasks.values().fold((0, 0), |(running, total), t| {
        (running + t.running, total + t.total())
    })
}

fn format_gpus(g: f64) -> String {
    if g == 0.0 {
        "–".to_owned()
    } else if g.fract() == 0.0 {
        format!("{g:.0}")
    } else {
        format!("{g:.2}")
    }
}

/// Folds a change from the stream into a row.
fn apply(w: &mut Workload, e: &WorkloadEvent) {
    w.desired_phase = e.desired_phase;
    w.actual_phase = e.actual_phase;
    w.phase_message = e.phase_message.clone();
    w.updated_at = e.updated_at.clone();
    w.status = e.status.clone();
}

#[component]
fn TrainingTable(
    page: WorkloadPage,
    q: Memo<WorkloadQuery>,
    on_stale: impl Fn() + Clone + Send + Sync + 'static,
) -> impl IntoView {
    let rows: Vec<(String, RwSignal<Workload>)> = page
        .workloads
        .iter()
        .map(|w| (w.workload_id.clone(), RwSignal::new(w.clone())))
        .collect();
    let live = rows.clone();
    let project = q.with_untracked(|q| q.project_id.clone());
    let url = format!(
        "/api/v1/workloads/events{}",
        query(&[("projectId", project.as_deref())])
    );
    subscribe(url, move |message| match message {
        LiveMessage::Workload(e) => match live.iter().find(|(id, _)| *id == e.workload_id) {
            Some((_, row)) if !e.deleted => row.update(|w| apply(w, &e)),
            // A training this page does not show yet, or one that is gone: the page changes.
            _ => on_stale(),
        },
        LiveMessage::Resync => on_stale(),
    });
    let shown = format!(
        "{}–{} of {}",
        page.offset + 1,
        page.offset + page.workloads.len() as i64,
        page.total
    );
    let previous = (page.offset > 0).then(|| {
        let mut prev = q.get_untracked();
        prev.offset = Some((page.offset - page.limit).max(0));
        list_href(&prev)
    });
    let next = page.next.map(|offset| {
        let mut next = q.get_untracked();
        next.offset = Some(offset);
        list_href(&next)
    });
    view! {
        <div class="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <table class="w-full text-left text-sm" data-testid="trainings-table">
                <caption class="sr-only">"Trainings, " {shown.clone()}</caption>
                <thead class="border-b border-slate-200 text-slate-600 dark:border-slate-800 dark:text-slate-300">
                    <tr>
                        <SortHeader label="Name" key="name" q />
                        <th scope="col" class="px-4 py-2 font-medium">"Project"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Created by"</th>
                        <SortHeader label="Phase" key="actualPhase" q />
                        <th scope="col" class="px-4 py-2 font-medium">"Pods running"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"GPUs"</th>
                        <SortHeader label="Age" key="createdAt" q />
                    </tr>
                </thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|(id, row)| view! { <TrainingRow id row /> })
                        .collect_view()}
                </tbody>
            </table>
        </div>
        <nav aria-label="Pages" class="mt-3 flex items-center justify-between text-sm text-slate-600 dark:text-slate-300">
            <span data-testid="page-range">{shown}</span>
            <span class="flex gap-2">
                {previous.map(|href| view! { <A href=href attr:class=SECONDARY_BUTTON>"Previous"</A> })}
                {next.map(|href| view! { <A href=href attr:class=SECONDARY_BUTTON>"Next"</A> })}
            </span>
        </nav>
    }
    .into_any()
}

#[component]
fn TrainingRow(id: String, row: RwSignal<Workload>) -> impl IntoView {
    let w = row.get_untracked();
    let tasks = move || {
        let (running, total) = row.with(task_totals);
        format!("{running}/{total}")
    };
    let phase = move || row.with(|w| w.actual_phase);
    let message = move || row.with(|w| w.phase_message.clone().unwrap_or_default());
    view! {
        <tr
            class="border-b border-slate-100 last:border-0 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800"
            data-workload-id=id.clone()
            data-phase=move || phase().as_str()
        >
            <td class="px-4 py-2 font-medium">
                <a href=format!("/trainings/{id}") class="text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
                    {w.name.clone()}
                </a>
                {(w.kind == "distributed").then(|| view! {
                    <span class="ml-2 text-xs text-slate-500 dark:text-slate-400">"distributed"</span>
                })}
            </td>
            <td class="px-4 py-2">{w.project_name.clone()}</td>
            <td class="px-4 py-2">{w.created_by.clone()}</td>
            <td class="px-4 py-2" title=message data-testid="phase">
                {move || view! { <PhaseBadge phase=phase() /> }}
            </td>
            <td class="px-4 py-2 tabular-nums" data-testid="tasks">{tasks}</td>
            <td class="px-4 py-2 tabular-nums">{format_gpus(w.gpus())}</td>
            <td class="px-4 py-2"><Age rfc3339=w.created_at.clone() /></td>
        </tr>
    }
    .into_any()
}
