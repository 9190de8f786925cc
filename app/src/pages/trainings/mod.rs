//! All trainings the user may see: filtered, searched, sorted and paged through the URL (so every
//! view can be bookmarked and works without JavaScript), and kept current by the event stream.

use crate::api::{list_projects, list_workloads};
use crate::components::form::INPUT_CLASS;
use crate::components::live::{LiveMessage, subscribe};
use crate::components::loaded::loaded;
use crate::components::{phase_badge::PhaseBadge, relative_time::Age};
use crate::error::AppError;
use crate::model::phase::Phase;
use crate::model::project::ProjectSummary;
use crate::model::url::query;
use crate::model::workload::{RowChange, WorkloadPage, WorkloadQuery, WorkloadRow};
use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
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

const BUTTON_CLASS: &str = "inline-flex items-center rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500";
pub const PRIMARY_BUTTON_CLASS: &str = "inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50";
pub const SECONDARY_BUTTON_CLASS: &str = "inline-flex items-center rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800";

#[component]
pub fn TrainingsPage() -> impl IntoView {
    let q = query_from_url();
    let page = Resource::new(
        move || q.get(),
        |q| async {
            Ok::<_, AppError>((
                list_workloads(q).await?,
                list_projects().await.unwrap_or_default(),
            ))
        },
    );
    view! {
        <Title text="Trainings" />
        <div class="mb-6 flex flex-wrap items-center justify-between gap-4">
            <h1 class="text-2xl font-semibold tracking-tight">"Trainings"</h1>
            <a href="/trainings/new" class=PRIMARY_BUTTON_CLASS>
                "New training"
            </a>
        </div>
        {loaded(page, move |(page, projects)| {
            let q = q.get_untracked();
            view! {
                <Filters q=q.clone() projects />
                <LiveTrainings page q />
            }
        })}
    }
}

/// The rows on screen, each with its own signal, so a change touches one row of the DOM.
type Rows = StoredValue<Vec<(String, RwSignal<WorkloadRow>)>>;

/// How long changes the page cannot apply in place (a new training, one that is gone) gather
/// before the page is loaded again: a busy cluster must not make the list reload on every event.
const RELOAD_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// The table (or the empty state) and its pages, kept current by the event stream: the one part
/// of this page that runs in the browser.
#[island]
fn LiveTrainings(page: WorkloadPage, q: WorkloadQuery) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let filtered = is_filtered(&q);
    let page = RwSignal::new(page);
    let rows: Rows = StoredValue::new(Vec::new());
    let reload = {
        let q = q.clone();
        move || {
            let q = q.clone();
            leptos::task::spawn_local(async move {
                match list_workloads(q).await {
                    Ok(fresh) => page.set(fresh),
                    Err(error) => leptos::logging::warn!("cannot reload the trainings: {error}"),
                }
            })
        }
    };
    follow_changes(q.project_id.clone(), rows, reload);
    view! {
        {move || {
            let page = page.get();
            if page.total == 0 {
                Either::Left(view! { <EmptyState filtered /> })
            } else {
                Either::Right(view! { <TrainingTable page q=q.clone() rows /> })
            }
        }}
    }
}

/// Keeps the rows on screen current from the event stream, for as long as the page is shown
/// (one stream per page, not per load, so reloading the rows never reopens it).
fn follow_changes(project: Option<String>, rows: Rows, reload: impl Fn() + Clone + 'static) {
    let reload_pending = StoredValue::new(false);
    let reload_soon = move || {
        if !reload_pending.get_value() {
            reload_pending.set_value(true);
            let reload = reload.clone();
            set_timeout(
                move || {
                    reload_pending.set_value(false);
                    reload();
                },
                RELOAD_AFTER,
            );
        }
    };
    let url = format!(
        "/api/v1/workloads/events{}",
        query(&[("projectId", project.as_deref())])
    );
    // Every connection opens with a resync; the first one finds the rows just loaded.
    let connected = StoredValue::new(false);
    subscribe(url, move |message: LiveMessage<RowChange>| match message {
        LiveMessage::Workload(e) => {
            let row = rows.with_value(|rows| {
                rows.iter()
                    .find(|(id, _)| *id == e.workload_id)
                    .map(|(_, row)| *row)
            });
            match row {
                Some(row) if !e.deleted => row.update(|w| w.apply(&e)),
                _ => reload_soon(),
            }
        }
        LiveMessage::Resync if connected.get_value() => reload_soon(),
        LiveMessage::Resync => connected.set_value(true),
    });
}

