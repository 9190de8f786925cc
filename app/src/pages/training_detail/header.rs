//! The top of the page: where the training belongs, its name and phase, who made it and when,
//! and the actions.

use super::actions::Actions;
use crate::components::{phase_badge::PhaseBadge, relative_time::Age};
use leptos::prelude::*;
use tephra_core::model::workload::Workload;

/// The breadcrumb, the name with the phase badge, and a line on who created it and whether it is
/// on its way to another phase.
#[component]
pub(super) fn Header(workload: RwSignal<Workload>, deleted: RwSignal<bool>) -> impl IntoView {
    let w = workload.get_untracked();
    view! {
        <div class="flex flex-wrap items-start justify-between gap-4">
            <div>
                <p class="text-sm text-slate-600 dark:text-slate-300">
                    <a href="/trainings" class="hover:underline">"Trainings"</a>
                    " / " {w.project_name.clone()}
                </p>
                <h1 class="flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
                    <span data-testid="training-name">{w.name.clone()}</span>
                    <span data-testid="phase">
                        {move || view! { <PhaseBadge phase=workload.with(|w| w.actual_phase) /> }}
                    </span>
                </h1>
                <p class="mt-1 text-sm text-slate-600 dark:text-slate-300" data-testid="created-line">
                    {w.kind.title()}
                    " by " {w.created_by.clone()} ", created "
                    <Age rfc3339=w.created_at.clone() ago=true />
                    {move || {
                        let (desired, actual) = workload.with(|w| (w.desired_phase, w.actual_phase));
                        (desired != actual && !actual.is_finished())
                            .then(|| format!(" · asked to be {}", desired.as_str()))
                    }}
                </p>
            </div>
            <Actions workload deleted />
        </div>
    }
}
