//! A workload phase as a badge. The phase name is always written out, so color is never the only
//! signal.

use leptos::prelude::*;
use tephra_core::model::phase::Phase;

const NEUTRAL_BADGE_CLASS: &str = "bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600";
const ACTIVE_BADGE_CLASS: &str =
    "bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-700";
const WAITING_BADGE_CLASS: &str = "bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-700";
const GOOD_BADGE_CLASS: &str = "bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-700";
const BAD_BADGE_CLASS: &str =
    "bg-red-50 text-red-800 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-700";

fn tone(phase: Phase) -> &'static str {
    match phase {
        Phase::Running | Phase::Initializing | Phase::Resuming => ACTIVE_BADGE_CLASS,
        Phase::Creating | Phase::Pending | Phase::Stopping | Phase::Deleting => WAITING_BADGE_CLASS,
        Phase::Completed => GOOD_BADGE_CLASS,
        Phase::Failed => BAD_BADGE_CLASS,
        Phase::Stopped | Phase::Unknown => NEUTRAL_BADGE_CLASS,
    }
}

/// The badge's classes for `phase`: the server renders them, and a list in the browser sets
/// them when a row's phase changes.
pub fn badge_class(phase: Phase) -> String {
    format!(
        "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 {}",
        tone(phase),
    )
}

#[component]
pub fn PhaseBadge(phase: Phase) -> impl IntoView {
    view! { <span class=badge_class(phase)>{phase.as_str()}</span> }
}
