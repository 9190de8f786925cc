//! Projects: each one a namespace and a Volcano queue in the cluster, in a department, with its
//! GPU quota, limit and what its workloads use.

use crate::api::list_projects;
use crate::components::loaded::loaded;
use crate::components::relative_time::Timestamp;
use crate::components::table::{Column, Table};
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

const COLUMNS: [Column; 7] = [
    Column::text("Name"),
    Column::text("Department"),
    Column::text("GPUs in use / quota (limit)"),
    Column::text("Namespace"),
    Column::text("Queue"),
    Column::number("Trainings"),
    Column::text("Created"),
];

/// A GPU count without a trailing `.0`.
fn gpus(n: f64) -> String {
    let rounded = (n * 100.0).round() / 100.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded}")
    }
}

/// "3 / 4 (8)", "1 / – (–)", and a bar of the use against the quota (or the limit) that turns
/// amber over the quota.
#[component]
fn GpuUse(in_use: f64, quota: Option<f64>, limit: Option<f64>) -> impl IntoView {
    let text = format!(
        "{} / {} ({})",
        gpus(in_use),
        quota.map_or_else(|| "–".to_owned(), gpus),
        limit.map_or_else(|| "no limit".to_owned(), gpus)
    );
    let scale = quota.filter(|q| *q > 0.0).or(limit.filter(|l| *l > 0.0));
    let bar = scale.map(|scale| {
        let percent = (in_use / scale * 100.0).clamp(0.0, 100.0);
        let over = quota.is_some_and(|q| in_use > q);
        let colour = if over { "bg-amber-500" } else { "bg-sky-600" };
        view! {
            <div class="mt-1 h-1.5 w-32 rounded-md bg-slate-200 dark:bg-slate-700" aria-hidden="true">
                <div class=format!("h-1.5 rounded-md {colour}") style=format!("width: {percent:.0}%")></div>
            </div>
        }
    });
    view! {
        <span class="tabular-nums">{text}</span>
        {bar}
    }
}

#[component]
fn ProjectTable(list: Vec<ProjectSummary>) -> impl IntoView {
    view! {
        <Table testid="projects-table" columns=&COLUMNS>
            {list
                .into_iter()
                .map(|p| {
                    view! {
                        <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                            <td class="px-4 py-2 font-medium">{p.name}</td>
                            <td class="px-4 py-2">{p.department}</td>
                            <td class="px-4 py-2" data-testid="gpu-use">
                                <GpuUse in_use=p.gpus_in_use quota=p.gpu_quota limit=p.gpu_limit />
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
