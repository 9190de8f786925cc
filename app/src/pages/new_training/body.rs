//! The form's region: every section, the error summary, "will it fit now?" and the preview, drawn
//! by the server from a draft and how it is shown. The page draws it once; each change draws it
//! again ([`super::answer`]) and the browser puts it in place ([`super::follow`]).

use super::{compute, distributed, fit, general, generic, lifecycle, preview, scheduling};
use super::{security, storage};
use crate::api::SubmitTrainingForm;
use crate::components::form::{Drawn, FormState, field_id, use_form};
use crate::components::style::{PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use crate::draft::Draft;
use crate::draft::posted::{DOCUMENT, PREVIEW, SERVED, SUBMITTED};
use crate::error::AppError;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use std::collections::HashSet;
use tephra_core::model::fit::FitShown;
use tephra_core::model::policy::FormHints;
use tephra_core::model::project::ProjectSummary;
use tephra_core::model::validation::FieldError;

/// The id of the region the browser puts in place.
pub const REGION_ID: &str = "training-form-region";
/// The id of the form itself.
pub const FORM_ID: &str = "training-form";
/// The id of the list of every problem.
pub const SUMMARY_ID: &str = "error-summary";

/// How the form is shown, besides the draft: posted along with it.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Shown {
    /// The paths of the fields edited so far.
    pub touched: HashSet<String>,
    pub submitted: bool,
    pub preview: bool,
    /// The volume kind chosen to add.
    pub volume: Option<String>,
}

/// Everything the region is drawn from.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Body {
    drawn: Drawn,
    /// Each project's name and how the choice reads.
    projects: Vec<(String, String)>,
    fit: Result<FitShown, AppError>,
    /// The preview, when it is open.
    preview: Option<Result<String, AppError>>,
    /// What no field shows: why the last submit was refused.
    problem: Option<String>,
}

/// What the region is drawn around besides the draft: the projects the user may choose and the
/// chosen project's policy. Each drawing asks for them once, whoever needs them first.
pub struct Around {
    pub projects: Vec<ProjectSummary>,
    pub hints: FormHints,
}

impl Around {
    /// The projects, and the policy of `project`.
    #[cfg(feature = "ssr")]
    pub async fn ask(project: String) -> Result<Around, AppError> {
        let projects = crate::api::list_projects().await?;
        Ok(Around {
            projects,
            hints: Around::hints(project).await,
        })
    }

    /// The policy of `project`. A project the user cannot see has no policy to show;
    /// submitting names the problem.
    pub async fn hints(project: String) -> FormHints {
        crate::api::form_policy(project).await.unwrap_or_default()
    }
}

/// Asks the server (the same calls as the API's) what the region shows about `draft`, drawn
/// around `around` (asked for `draft`'s project). `fill`: start a new training from its
/// project's defaults.
pub async fn body(
    mut draft: Draft,
    around: Around,
    shown: Shown,
    served: Vec<FieldError>,
    problem: Option<String>,
    fill: bool,
) -> Result<Body, AppError> {
    use crate::api::{fit_training, preview_training};
    let Around { projects, hints } = around;
    let projects = projects
        .into_iter()
        .map(|p| (p.name.clone(), format!("{} (queue {})", p.name, p.queue)))
        .collect();
    if fill {
        draft.fill_defaults(hints.policy().layers(false));
    }
    let errors = crate::components::form::check(&draft, &hints);
    let fit = fit_training(draft.clone()).await;
    let preview = match shown.preview {
        true => Some(preview_training(draft.clone()).await),
        false => None,
    };
    Ok(Body {
        drawn: Drawn {
            draft,
            hints,
            errors,
            served,
            touched: shown.touched,
            submitted: shown.submitted,
            volume: shown.volume,
        },
        projects,
        fit,
        preview,
        problem,
    })
}

#[component]
pub fn FormBody(body: Body) -> impl IntoView {
    let Body {
        drawn,
        projects,
        fit,
        preview,
        problem,
    } = body;
    let submitted = drawn.submitted;
    let form = FormState::new(drawn);
    provide_context(form);
    // What no field shows is posted back with the fields.
    let document = form
        .draft
        .with_untracked(|d| serde_json::to_string(d).unwrap_or_default());
    let served = form.served();
    let served = (!served.is_empty()).then(|| serde_json::to_string(&served).unwrap_or_default());
    let hidden = |name: &str, value: String| {
        view! { <input type="hidden" name=format!("draft[{name}]") value=value /> }
    };
    view! {
        <div id=REGION_ID class="grid gap-6 xl:grid-cols-[minmax(0,1fr)_28rem]">
            <form
                id=FORM_ID
                method="post"
                action=SubmitTrainingForm::PATH
                novalidate=true
                class="flex flex-col gap-6"
                data-testid="training-form"
            >
                {problem.map(|problem| view! {
                    <p role="alert" class="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200" data-testid="form-problem">
                        {problem}
                    </p>
                })}
                <ErrorSummary />
                <general::General projects />
                <compute::ComputeSection />
                <storage::StorageSection />
                <security::SecuritySection />
                <scheduling::Scheduling />
                <distributed::Distributed />
                <generic::Generic />
                <lifecycle::Lifecycle />
                {hidden(DOCUMENT, document)}
                {served.map(|served| hidden(SERVED, served))}
                {submitted.then(|| hidden(SUBMITTED, "on".to_owned()))}
                {preview.is_some().then(|| hidden(PREVIEW, "on".to_owned()))}
                <div class="flex items-center gap-3">
                    <button type="submit" id="training-submit" class=PRIMARY_BUTTON_CLASS data-testid="submit">
                        "Submit training"
                    </button>
                    <a href="/trainings" class=SECONDARY_BUTTON_CLASS>"Cancel"</a>
                </div>
            </form>
            <div class="flex flex-col gap-4 self-start xl:sticky xl:top-4">
                <fit::FitNow fit />
                <preview::Preview yaml=preview form=FORM_ID />
            </div>
        </div>
    }
}

/// The list of every problem, shown after a submit attempt, with links to the fields.
#[component]
fn ErrorSummary() -> impl IntoView {
    let errors = use_form().summary();
    let n = errors.len();
    let class = if errors.is_empty() {
        "hidden"
    } else {
        "rounded-lg border border-red-300 bg-red-50 p-4 text-sm text-red-900 focus-visible:outline-2 focus-visible:outline-red-500 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
    };
    view! {
        <div id=SUMMARY_ID tabindex="-1" role="alert" class=class data-testid="error-summary" data-live="">
            <p class="font-semibold">
                {format!("{n} field{} to fix before submitting", if n == 1 { "" } else { "s" })}
            </p>
            <ul class="mt-2 list-disc pl-5">
                {errors
                    .into_iter()
                    .map(|e| view! {
                        <li>
                            <a href=format!("#{}", field_id(&e.path)) class="underline">
                                <code>{e.path.clone()}</code>
                            </a>
                            ": " {e.message}
                        </li>
                    })
                    .collect_view()}
            </ul>
        </div>
    }
}
