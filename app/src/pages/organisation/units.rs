//! Departments and projects: the tables, and a form for each that creates one or sets its GPU
//! share in a node pool. The server renders them; the browser reads them again after a save.

use super::form::{CELL, FIELD, LABEL, Outcome, ROW, ServerForm};
use super::shares;
use crate::api::{DeleteProject, SaveDepartment, SaveProject};
use crate::components::style::{CARD_CLASS, PRIMARY_BUTTON_CLASS, ROW_DANGER_BUTTON_CLASS};
use crate::components::table::{Column, Table};
use crate::components::usage::Usage;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use tephra_core::model::org::{DEFAULT_PROJECT, Organisation, SchedulingRules, gpu_totals};

/// The tables and the choices that follow what is stored, read again after each save.
pub(super) const DEPARTMENTS_ID: &str = "org-departments";
pub(super) const PROJECTS_ID: &str = "org-projects";
pub(super) const PROJECT_DEPARTMENT_ID: &str = "project-department";

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

#[component]
pub(super) fn Departments(org: Organisation) -> impl IntoView {
    view! {
        <section class=format!("mb-6 {CARD_CLASS}") aria-labelledby="departments-heading">
            <h2 id="departments-heading" class="mb-3 font-semibold">"Departments"</h2>
            <div id=DEPARTMENTS_ID><DepartmentTable org /></div>
            <h3 class="mt-4 text-sm font-semibold">"Create a department or set its quota"</h3>
            <ServerForm action=SaveDepartment::PATH outcome="department-outcome" done="Saved." testid="department-form" class="mt-2 grid gap-3 sm:grid-cols-6 sm:items-end">
                <label class=LABEL>
                    "Name"
                    <input id="department-name" name="name" required class=FIELD />
                </label>
                <QuotaInputs prefix="department" />
                <button type="submit" class=PRIMARY_BUTTON_CLASS>"Save department"</button>
            </ServerForm>
            <Outcome id="department-outcome" />
        </section>
    }
}

#[component]
pub(super) fn Projects(org: Organisation) -> impl IntoView {
    let departments: Vec<String> = org.departments.iter().map(|d| d.name.clone()).collect();
    view! {
        <section class=format!("mb-6 {CARD_CLASS}") aria-labelledby="projects-heading">
            <h2 id="projects-heading" class="mb-3 font-semibold">"Projects"</h2>
            <div id=PROJECTS_ID><ProjectTable org /></div>
            <Outcome id="project-delete-outcome" />
            <h3 class="mt-4 text-sm font-semibold">"Create a project or set its quota"</h3>
            <ProjectForm departments />
            <Outcome id="project-outcome" />
        </section>
    }
}

/// The form that creates a project or sets its GPU share in a node pool.
#[component]
fn ProjectForm(departments: Vec<String>) -> impl IntoView {
    view! {
        <ServerForm action=SaveProject::PATH outcome="project-outcome" done="Saved." testid="project-form" class="mt-2 grid gap-3 sm:grid-cols-4 sm:items-start">
            <label class=LABEL>
                "Name"
                <input id="project-name" name="name" required class=FIELD />
            </label>
            <label class=LABEL>
                "Department"
                // Read again after a save, so a department created here can be chosen at once.
                <select id=PROJECT_DEPARTMENT_ID name="department" class=FIELD>
                    {departments
                        .into_iter()
                        .map(|name| view! { <option value=name.clone()>{name.clone()}</option> })
                        .collect_view()}
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
        </ServerForm>
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
fn ProjectTable(org: Organisation) -> impl IntoView {
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
                                <ServerForm action=DeleteProject::PATH outcome="project-delete-outcome" done="Deleted.">
                                    <input type="hidden" name="name" value=name.clone() />
                                    <button type="submit" data-testid=format!("delete-{name}") class=ROW_DANGER_BUTTON_CLASS>
                                        "Delete"
                                    </button>
                                </ServerForm>
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
