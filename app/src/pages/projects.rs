//! Projects: each one a namespace and a Volcano queue in the cluster, in a department, with its
//! GPU quota, limit and what its workloads use.

use crate::api::list_projects;
use crate::components::loaded::loaded;
use crate::components::relative_time::Timestamp;
use crate::components::style::LINK_CLASS;
use crate::components::table::{Column, Table};
use crate::components::usage::Usage;
use leptos::prelude::*;
use leptos_meta::Title;
use tephra_core::model::project::ProjectSummary;

#[component]
pub fn ProjectsPage() -> impl IntoView {
    let projects = Resource::new(|| (), |_| list_projects());
    view! {
        <Title text="Projects" />
        <h1 class="mb-6 text-2xl font-semibold tracking-tight">"Projects"</h1>
        {loaded(projects, |list| view! { <ProjectTable list /> })}
    }
}

const COLUMNS: [Column; 7] = [
    Column::text("Name"),
    Column::text("Department"),
    Column::text("GPUs in use / quota (limit)"),
    Column::text("Namespace"),
    Column::text("Queue"),
    Column::number("Trainings"),
    Column::text("Created"),
];

#[component]
fn ProjectTable(list: Vec<ProjectSummary>) -> impl IntoView {
    view! {
        <Table testid="projects-table" columns=&COLUMNS>
            {list
                .into_iter()
                .map(|p| {
                    view! {
                        <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                            <td class="px-4 py-2 font-medium">
                                <a href=format!("/projects/{}", p.name) class=LINK_CLASS>{p.name.clone()}</a>
                            </td>
                            <td class="px-4 py-2">{p.department}</td>
                            <td class="px-4 py-2" data-testid="gpu-use">
                                <Usage in_use=p.gpus_in_use quota=p.gpu_quota limit=p.gpu_limit />
                            </td>
                            <td class="px-4 py-2 font-mono text-xs">{p.namespace}</td>
                            <td class="px-4 py-2 font-mono text-xs">{p.queue}</td>
                            <td class="px-4 py-2 text-right tabular-nums">{p.trainings}</td>
                            <td class="px-4 py-2"><Timestamp rfc3339=p.created_at /></td>
                        </tr>
                    }
                })
                .collect_view()}
        </Table>
    }
}
