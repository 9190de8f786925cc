//! Projects: each one a namespace and a Volcano queue in the cluster.

use crate::api::list_projects;
use crate::components::loaded::loaded;
use crate::components::relative_time::Timestamp;
use crate::model::project::ProjectSummary;
use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn ProjectsPage() -> impl IntoView {
    let projects = Resource::new(|| (), |_| list_projects());
    view! {
        <Title text="Projects" />
        <h1 class="mb-6 text-2xl font-semibold tracking-tight">"Projects"</h1>
        {loaded(projects, |list| view! { <ProjectTable list /> })}
    }
}

#[component]
fn ProjectTable(list: Vec<ProjectSummary>) -> impl IntoView {
    view! {
        <div class="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <table class="w-full text-left text-sm" data-testid="projects-table">
                <thead class="border-b border-slate-200 text-slate-500 dark:border-slate-800 dark:text-slate-400">
                    <tr>
                        <th scope="col" class="px-4 py-2 font-medium">"Name"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Namespace"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Queue"</th>
                        <th scope="col" class="px-4 py-2 text-right font-medium">"Trainings"</th>
                        <th scope="col" class="px-4 py-2 font-medium">"Created"</th>
                    </tr>
                </thead>
                <tbody>
                    {list
                        .into_iter()
                        .map(|p| {
                            view! {
                                <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                                    <td class="px-4 py-2 font-medium">{p.name}</td>
                                    <td class="px-4 py-2 font-mono text-xs">{p.namespace}</td>
                                    <td class="px-4 py-2 font-mono text-xs">{p.queue}</td>
                                    <td class="px-4 py-2 text-right tabular-nums">{p.trainings}</td>
                                    <td class="px-4 py-2"><Timestamp rfc3339=p.created_at /></td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}
