//! The filter form above the list: a plain GET form, so the filters live in the URL.

use crate::components::form::INPUT_CLASS;
use crate::components::style::{BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use leptos::prelude::*;
use tephra_core::model::phase::Phase;
use tephra_core::model::project::ProjectSummary;
use tephra_core::model::workload::WorkloadQuery;

/// Whether `q` narrows the list (sorting and paging do not).
pub(super) fn is_filtered(q: &WorkloadQuery) -> bool {
    q.project_id.is_some() || q.phase.is_some() || q.created_by.is_some() || q.name.is_some()
}

/// A GET form: the filters become the URL. Rendered on the server; it needs no script.
#[component]
pub(super) fn Filters(q: WorkloadQuery, projects: Vec<ProjectSummary>) -> impl IntoView {
    let filtered = is_filtered(&q);
    let project = q.project_id.clone();
    let phase = q.phase.clone();
    view! {
        <form method="GET" action="/trainings" class="mb-4 flex flex-wrap items-end gap-3" aria-label="Filter trainings">
            <Filter label="Name contains" id="filter-name">
                <input
                    id="filter-name"
                    name="name"
                    type="search"
                    class=INPUT_CLASS
                    value=q.name.clone().unwrap_or_default()
                />
            </Filter>
            <Filter label="Project" id="filter-project">
                <select id="filter-project" name="projectId" class=INPUT_CLASS>
                    <option value="">"All projects"</option>
                    {projects
                        .into_iter()
                        .map(|p| {
                            let selected = project.as_deref() == Some(p.name.as_str())
                                || project.as_deref() == Some(p.id.as_str());
                            view! { <option value=p.name.clone() selected=selected>{p.name.clone()}</option> }
                        })
                        .collect_view()}
                </select>
            </Filter>
            <Filter label="Phase" id="filter-phase">
                <select id="filter-phase" name="phase" class=INPUT_CLASS>
                    <option value="">"Any phase"</option>
                    {Phase::ALL
                        .into_iter()
                        .map(|p| {
                            view! {
                                <option value=p.as_str() selected=phase.as_deref() == Some(p.as_str())>
                                    {p.as_str()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </Filter>
            <Filter label="Created by" id="filter-creator">
                <input
                    id="filter-creator"
                    name="createdBy"
                    type="text"
                    class=INPUT_CLASS
                    value=q.created_by.clone().unwrap_or_default()
                />
            </Filter>
            <input type="hidden" name="sortBy" value=q.sort_by.clone().unwrap_or_default() />
            <input type="hidden" name="sortOrder" value=q.sort_order.clone().unwrap_or_default() />
            <button type="submit" class=SECONDARY_BUTTON_CLASS>
                "Apply"
            </button>
            {filtered.then(|| view! {
                <a href="/trainings" class=format!("{BUTTON_CLASS} text-indigo-700 underline dark:text-indigo-300")>
                    "Clear filters"
                </a>
            })}
        </form>
    }
}

/// A labelled control of the filter form.
#[component]
fn Filter(label: &'static str, id: &'static str, children: Children) -> impl IntoView {
    view! {
        <div class="flex flex-col gap-1">
            <label for=id class="text-xs font-medium text-slate-600 dark:text-slate-300">
                {label}
            </label>
            {children()}
        </div>
    }
}
