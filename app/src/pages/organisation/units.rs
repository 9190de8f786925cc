//! Departments and projects: the tables, and a form for each that creates one or sets its GPU
//! share in a node pool. The tables follow every save and delete.

use super::form::{CELL, FIELD, LABEL, ROW, outcome};
use super::members::Members;
use super::policy::{PolicyEditor, Scopes};
use super::{Refusal, shares};
use crate::api::{
    AddMember, DeleteProject, RemoveMember, SaveDepartment, SaveProject, get_organisation,
};
use crate::components::style::{CARD_CLASS, PRIMARY_BUTTON_CLASS, ROW_DANGER_BUTTON_CLASS};
use crate::components::table::{Column, Table};
use crate::components::usage::Usage;
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::org::{DEFAULT_PROJECT, Organisation, SchedulingRules, gpu_totals};

const DEPARTMENT_COLUMNS: [Column; 4] = [
    Column::text("Name"),
    Column::text("GPUs in use / quota (limit)"),
    Column::text("GPUs per pool: quota (limit)"),
    Column::text("Queue"),
];

const PROJECT_COLUMNS: [Column; 6] = [
    Column::text("Name"),
    Column::text("Department"),
    Column::text("GPUs per pool: quota (limit)"),
    Column::text("Idle GPU timeout"),
    Column::number("Workloads"),
    Column::text(""),
];

/// The quota inputs both forms share, posted as `quota[...]`.
#[component]
fn QuotaInputs(prefix: &'static str) -> impl IntoView {
    view! {
        <label class=LABEL>
            "Node pool"
            <input id=format!("{prefix}-pool") name="quota[pool]" value="default" class=FIELD />
        </label>
        <label class=LABEL>
            "GPU quota"
            <input id=format!("{prefix}-gpu-quota") name="quota[gpu_quota]" inputmode="decimal" placeholder="none" class=FIELD />
        </label>
        <label class=LABEL>
            "GPU limit"
            <input id=format!("{prefix}-gpu-limit") name="quota[gpu_limit]" inputmode="decimal" placeholder="none" class=FIELD />
        </label>
        <label class=LABEL>
            "Over-quota weight"
            <input id=format!("{prefix}-weight") name="quota[over_quota_weight]" inputmode="numeric" placeholder="1" class=FIELD />
        </label>
    }
}

/// The page's one island: the tables, their forms and the policy editor share what the server
/// last said about the organisation.
#[island(lazy)]
pub fn Units(org: Organisation) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let save_department = ServerAction::<SaveDepartment>::new();
    let save_project = ServerAction::<SaveProject>::new();
    let delete = ServerAction::<DeleteProject>::new();
    let add_member = ServerAction::<AddMember>::new();
    let remove_member = ServerAction::<RemoveMember>::new();
    let policy = org.system_policy.clone().unwrap_or_default();
    let org = RwSignal::new(Ok::<_, AppError>(org));
    Effect::new(move |_| {
        let changes = save_department.version().get()
            + save_project.version().get()
            + delete.version().get()
            + add_member.version().get()
            + remove_member.version().get();
        if changes > 0 {
            leptos::task::spawn_local(async move { org.set(get_organisation().await) });
        }
    });
    view! {
        <section class=format!("mb-6 {CARD_CLASS}") aria-labelledby="departments-heading">
            <h2 id="departments-heading" class="mb-3 font-semibold">"Departments"</h2>
            {move || match org.get() {
                Ok(org) => Either::Left(view! { <DepartmentTable org /> }),
                Err(error) => Either::Right(view! { <Refusal error /> }),
            }}
            <h3 class="mt-4 text-sm font-semibold">"Create a department or set its quota"</h3>
            <ActionForm action=save_department attr:class="mt-2 grid gap-3 sm:grid-cols-6 sm:items-end" attr:data-testid="department-form">
                <label class=LABEL>
                    "Name"
                    <input id="department-name" name="name" required class=FIELD />
                </label>
                <QuotaInputs prefix="department" />
                <button type="submit" class=PRIMARY_BUTTON_CLASS>"Save department"</button>
            </ActionForm>
            {outcome(move || save_department.value().get(), "Saved.")}
        </section>
        <section class=format!("mb-6 {CARD_CLASS}") aria-labelledby="projects-heading">
            <h2 id="projects-heading" class="mb-3 font-semibold">"Projects"</h2>
            {move || match org.get() {
                Ok(org) => Either::Left(view! { <ProjectTable org delete /> }),
                Err(error) => Either::Right(view! { <Refusal error /> }),
            }}
            {outcome(move || delete.value().get(), "Deleted.")}
            <h3 class="mt-4 text-sm font-semibold">"Create a project or set its quota"</h3>
            <ProjectForm org save_project />
            {outcome(move || save_project.value().get(), "Saved.")}
        </section>
        <Members org add=add_member remove=remove_member />
        <PolicyEditor policy scopes=Signal::derive(move || {
            org.with(|o| o.as_ref().map(Scopes::of).unwrap_or_default())
        }) />
    }
}

