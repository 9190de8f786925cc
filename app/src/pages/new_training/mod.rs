//! The new-training form: every part of the request in sections, one file each, checked as you
//! type by the same validator the API runs, with the exact Volcano Job YAML one click away.
//! "Clone" opens it prefilled (`?from=<id>`); a submit without JavaScript comes back here with
//! what was typed and the server's answer (`?draft=...&error=...`).
//!
//! Every field is bound to the request by its path (see `components::form`), so a new request
//! field is one line in the section that shows it.

mod compute;
mod distributed;
mod fit;
mod fix;
mod general;
mod generic;
mod lifecycle;
mod preview;
mod scheduling;
mod security;
mod storage;

use crate::api::{clone_workload, form_policy, list_projects, submit_training};
use crate::components::form::{FormState, field_id, use_form};
use crate::components::loaded::loaded;
use crate::components::style::{PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use crate::components::toast::use_toasts;
use crate::draft::Draft;
use crate::draft::posted::DOCUMENT;
use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use tephra_core::model::policy::FormHints;
use tephra_core::model::project::ProjectSummary;
use tephra_core::model::training::NAME_MAX;
use tephra_core::model::validation::FieldError;

const FIELDSET_CLASS: &str =
    "rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900";
const LEGEND_CLASS: &str = "px-1 text-lg font-semibold";
const GRID_CLASS: &str = "mt-2 grid gap-4 md:grid-cols-2";

/// Where the form starts from.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Start {
    draft: Draft,
    /// What the policies of the draft's project show beside each field.
    policy: FormHints,
    errors: Vec<FieldError>,
    /// An error from a submit without JavaScript that no field can show.
    problem: Option<String>,
    cloned_from: Option<String>,
    /// Filled in from the page's address (`?draft=`): what it would run and reach, to check.
    from_link: Option<Vec<String>>,
}

impl Start {
    fn fresh(draft: Draft) -> Start {
        Start {
            draft,
            policy: FormHints::default(),
            errors: Vec::new(),
            problem: None,
            cloned_from: None,
            from_link: None,
        }
    }
}

async fn start(
    from: Option<String>,
    posted: Option<String>,
    error: Option<String>,
    project: Option<String>,
    fix: Option<String>,
) -> Result<(Start, Vec<ProjectSummary>, Vec<fix::Applied>), AppError> {
    let projects = list_projects().await?;
    let default_project = project
        .or_else(|| {
            projects
                .iter()
                .find(|p| p.name == "default")
                .map(|p| p.name.clone())
        })
        .or_else(|| projects.first().map(|p| p.name.clone()))
        .unwrap_or_default();
    let (mut start, projects) = start_from(from, posted, error, default_project, projects).await?;
    let mut applied = Vec::new();
    // A fix applies to a clone of the failed training only.
    if let Some(fix) = fix.filter(|_| start.cloned_from.is_some()) {
        match fix.parse() {
            Ok(fix) => applied = fix::apply(&mut start.draft, &fix),
            Err(why) => {
                start.problem = Some(format!("the fix in the address is unreadable: {why}"))
            }
        }
    }
    // A project the user cannot see has no policy to show; submitting names the problem.
    let project = start.draft.project();
    let policy = form_policy(project).await.unwrap_or_default();
    let mut start = Start { policy, ..start };
    if start.cloned_from.is_none() && start.errors.is_empty() && start.problem.is_none() {
        // A new training starts from the policy's defaults, as the server would fill them.
        start
            .draft
            .fill_defaults(start.policy.policy().layers(false));
    }
    Ok((start, projects, applied))
}

async fn start_from(
    from: Option<String>,
    posted: Option<String>,
    error: Option<String>,
    default_project: String,
    projects: Vec<ProjectSummary>,
) -> Result<(Start, Vec<ProjectSummary>), AppError> {
    if let Some(posted) = posted {
        let draft = serde_json::from_str(&posted).unwrap_or_else(|_| Draft::new(&default_project));
        let error: Option<AppError> = error.and_then(|e| serde_json::from_str(&e).ok());
        let errors = error
            .as_ref()
            .map(AppError::field_errors)
            .unwrap_or_default();
        let problem = error
            .filter(|e| e.field_errors().is_empty())
            .map(|e| e.to_string());
        let start = Start {
            errors,
            problem,
            from_link: Some(draft.carried()),
            ..Start::fresh(draft)
        };
        return Ok((start, projects));
    }
    if let Some(id) = from {
        let mut draft = clone_workload(id).await?;
        let original = draft.name();
        let copy = format!("{original}-copy");
        if copy.len() <= NAME_MAX {
            draft.set_name(&copy);
        }
        let start = Start {
            cloned_from: Some(original),
            ..Start::fresh(draft)
        };
        return Ok((start, projects));
    }
    Ok((Start::fresh(Draft::new(&default_project)), projects))
}