fn is_filtered(q: &WorkloadQuery) -> bool {
    q.project_id.is_some() || q.phase.is_some() || q.created_by.is_some() || q.name.is_some()
}

/// A GET form: the filters become the URL. Rendered on the server; it needs no script.
#[component]
fn Filters(q: WorkloadQuery, projects: Vec<ProjectSummary>) -> impl IntoView {
    let filtered = is_filtered(&q);
    let project = q.project_id.clone();
    let phase = q.phase.clone();
    view! {
        <form method="GET" action="/trainings" class="mb-4 flex flex-wrap items-end gap-3" aria-label="Filter trainings">
            <Filter label="Name contains" id="filter-name">
                <input
                    id="filter-name"
                    name="name"
                    type="search"
                    class=INPUT_CLASS
                    value=q.name.clone().unwrap_or_default()
                />
            </Filter>
            <Filter label="Project" id="filter-project">
                <select id="filter-project" name="projectId" class=INPUT_CLASS>
                    <option value="">"All projects"</option>
                    {projects
                        .into_iter()
                        .map(|p| {
                            let selected = project.as_deref() == Some(p.name.as_str())
                                || project.as_deref() == Some(p.id.as_str());
                            view! { <option value=p.name.clone() selected=selected>{p.name.clone()}</option> }
                        })
                        .collect_view()}
                </select>
            </Filter>
            <Filter label="Phase" id="filter-phase">
                <select id="filter-phase" name="phase" class=INPUT_CLASS>
                    <option value="">"Any phase"</option>
                    {Phase::ALL
                        .into_iter()
                        .map(|p| {
                            view! {
                                <option value=p.as_str() selected=phase.as_deref() == Some(p.as_str())>
                                    {p.as_str()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </Filter>
            <Filter label="Created by" id="filter-creator">
                <input
                    id="filter-creator"
                    name="createdBy"
                    type="text"
                    class=INPUT_CLASS
                    value=q.created_by.clone().unwrap_or_default()
                />
            </Filter>
            <input type="hidden" name="sortBy" value=q.sort_by.clone().unwrap_or_default() />
            <input type="hidden" name="sortOrder" value=q.sort_order.clone().unwrap_or_default() />
            <button type="submit" class=SECONDARY_BUTTON_CLASS>
                "Apply"
            </button>
            {filtered.then(|| view! {
                <a href="/trainings" class=format!("{BUTTON_CLASS} text-indigo-700 underline dark:text-indigo-300")>
                    "Clear filters"
                </a>
            })}
        </form>
    }
}

/// A labelled control of the filter form.
#[component]
fn Filter(label: &'static str, id: &'static str, children: Children) -> impl IntoView {
    view! {
        <div class="flex flex-col gap-1">
            <label for=id class="text-xs font-medium text-slate-600 dark:text-slate-300">
                {label}
            </label>
            {children()}
        </div>
    }
}

#[component]
fn EmptyState(filtered: bool) -> impl IntoView {
    view! {
        <div class="rounded-lg border border-dashed border-slate-300 p-10 text-center dark:border-slate-700" data-testid="empty-state">
            {if filtered {
                Either::Left(view! {
                    <p class="text-lg font-medium">"No trainings match these filters"</p>
                    <p class="mt-2 text-sm text-slate-600 dark:text-slate-400">
                        <a href="/trainings" class="text-indigo-700 underline dark:text-indigo-300">"Clear the filters"</a>
                        " to see every training."
                    </p>
                })
            } else {
                Either::Right(view! {
                    <p class="text-lg font-medium">"No trainings yet"</p>
                    <p class="mt-2 text-sm text-slate-600 dark:text-slate-400">
                        "Describe the image, the command and the GPUs it needs, and Tephra starts all its pods together. "
                        <a href="/trainings/new" class="text-indigo-700 underline dark:text-indigo-300">"Submit your first training"</a>
                        ", or POST one to "
                        <code class="rounded-md bg-slate-100 px-1 dark:bg-slate-800">"/api/v1/workloads/trainings"</code>
                        "."
                    </p>
                })
            }}
        </div>
    }
}

/// A column header that sorts by `key`; the current sort is announced with `aria-sort`.
#[component]
fn SortHeader(label: &'static str, key: &'static str, q: WorkloadQuery) -> impl IntoView {
    let active = q.sort_by.as_deref().unwrap_or("createdAt") == key;
    let ascending = q.sort_order.as_deref() == Some("asc");
    let href = {
        let mut next = q;
        next.sort_by = Some(key.to_owned());
        next.sort_order = Some(if active && !ascending { "asc" } else { "desc" }.to_owned());
        next.offset = None;
        list_href(&next)
    };
    let aria_sort = match (active, ascending) {
        (false, _) => "none",
        (true, true) => "ascending",
        (true, false) => "descending",
    };
    view! {
        <th scope="col" class="px-4 py-2 font-medium" aria-sort=aria_sort>
            <a href=href class="hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500">
                {label}
                <span aria-hidden="true">
                    {match (active, ascending) {
                        (false, _) => "",
                        (true, true) => " ↑",
                        (true, false) => " ↓",
                    }}
                </span>
            </a>
        </th>
    }
}

/// GPUs as whole numbers or with two decimals. Written without float formatting, whose code
/// (Grisu and Dragon4) would otherwise be the list's largest single dependency in the browser.
fn format_gpus(g: f64) -> String {
    let hundredths = (g * 100.0).round() as i64;
    match (hundredths / 100, hundredths % 100) {
        (0, 0) => "–".to_owned(),
        (whole, 0) => whole.to_string(),
        (whole, part) => format!("{whole}.{part:02}"),
    }
}

#[component]
fn TrainingTable(page: WorkloadPage, q: WorkloadQuery, rows: Rows) -> impl IntoView {
    let shown_rows: Vec<(String, RwSignal<WorkloadRow>)> = page
        .workloads
        .iter()
        .map(|w| (w.workload_id.clone(), RwSignal::new(w.clone())))
        .collect();
    rows.set_value(shown_rows.clone());
    let shown = format!(
        "{}–{} of {}",
        page.offset + 1,
        page.offset + page.workloads.len() as i64,
        page.total
    );
    let previous = (page.offset > 0).then(|| {
        let mut prev = q.clone();
        prev.offset = Some((page.offset - page.limit).max(0));
        list_href(&prev)
    });
    let next = page.next.map(|offset| {
        let mut next = q.clone();
        next.offset = Some(offset);
        list_href(&next)
    });
    view! {
        <div class="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <table class="w-full text-left text-sm" data-testid="trainings-table">
                <caption class="sr-only">"Trainings, " {shown.clone()}</caption>
                <thead class="border-b border-slate-200 text-slate-600 dark:border-slate-800 dark:text-slate-300">
                    <tr>
                        <SortHeader label="Name" key="name" q=q.clone() />
                        <th scope="col" class="px-4 py-2 font-medium">"Project"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Created by"</th>
                        <SortHeader label="Phase" key="actualPhase" q=q.clone() />
                        <th scope="col" class="px-4 py-2 font-medium">"Pods running"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"GPUs"</th>
                        <SortHeader label="Age" key="createdAt" q=q.clone() />
                    </tr>
                </thead>
                <tbody>
                    {shown_rows
                        .into_iter()
                        .map(|(id, row)| view! { <TrainingRow id row /> })
                        .collect_view()}
                </tbody>
            </table>
        </div>
        <nav aria-label="Pages" class="mt-3 flex items-center justify-between text-sm text-slate-600 dark:text-slate-300">
            <span data-testid="page-range">{shown}</span>
            <span class="flex gap-2">
                {previous.map(|href| view! { <a href=href class=SECONDARY_BUTTON_CLASS>"Previous"</a> })}
                {next.map(|href| view! { <a href=href class=SECONDARY_BUTTON_CLASS>"Next"</a> })}
            </span>
        </nav>
    }
}

#[component]
fn TrainingRow(id: String, row: RwSignal<WorkloadRow>) -> impl IntoView {
    let w = row.get_untracked();
    let tasks = move || row.with(|w| format!("{}/{}", w.running, w.pods));
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
            <td class="px-4 py-2 tabular-nums">{format_gpus(w.gpus)}</td>
            <td class="px-4 py-2"><Age rfc3339=w.created_at.clone() /></td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::format_gpus;

    #[test]
    fn gpus_read_as_whole_numbers_or_with_two_decimals() {
        assert_eq!(format_gpus(0.0), "–");
        assert_eq!(format_gpus(3.0), "3");
        assert_eq!(format_gpus(0.5), "0.50");
        assert_eq!(format_gpus(2.25), "2.25");
        assert_eq!(format_gpus(1.0 / 3.0), "0.33");
    }
}
