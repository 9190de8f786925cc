//! One project: its quota and limit against what its workloads hold and wait for, per resource,
//! per node pool and per user, for its members and administrators.

use crate::api::project_usage;
use crate::components::loaded::loaded;
use crate::components::style::CARD_CLASS;
use crate::components::table::{Column, Table};
use crate::components::usage::{Usage, figure};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use tephra_core::model::project::ProjectUsage;

#[component]
pub fn ProjectPage() -> impl IntoView {
    let params = use_params_map();
    let name = Memo::new(move |_| params.with(|p| p.get("name").unwrap_or_default()));
    let usage = Resource::new(move || name.get(), project_usage);
    view! {
        <Title text="Project" />
        {loaded(usage, |usage| view! {
            <Title text=usage.project.name.clone() />
            <ProjectUse usage />
        })}
    }
}

const RESOURCE_COLUMNS: [Column; 4] = [
    Column::text("Resource"),
    Column::text("In use / quota (limit)"),
    Column::number("Allocated"),
    Column::number("Pending"),
];

const POOL_COLUMNS: [Column; 2] = [
    Column::text("Node pool"),
    Column::text("GPUs allocated / quota (limit)"),
];

const USER_COLUMNS: [Column; 6] = [
    Column::text("User"),
    Column::number("Trainings"),
    Column::number("GPUs allocated"),
    Column::number("GPUs pending"),
    Column::number("CPU (cores)"),
    Column::number("Memory (GiB)"),
];

const ROW: &str = "border-b border-slate-100 last:border-0 dark:border-slate-800";
const CELL: &str = "px-4 py-2";
const NUMBER: &str = "px-4 py-2 text-right tabular-nums";

#[component]
fn ProjectUse(usage: ProjectUsage) -> impl IntoView {
    let p = usage.project;
    view! {
        <h1 class="mb-1 text-2xl font-semibold tracking-tight" data-testid="project-name">{p.name}</h1>
        <p class="mb-6 text-sm text-slate-600 dark:text-slate-400">
            "Department " {p.department} " · namespace " <code>{p.namespace}</code>
            " · queue " <code>{p.queue}</code> " · " {p.trainings} " training(s)"
        </p>
        <section class=CARD_CLASS aria-labelledby="resources-heading">
            <h2 id="resources-heading" class="mb-1 text-lg font-semibold">"Resources"</h2>
            <p class="mb-3 text-sm text-slate-600 dark:text-slate-400">
                "Allocated: workloads whose pods are placed. Pending: admitted, waiting for the scheduler. Beyond the quota, work runs over quota and Volcano may take it back."
            </p>
            <Table testid="project-resources" columns=&RESOURCE_COLUMNS in_card=true>
                {usage.resources.into_iter().map(|r| view! {
                    <tr class=ROW>
                        <td class=CELL>{r.resource}</td>
                        <td class=CELL><Usage in_use=r.allocated + r.pending quota=r.quota limit=r.limit /></td>
                        <td class=NUMBER>{figure(r.allocated)}</td>
                        <td class=NUMBER>{figure(r.pending)}</td>
                    </tr>
                }).collect_view()}
            </Table>
        </section>
        <section class=format!("{CARD_CLASS} mt-6") aria-labelledby="pools-heading">
            <h2 id="pools-heading" class="mb-3 text-lg font-semibold">"Node pools"</h2>
            {if usage.pools.is_empty() {
                view! { <p class="text-sm text-slate-600 dark:text-slate-400" data-testid="project-pools-empty">"No share in any node pool, and no GPUs held: the project has no quota, and its work runs over quota wherever it fits."</p> }.into_any()
            } else {
                view! {
                    <Table testid="project-pools" columns=&POOL_COLUMNS in_card=true>
                        {usage.pools.into_iter().map(|pool| view! {
                            <tr class=ROW>
                                <td class=CELL>{pool.pool}</td>
                                <td class=CELL><Usage in_use=pool.allocated_gpus quota=pool.gpu_quota limit=pool.gpu_limit /></td>
                            </tr>
                        }).collect_view()}
                    </Table>
                }.into_any()
            }}
        </section>
        <section class=format!("{CARD_CLASS} mt-6") aria-labelledby="users-heading">
            <h2 id="users-heading" class="mb-3 text-lg font-semibold">"By user"</h2>
            {if usage.users.is_empty() {
                view! { <p class="text-sm text-slate-600 dark:text-slate-400" data-testid="project-users-empty">"Nobody has a training that may run in this project."</p> }.into_any()
            } else {
                view! {
                    <Table testid="project-users" columns=&USER_COLUMNS in_card=true>
                        {usage.users.into_iter().map(|u| view! {
                            <tr class=ROW>
                                <td class=CELL>{u.user}</td>
                                <td class=NUMBER>{u.trainings}</td>
                                <td class=NUMBER>{figure(u.allocated_gpus)}</td>
                                <td class=NUMBER>{figure(u.pending_gpus)}</td>
                                <td class=NUMBER>{figure(u.cpu_cores)}</td>
                                <td class=NUMBER>{figure(u.memory_gib)}</td>
                            </tr>
                        }).collect_view()}
                    </Table>
                }.into_any()
            }}
        </section>
    }
}
