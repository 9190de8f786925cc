//! The new-training form: every part of the request in sections, one file each, checked as you
//! type by the same validator the API runs, with the exact Volcano Job YAML one click away.
//! "Clone" opens it prefilled (`?from=<id>`); a submit without JavaScript comes back here with
//! what was typed and the server's answer (`?draft=...&error=...`).
//!
//! Every field is bound to the request by its path (see `components::form`), so a new request
//! field is one line in the section that shows it.
//!
//! The server draws the form, here and each time it changes: the browser posts it as it stands
//! ([`follow`]) and puts the server's drawing in place ([`body`], [`answer`]). The browser
//! carries no copy of the request, its validator or its fields, so the page weighs what a list
//! does; a keystroke costs a round trip, which the page makes after a pause in typing.

#[cfg(feature = "ssr")]
pub mod answer;
mod body;
mod compute;
mod distributed;
mod fit;
mod fix;
mod follow;
mod general;
mod generic;
mod lifecycle;
mod preview;
mod scheduling;
mod security;
mod storage;

use crate::api::{clone_workload, list_projects};
use crate::components::loaded::loaded;
use crate::draft::Draft;
use crate::error::AppError;
use body::{Body, Shown};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use tephra_core::model::training::NAME_MAX;
use tephra_core::model::validation::FieldError;

const FIELDSET_CLASS: &str =
    "rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900";
const LEGEND_CLASS: &str = "px-1 text-lg font-semibold";
const GRID_CLASS: &str = "mt-2 grid gap-4 md:grid-cols-2";

/// Where the form starts from, besides the form itself.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
struct Start {
    cloned_from: Option<String>,
    /// Filled in from the page's address (`?draft=`): what it would run and reach, to check.
    from_link: Option<Vec<String>>,
    /// What no field of the clone shows, and it keeps.
    unshown: Vec<String>,
    applied: Vec<fix::Applied>,
}

/// What the page's address asks for.
#[derive(Clone, PartialEq)]
struct Asked {
    from: Option<String>,
    posted: Option<String>,
    error: Option<String>,
    project: Option<String>,
    fix: Option<String>,
    preview: bool,
}

async fn start(asked: Asked) -> Result<(Start, Body), AppError> {
    let projects = list_projects().await?;
    let default_project = asked
        .project
        .clone()
        .or_else(|| {
            projects
                .iter()
                .find(|p| p.name == "default")
                .map(|p| p.name.clone())
        })
        .or_else(|| projects.first().map(|p| p.name.clone()))
        .unwrap_or_default();
    let (mut start, mut draft, served, problem) = start_from(&asked, default_project).await?;
    // A fix applies to a clone of the failed training only.
    let mut problem = problem;
    if let Some(fix) = asked.fix.filter(|_| start.cloned_from.is_some()) {
        match fix.parse() {
            Ok(fix) => start.applied = fix::apply(&mut draft, &fix),
            Err(why) => problem = Some(format!("the fix in the address is unreadable: {why}")),
        }
    }
    start.unshown = draft.unshown_keys();
    // A new training starts from the policy's defaults, as the server would fill them.
    let fill = start.cloned_from.is_none() && served.is_empty() && problem.is_none();
    let shown = Shown {
        // A submit that came back: every problem shows.
        submitted: !served.is_empty() || problem.is_some(),
        preview: asked.preview,
        ..Shown::default()
    };
    let around = body::Around {
        hints: body::Around::hints(draft.project()).await,
        projects,
    };
    let body = body::body(draft, around, shown, served, problem, fill).await?;
    Ok((start, body))
}

/// The draft, what the server said about it and a problem no field shows.
type Started = (Start, Draft, Vec<FieldError>, Option<String>);

async fn start_from(asked: &Asked, default_project: String) -> Result<Started, AppError> {
    if let Some(posted) = &asked.posted {
        let draft: Draft =
            serde_json::from_str(posted).unwrap_or_else(|_| Draft::new(&default_project));
        let error: Option<AppError> = asked
            .error
            .as_ref()
            .and_then(|e| serde_json::from_str(e).ok());
        let served = error
            .as_ref()
            .map(AppError::field_errors)
            .unwrap_or_default();
        let problem = error
            .filter(|e| e.field_errors().is_empty())
            .map(|e| e.to_string());
        let start = Start {
            from_link: Some(draft.carried()),
            ..Start::default()
        };
        return Ok((start, draft, served, problem));
    }
    if let Some(id) = &asked.from {
        let mut draft = clone_workload(id.clone()).await?;
        let original = draft.name();
        let copy = format!("{original}-copy");
        if copy.len() <= NAME_MAX {
            draft.set_name(&copy);
        }
        let start = Start {
            cloned_from: Some(original),
            ..Start::default()
        };
        return Ok((start, draft, Vec::new(), None));
    }
    let draft = Draft::new(&default_project);
    Ok((Start::default(), draft, Vec::new(), None))
}

#[component]
pub fn NewTrainingPage() -> impl IntoView {
    let params = use_query_map();
    let start = Resource::new(
        move || {
            params.with(|p| Asked {
                from: p.get("from"),
                posted: p.get("draft"),
                error: p.get("error"),
                project: p.get("project"),
                fix: p.get("fix"),
                preview: p.get("preview").is_some(),
            })
        },
        start,
    );
    view! {
        <Title text="New training" />
        <h1 class="mb-2 text-2xl font-semibold tracking-tight">"New training"</h1>
        <p class="mb-6 text-sm text-slate-600 dark:text-slate-300">
            "Fields marked * are required. Each field is checked as you type, with the same rules the API applies."
        </p>
        {loaded(start, |(start, body)| view! {
            <fix::FixApplied applied=start.applied />
            {start.cloned_from.map(|name| view! {
                <p class="mb-4 rounded-md border border-sky-300 bg-sky-50 p-3 text-sm dark:border-sky-700 dark:bg-sky-950" data-testid="cloned-from">
                    "A copy of " <span class="font-medium">{name}</span> ". Change what you need and submit."
                    {(!start.unshown.is_empty()).then(|| format!(" It also keeps settings this form does not show: {}.", start.unshown.join(", ")))}
                </p>
            })}
            {start.from_link.map(|lines| view! { <FromLink lines /> })}
            <body::FormBody body />
            <follow::FormFollow />
        })}
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