/// The form that creates a project or sets its GPU share in a node pool.
#[component]
fn ProjectForm(
    org: RwSignal<Result<Organisation, AppError>>,
    save_project: ServerAction<SaveProject>,
) -> impl IntoView {
    view! {
        <ActionForm action=save_project attr:class="mt-2 grid gap-3 sm:grid-cols-4 sm:items-start" attr:data-testid="project-form">
            <label class=LABEL>
                "Name"
                <input id="project-name" name="name" required class=FIELD />
            </label>
            <label class=LABEL>
                "Department"
                <select id="project-department" name="department" class=FIELD>
                    // Follows the table, so a department created here can be chosen at once.
                    {move || {
                        let names: Vec<String> = org.with(|o| {
                            o.as_ref()
                                .map(|o| o.departments.iter().map(|d| d.name.clone()).collect())
                                .unwrap_or_default()
                        });
                        names
                            .into_iter()
                            .map(|name| view! { <option value=name.clone()>{name.clone()}</option> })
                            .collect_view()
                    }}
                </select>
            </label>
            <QuotaInputs prefix="project" />
            <div>
                <label class=format!("block {LABEL}")>
                    "Idle GPU timeout (minutes)"
                    <input id="project-idle-minutes" name="idle_minutes" inputmode="numeric" placeholder="none" aria-describedby="project-idle-hint" class=FIELD />
                </label>
                <p id="project-idle-hint" class="mt-1 text-xs text-slate-600 dark:text-slate-400">
                    "Trainings whose GPUs stay idle this long are suspended"
                </p>
            </div>
            <button type="submit" class=format!("sm:mt-6 {PRIMARY_BUTTON_CLASS}")>"Save project"</button>
        </ActionForm>
    }
}

#[component]
fn DepartmentTable(org: Organisation) -> impl IntoView {
    view! {
        <Table testid="departments-table" columns=&DEPARTMENT_COLUMNS>
            {org.departments.into_iter().map(|d| {
                let (quota, limit) = gpu_totals(&d.resources);
                let in_use = org.department_gpus.get(&d.name).copied().unwrap_or(0.0);
                view! {
                <tr class=ROW>
                    <td class=format!("{CELL} font-medium")>{d.name}</td>
                    <td class=CELL data-testid="department-gpu-use"><Usage in_use quota limit /></td>
                    <td class=CELL>{shares(&d.resources)}</td>
                    <td class=format!("{CELL} font-mono text-xs")>{d.queue}</td>
                </tr>
            }}).collect_view()}
        </Table>
    }
}

#[component]
fn ProjectTable(org: Organisation, delete: ServerAction<DeleteProject>) -> impl IntoView {
    view! {
        <Table testid="projects-admin-table" columns=&PROJECT_COLUMNS>
            {org.projects.into_iter().map(|p| {
                let name = p.name.clone();
                // Scripts and the form fall back to it: kept, so no Delete.
                let deletable = name != DEFAULT_PROJECT;
                view! {
                    <tr class=ROW>
                        <td class=format!("{CELL} font-medium")>{p.name}</td>
                        <td class=CELL>{p.parent_name}</td>
                        <td class=CELL>{shares(&p.resources)}</td>
                        <td class=CELL>{idle_timeout(p.scheduling_rules)}</td>
                        <td class=format!("{CELL} text-right tabular-nums")>{p.workloads}</td>
                        <td class=CELL>
                            {deletable.then(|| view! {
                                <ActionForm action=delete>
                                    <input type="hidden" name="name" value=name.clone() />
                                    <button type="submit" data-testid=format!("delete-{name}") class=ROW_DANGER_BUTTON_CLASS>
                                        "Delete"
                                    </button>
                                </ActionForm>
                            })}
                        </td>
                    </tr>
                }
            }).collect_view()}
        </Table>
    }
}

/// "30 min" (or "90 s"), or "none" when trainings are never suspended for idling.
fn idle_timeout(rules: Option<SchedulingRules>) -> String {
    // The API takes seconds; the form, minutes.
    match rules.and_then(|r| r.training_job_max_idle_duration_seconds) {
        Some(seconds) if seconds % 60 == 0 => format!("{} min", seconds / 60),
        Some(seconds) => format!("{seconds} s"),
        None => "none".to_owned(),
    }
}