#[component]
pub fn NewTrainingPage() -> impl IntoView {
    let params = use_query_map();
    let start = Resource::new(
        move || {
            params.with(|p| {
                (
                    p.get("from"),
                    p.get("draft"),
                    p.get("error"),
                    p.get("project"),
                    p.get("fix"),
                )
            })
        },
        |(from, posted, error, project, fix)| start(from, posted, error, project, fix),
    );
    view! {
        <Title text="New training" />
        <h1 class="mb-2 text-2xl font-semibold tracking-tight">"New training"</h1>
        <p class="mb-6 text-sm text-slate-600 dark:text-slate-300">
            "Fields marked * are required. Each field is checked as you type, with the same rules the API applies."
        </p>
        {loaded(start, |(start, projects, applied)| {
            // The island gets only what the project field shows: a summary's decoder would
            // weigh on the form's script.
            let projects: Vec<(String, String)> = projects
                .into_iter()
                .map(|p| (p.name.clone(), format!("{} (queue {})", p.name, p.queue)))
                .collect();
            view! {
                <fix::FixApplied applied />
                <TrainingForm start projects />
            }
        })}
    }
}

/// The whole form is one island: every section reads and writes the same draft, and the
/// validator runs in the browser as you type.
#[island(lazy)]
fn TrainingForm(start: Start, projects: Vec<(String, String)>) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let bounced = !start.errors.is_empty() || start.problem.is_some();
    // What no field shows is posted back with the fields when there is no JavaScript.
    let document = serde_json::to_string(&start.draft).unwrap_or_default();
    let form = FormState::new(start.draft, start.policy, start.errors, bounced);
    provide_context(form);
    follow_project_policy(form);
    let toasts = use_toasts();
    let summary_ref = NodeRef::<leptos::html::Div>::new();

    let submit = Action::new(|draft: &Draft| submit_training(draft.clone()));
    Effect::new(move |_| match submit.value().get() {
        Some(Ok(workload)) => {
            toasts.success_on_next_page(&format!("submitted {}", workload.name));
            crate::components::navigate::to(&format!("/trainings/{}", workload.workload_id));
        }
        Some(Err(error)) => {
            form.server_errors.set(error.field_errors());
            toasts.error(format!("the training was not submitted: {error}"));
        }
        None => {}
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        form.submitted.set(true);
        let draft = form.draft.get_untracked();
        leptos::task::spawn_local(async move {
            // The answer about this very draft, not one still on its way about an older one.
            if form.check(draft.clone()).await.is_empty() {
                submit.dispatch(draft);
            } else if let Some(summary) = summary_ref.get_untracked() {
                let _ = summary.focus();
            }
        });
    };
    let submitting = submit.pending();

    view! {
        {start.cloned_from.map(|name| view! {
            <p class="mb-4 rounded-md border border-sky-300 bg-sky-50 p-3 text-sm dark:border-sky-700 dark:bg-sky-950" data-testid="cloned-from">
                "A copy of " <span class="font-medium">{name}</span> ". Change what you need and submit."
                {move || {
                    let keys = form.draft.with(Draft::unshown_keys);
                    (!keys.is_empty()).then(|| format!(" It also keeps settings this form does not show: {}.", keys.join(", ")))
                }}
            </p>
        })}
        {start.from_link.map(|lines| view! { <FromLink lines /> })}
        {start.problem.map(|problem| view! {
            <p role="alert" class="mb-4 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
                {problem}
            </p>
        })}
        <div class="grid gap-6 xl:grid-cols-[minmax(0,1fr)_28rem]">
            <form
                method="post"
                action="/api/fn/submit_training_form"
                novalidate=true
                class="flex flex-col gap-6"
                on:submit=on_submit
                data-testid="training-form"
            >
                <ErrorSummary summary_ref />
                <general::General projects />
                <compute::ComputeSection />
                <storage::StorageSection />
                <security::SecuritySection />
                <scheduling::Scheduling />
                <distributed::Distributed />
                <generic::Generic />
                <lifecycle::Lifecycle />
                <input type="hidden" name=format!("draft[{DOCUMENT}]") value=document />
                <div class="flex items-center gap-3">
                    <button type="submit" class=PRIMARY_BUTTON_CLASS disabled=move || submitting.get() data-testid="submit">
                        {move || if submitting.get() { "Submitting…" } else { "Submit training" }}
                    </button>
                    <a href="/trainings" class=SECONDARY_BUTTON_CLASS>"Cancel"</a>
                </div>
            </form>
            <div class="flex flex-col gap-4 self-start xl:sticky xl:top-4">
                <fit::FitNow />
                <preview::Preview />
            </div>
        </div>
    }
}

