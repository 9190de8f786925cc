//! The pods that exist right now: where they run, their phase and restarts, and their logs
//! (a link the page's island follows: it chooses that pod in the log reader).

use super::Headings;
use crate::components::relative_time::Age;
use crate::components::style::LINK_CLASS;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::workload::Workload;

#[component]
pub(super) fn Pods(workload: Workload) -> impl IntoView {
    let pods = workload.status.pods;
    if pods.is_empty() {
        return Either::Left(view! {
            <p class="text-sm text-slate-600 dark:text-slate-300">"No pods exist right now."</p>
        });
    }
    Either::Right(view! {
        <div class="overflow-x-auto">
            <table class="w-full text-left text-sm" data-testid="pods-table">
                <Headings labels=&["Pod", "Task", "Node", "Phase", "Restarts", "Age", ""] />
                <tbody>
                    {pods
                        .into_iter()
                        .map(|p| {
                            let (pod, phase) = (p.name.clone(), p.phase.clone());
                            let for_logs = p.name.clone();
                            view! {
                            <tr data-pod=pod data-phase=phase>
                                <td class="py-1 pr-4 font-mono text-xs">{p.name}</td>
                                <td class="py-1 pr-4">{p.task}</td>
                                <td class="py-1 pr-4">{p.node.unwrap_or_else(|| "not placed".to_owned())}</td>
                                <td class="py-1 pr-4">{p.phase}</td>
                                <td class="py-1 pr-4 tabular-nums">{p.restarts}</td>
                                <td class="py-1 pr-4">{p.created_at.map(|at| view! { <Age rfc3339=at /> })}</td>
                                <td class="py-1 pr-4">
                                    <a href="#logs" class=LINK_CLASS data-log-pod=for_logs>"Logs"</a>
                                </td>
                            </tr>
                        }})
                        .collect_view()}
                </tbody>
            </table>
        </div>
    })
}
