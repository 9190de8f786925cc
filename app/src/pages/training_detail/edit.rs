//! Edit what Volcano lets change on a running training (seeds/001): a distributed training's
//! workers and gang, and any training's priority class. Everything else is "clone and resubmit",
//! which the panel says.

use crate::api::edit_workload;
use crate::components::form::INPUT_CLASS;
use crate::components::style::{PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use crate::components::toast::use_toasts;
use crate::error::AppError;
use leptos::prelude::*;
use tephra_core::model::edit::Edit;
use tephra_core::model::kind::WorkloadKind;
use tephra_core::model::phase::Phase;
use tephra_core::model::validation::FieldError;
use tephra_core::model::workload::Workload;

/// Run:ai's priority classes, which the cluster profile maps to the cluster's own.
const PRIORITY_CLASSES: [&str; 4] = ["train", "build", "interactive-preemptible", "inference"];

/// The values the panel starts from: what the stored request says.
fn current(w: &Workload) -> (String, String, String) {
    let spec = &w.spec;
    let workers = spec["numWorkers"].as_i64();
    let gang = spec["minReplicas"].as_i64().or(workers);
    let text = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
    let priority = spec["priorityClass"].as_str().unwrap_or("train").to_owned();
    (text(workers), text(gang), priority)
}

/// The edit the inputs ask for: only what differs from `start`; a number that is not one is
/// named.
fn edit_from(
    start: &(String, String, String),
    now: (String, String, String),
) -> Result<Edit, Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut number = |field: &str, before: &str, after: &str| -> Option<i64> {
        let after = after.trim();
        if after == before {
            return None;
        }
        after.parse().map(Some).unwrap_or_else(|_| {
            errors.push(FieldError {
                path: field.into(),
                message: format!("must be a whole number (got {after:?})"),
            });
            None
        })
    };
    let edit = Edit {
        num_workers: number("numWorkers", &start.0, &now.0),
        min_replicas: number("minReplicas", &start.1, &now.1),
        priority_class: (now.2 != start.2).then_some(now.2),
    };
    if errors.is_empty() {
        Ok(edit)
    } else {
        Err(errors)
    }
}

/// Why the training cannot be edited now, if it cannot.
fn why_not(w: &Workload, deleted: bool) -> Option<&'static str> {
    if deleted {
        Some("it has been deleted")
    } else if w.desired_phase != Phase::Running || w.actual_phase.is_finished() {
        Some("only a training that should run can change; resume it, or clone it")
    } else {
        None
    }
}

#[component]
pub(super) fn EditLive(workload: RwSignal<Workload>, deleted: RwSignal<bool>) -> impl IntoView {
    let toasts = use_toasts();
    let open = RwSignal::new(false);
    let (id, name, distributed) = workload.with_untracked(|w| {
        (
            w.workload_id.clone(),
            w.name.clone(),
            w.kind == WorkloadKind::Distributed,
        )
    });
    let start = StoredValue::new(workload.with_untracked(current));
    let (workers, gang, priority) = start.get_value();
    let workers = RwSignal::new(workers);
    let gang = RwSignal::new(gang);
    let priority = RwSignal::new(priority);
    let problems = RwSignal::new(Vec::<FieldError>::new());
    let save = Action::new(move |edit: &Edit| {
        let (id, edit) = (id.clone(), edit.clone());
        async move { edit_workload(id, edit).await }
    });
    Effect::new(move |_| match save.value().get() {
        Some(Ok(updated)) => {
            start.set_value(current(&updated));
            workload.set(updated);
            problems.set(Vec::new());
            open.set(false);
            toasts.success(format!("saved the changes to {name}; the cluster follows"));
        }
        Some(Err(AppError::Rejected(found))) => problems.set(found),
        Some(Err(error)) => toasts.error(format!("could not edit {name}: {error}")),
        None => {}
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let now = (workers.get(), gang.get(), priority.get());
        match edit_from(&start.get_value(), now) {
            Ok(edit) => {
                save.dispatch(edit);
            }
            Err(found) => problems.set(found),
        }
    };
    let blocked = move || workload.with(|w| why_not(w, deleted.get()));
    view! {
        <button
            type="button"
            class=SECONDARY_BUTTON_CLASS
            data-action="edit"
            aria-expanded=move || open.get().to_string()
            disabled=move || blocked().is_some()
            title=move || blocked().map(|why| format!("Cannot edit: {why}"))
            on:click=move |_| open.update(|o| *o = !*o)
        >
            "Edit"
        </button>
        <Show when=move || open.get()>
            <form
                class="order-last mt-2 flex w-full flex-wrap items-end gap-3 rounded-lg border border-slate-200 p-3 dark:border-slate-700"
                data-testid="edit-panel"
                on:submit=submit
            >
                <p class="w-full text-sm text-slate-600 dark:text-slate-300">
                    "Volcano can change these on a running training. To change anything else, clone it."
                </p>
                {distributed.then(|| worker_inputs(workers, gang))}
                {priority_select(priority)}
                <button type="submit" class=PRIMARY_BUTTON_CLASS data-testid="edit-save"
                    disabled=move || save.pending().get()>
                    "Save"
                </button>
                <ul class="w-full text-sm text-red-700 dark:text-red-300" role="alert" data-testid="edit-problems">
                    {move || problems.get().into_iter().map(|p| view! { <li>{p.to_string()}</li> }).collect_view()}
                </ul>
            </form>
        </Show>
    }
}

/// What only a distributed training has: its workers, and how many must run for it to start.
fn worker_inputs(workers: RwSignal<String>, gang: RwSignal<String>) -> impl IntoView {
    view! {
        <label class="flex flex-col gap-1 text-sm font-medium">
            "Workers"
            <input id="edit-numWorkers" class=INPUT_CLASS inputmode="numeric"
                prop:value=move || workers.get()
                on:input=move |ev| workers.set(event_target_value(&ev)) />
        </label>
        <label class="flex flex-col gap-1 text-sm font-medium">
            "Workers needed to start"
            <input id="edit-minReplicas" class=INPUT_CLASS inputmode="numeric"
                prop:value=move || gang.get()
                on:input=move |ev| gang.set(event_target_value(&ev)) />
        </label>
    }
}

fn priority_select(priority: RwSignal<String>) -> impl IntoView {
    view! {
        <label class="flex flex-col gap-1 text-sm font-medium">
            "Priority class"
            <select id="edit-priorityClass" class=INPUT_CLASS
                prop:value=move || priority.get()
                on:change=move |ev| priority.set(event_target_value(&ev))>
                {PRIORITY_CLASSES.map(|class| view! { <option value=class>{class}</option> })}
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> (String, String, String) {
        ("2".into(), "2".into(), "train".into())
    }

    #[test]
    fn only_changed_fields_are_sent() {
        let edit = edit_from(&start(), ("4".into(), "2".into(), "train".into())).unwrap();
        assert_eq!(
            edit,
            Edit {
                num_workers: Some(4),
                ..Edit::default()
            }
        );
        let edit = edit_from(&start(), ("2".into(), "2".into(), "build".into())).unwrap();
        assert_eq!(edit.priority_class.as_deref(), Some("build"));
    }

    #[test]
    fn a_number_that_is_not_one_is_named() {
        let errors = edit_from(&start(), ("four".into(), "2".into(), "train".into())).unwrap_err();
        assert_eq!(errors[0].path, "numWorkers");
        assert!(errors[0].message.contains("whole number"));
    }
}
