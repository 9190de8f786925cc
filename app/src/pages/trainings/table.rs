//! The list itself, rendered by the server: sortable columns, one row per training (its phase,
//! message and pod count marked for `live` to change in place), the pages, and what shows
//! instead when there is nothing to list.

use super::list_href;
use crate::components::style::{LINK_CLASS, SECONDARY_BUTTON_CLASS};
use crate::components::{phase_badge::badge_class, relative_time::Age};
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::kind::WorkloadKind;
use tephra_core::model::workload::{WorkloadPage, WorkloadQuery, WorkloadRow};

/// What shows instead of the table: the way out of the filters, or how to submit a first training.
#[component]
pub(super) fn EmptyState(filtered: bool) -> impl IntoView {
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
pub(super) fn TrainingTable(page: WorkloadPage, q: WorkloadQuery) -> impl IntoView {
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
                    {page
                        .workloads
                        .into_iter()
                        .map(|w| view! { <TrainingRow w /> })
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
fn TrainingRow(w: WorkloadRow) -> impl IntoView {
    let id = w.workload_id.clone();
    let message = w.phase_message.clone().unwrap_or_default();
    let title = message.clone();
    view! {
        <tr
            class="border-b border-slate-100 last:border-0 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800"
            data-workload-id=id.clone()
            data-phase=w.actual_phase.as_str()
        >
            <td class="px-4 py-2 font-medium">
                <a href=format!("/trainings/{id}") class=LINK_CLASS>
                    {w.name.clone()}
                </a>
                {(w.kind != WorkloadKind::Training).then(|| view! {
                    <span class="ml-2 text-xs text-slate-500 dark:text-slate-400">{w.kind.as_str()}</span>
                })}
            </td>
            <td class="px-4 py-2">{w.project_name.clone()}</td>
            <td class="px-4 py-2">{w.created_by.clone()}</td>
            <td class="px-4 py-2" title=title data-testid="phase">
                <span class=badge_class(w.actual_phase) data-live="badge">{w.actual_phase.as_str()}</span>
                {w.queue_place.clone().map(|place| view! {
                    <span class="queue-place ml-2 text-xs text-slate-600 dark:text-slate-300" data-testid="queue-place">
                        {place}
                    </span>
                })}
                // Why it waits, stopped or fails, in one line; the whole of it in the title.
                <div class="max-w-sm truncate text-xs text-slate-600 dark:text-slate-300" data-testid="why">{message}</div>
            </td>
            <td class="px-4 py-2 tabular-nums" data-testid="tasks">{format!("{}/{}", w.running, w.pods)}</td>
            <td class="px-4 py-2 tabular-nums">
                {format_gpus(w.gpus)}
                // Rounded to a whole percent without float formatting (see format_gpus).
                {w.gpu_use.map(|u| view! {
                    <span class="ml-2 text-xs text-slate-600 dark:text-slate-300" data-testid="gpu-use"
                        title="GPU utilisation when the page was loaded">
                        {format!("{}% busy", u.round() as i64)}
                    </span>
                })}
            </td>
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
