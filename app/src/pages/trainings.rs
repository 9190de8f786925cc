//! All trainings the user may see.

use crate::api::list_trainings;
use crate::components::{
    error_panel::ErrorPanel, phase_badge::PhaseBadge, relative_time::Timestamp,
};
use crate::model::training::summary::TrainingSummary;
use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn TrainingsPage() -> impl IntoView {
    let trainings = Resource::new(|| (), |_| list_trainings());
    view! {
        <Title text="Trainings" />
        <h1 class="mb-6 text-2xl font-semibold tracking-tight">"Trainings"</h1>
        <Transition fallback=|| view! { <p class="text-slate-500">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match trainings.await {
                    Ok(list) if list.is_empty() => view! { <EmptyState /> }.into_any(),
                    Ok(list) => view! { <TrainingTable list /> }.into_any(),
                    Err(error) => view! { <ErrorPanel error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn EmptyState() -> impl IntoView {
    view! {
        <div class="rounded-lg border border-dashed border-slate-300 p-10 text-center dark:border-slate-700">
            <p class="text-lg font-medium">"No trainings yet"</p>
            <p class="mt-2 text-sm text-slate-600 dark:text-slate-400">
                "Submit one with "
                <code class="rounded-md bg-slate-100 px-1 dark:bg-slate-800">"POST /api/v1/workloads/trainings"</code>
                "; it appears here with its phase."
            </p>
        </div>
    }
}

#[component]
fn TrainingTable(list: Vec<TrainingSummary>) -> impl IntoView {
    view! {
        <div class="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <table class="w-full text-left text-sm">
                <thead class="border-b border-slate-200 text-slate-500 dark:border-slate-800 dark:text-slate-400">
                    <tr>
                        <th scope="col" class="px-4 py-2 font-medium">"Name"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Project"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Phase"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Created by"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Created"</th>
                    </tr>
                </thead>
                <tbody>
                    {list
                        .into_iter()
                        .map(|t| {
                            view! {
                                <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                                    <td class="px-4 py-2 font-medium">{t.name}</td>
                                    <td class="px-4 py-2">{t.project}</td>
                                    <td class="px-4 py-2"><PhaseBadge phase=t.actual_phase /></td>
                                    <td class="px-4 py-2">{t.created_by}</td>
                                    <td class="px-4 py-2"><Timestamp rfc3339=t.created_at /></td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}