/// A form filled in from its address: anyone can send a link that fills in any request, so the
/// reader is told, and shown what it would run and reach, before they submit it.
#[component]
fn FromLink(lines: Vec<String>) -> impl IntoView {
    view! {
        <section aria-label="Filled in from a link" class="mb-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950" data-testid="from-link">
            <p class="font-medium">
                "This form was filled in from its address: a link someone sent, or your own submit coming back. Check it before you submit. As it stands, it:"
            </p>
            <ul class="mt-1 list-disc pl-5">
                {lines.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
            </ul>
        </section>
    }
}

/// When the draft moves to another project, the form takes on that project's policies.
fn follow_project_policy(form: FormState) {
    let shown_for = StoredValue::new(form.draft.with_untracked(Draft::project));
    Effect::new(move |_| {
        let project = form.draft.with(Draft::project);
        if shown_for.get_value() == project {
            return;
        }
        shown_for.set_value(project.clone());
        leptos::task::spawn_local(async move {
            let policy = form_policy(project.clone()).await.unwrap_or_default();
            // Only if the draft still names that project when the answer comes.
            if form.draft.with_untracked(Draft::project) == project {
                form.policy.set(policy);
            }
        });
    });
}

/// The list of every problem, shown after a submit attempt, with links to the fields.
#[component]
fn ErrorSummary(summary_ref: NodeRef<leptos::html::Div>) -> impl IntoView {
    let form = use_form();
    let errors = move || {
        if form.submitted.get() {
            form.all_errors()
        } else {
            form.server_errors.get()
        }
    };
    view! {
        <div
            node_ref=summary_ref
            tabindex="-1"
            role="alert"
            class=move || if errors().is_empty() {
                "hidden"
            } else {
                "rounded-lg border border-red-300 bg-red-50 p-4 text-sm text-red-900 focus-visible:outline-2 focus-visible:outline-red-500 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
            }
            data-testid="error-summary"
        >
            <p class="font-semibold">
                {move || {
                    let n = errors().len();
                    format!("{n} field{} to fix before submitting", if n == 1 { "" } else { "s" })
                }}
            </p>
            <ul class="mt-2 list-disc pl-5">
                {move || {
                    errors()
                        .into_iter()
                        .map(|e| view! {
                            <li>
                                <a href=format!("#{}", field_id(&e.path)) class="underline">
                                    <code>{e.path.clone()}</code>
                                </a>
                                ": " {e.message}
                            </li>
                        })
                        .collect_view()
                }}
            </ul>
        </div>
    }
}

/// A section of the form: a fieldset with its legend. Its children keep their type: erased
/// (`Children`), each section would also carry an asynchronous hydration of all its fields,
/// code the form never runs and the linker cannot drop.
#[component]
fn Section<T: IntoView + 'static>(
    title: &'static str,
    children: TypedChildren<T>,
) -> impl IntoView {
    view! {
        <fieldset class=FIELDSET_CLASS>
            <legend class=LEGEND_CLASS>{title}</legend>
            {children.into_inner()()}
        </fieldset>
    }
}

/// A blank row of a list: the keys the API requires, empty, so the validator names them.
fn blank_row(keys: &[String]) -> serde_json::Value {
    serde_json::Value::Object(
        keys.iter()
            .map(|k| (k.clone(), serde_json::Value::String(String::new())))
            .collect(),
    )
}
