//! The pods of each task, counted by phase.

use super::Headings;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::workload::Workload;

#[component]
pub(super) fn Tasks(workload: Workload) -> impl IntoView {
    let tasks = workload.status.tasks;
    if tasks.is_empty() {
        return Either::Left(view! {
            <p class="text-sm text-slate-600 dark:text-slate-300">"No pods yet."</p>
        });
    }
    Either::Right(view! {
        <table class="w-full text-left text-sm" data-testid="tasks-table">
            <Headings labels=&["Task", "Pending", "Running", "Succeeded", "Failed"] />
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
    })
}
