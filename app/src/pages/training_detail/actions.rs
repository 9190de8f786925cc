//! The buttons that act on the training, and what they say when its phase does not allow them.

use super::confirm::Confirm;
use super::edit::EditLive;
use crate::api::act_on_workload;
use crate::components::style::{DANGER_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};
use crate::components::toast::use_toasts;
use leptos::prelude::*;
use tephra_core::model::action::Action as Verb;
use tephra_core::model::kind::WorkloadKind;
use tephra_core::model::url::query;
use tephra_core::model::workload::Workload;

/// Clone, edit, suspend, resume and delete. Each action asks for confirmation, and a button is
/// disabled (with the reason as its description) when the phase does not allow it.
#[component]
pub(super) fn Actions(workload: RwSignal<Workload>, deleted: RwSignal<bool>) -> impl IntoView {
    let toasts = use_toasts();
    let confirming = RwSignal::new(None::<Verb>);
    let id = workload.get_untracked().workload_id;
    let name = workload.get_untracked().name;
    let act = {
        let id = id.clone();
        let name = name.clone();
        Action::new(move |action: &Verb| {
            let (id, name, action) = (id.clone(), name.clone(), *action);
            async move { (action, name, act_on_workload(id, action).await) }
        })
    };
    Effect::new(move |_| {
        if let Some((action, name, result)) = act.value().get() {
            match result {
                Ok(updated) => {
                    workload.set(updated);
                    let said = format!("asked to {} {name}", action.verb());
                    if action == Verb::Delete {
                        toasts.success_on_next_page(&said);
                        crate::components::navigate::to("/trainings");
                    } else {
                        toasts.success(said);
                    }
                }
                Err(error) => toasts.error(format!("could not {} {name}: {error}", action.verb())),
            }
        }
    });
    let why_not = move |action: Verb| {
        if deleted.get() {
            return Some("it has been deleted".to_owned());
        }
        workload.with(|w| action.apply(w.desired_phase, w.actual_phase).err())
    };
    let pending = act.pending();
    view! {
        <div class="flex flex-wrap items-center gap-2" data-testid="actions">
            <a href=format!("/trainings/new{}", query(&[("from", Some(&id))])) class=SECONDARY_BUTTON_CLASS>
                "Clone"
            </a>
            // A generic job's replica types and rules are fixed once it runs.
            {workload.with_untracked(|w| w.kind != WorkloadKind::Generic).then(|| view! { <EditLive workload deleted /> })}
            {[Verb::Suspend, Verb::Resume, Verb::Delete]
                .into_iter()
                .map(|action| {
                    let label = match action {
                        Verb::Suspend => "Suspend",
                        Verb::Resume => "Resume",
                        Verb::Delete => "Delete",
                    };
                    let class = if action == Verb::Delete { DANGER_BUTTON_CLASS } else { SECONDARY_BUTTON_CLASS };
                    let reason_id = format!("why-not-{}", action.verb());
                    view! {
                        <button
                            type="button"
                            class=class
                            data-action=action.verb()
                            disabled=move || why_not(action).is_some() || pending.get()
                            title=move || why_not(action).map(|why| format!("Cannot {}: {why}", action.verb()))
                            aria-describedby=move || why_not(action).map(|_| reason_id.clone())
                            on:click=move |_| confirming.set(Some(action))
                        >
                            {label}
                        </button>
                        <span id=format!("why-not-{}", action.verb()) class="sr-only">
                            {move || why_not(action).map(|why| format!("Cannot {}: {why}", action.verb()))}
                        </span>
                    }
                })
                .collect_view()}
        </div>
        <Confirm confirming name on_confirm=move |action| { act.dispatch(action); } />
    }
}
