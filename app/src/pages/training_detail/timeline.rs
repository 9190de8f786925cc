//! What happened to the training, oldest first: submitted, phases, and the actions people took.

use crate::components::{phase_badge::PhaseBadge, relative_time::Timestamp};
use crate::model::phase::Phase;
use crate::model::workload::HistoryEntry;
use leptos::prelude::*;

/// One history entry in words.
fn describe(entry: &HistoryEntry) -> String {
    let who = entry
        .actor
        .clone()
        .unwrap_or_else(|| "the cluster".to_owned());
    match entry.action.as_str() {
        // The badge beside it names the phase; the words say why.
        "phase" => entry.detail["reason"]
            .as_str()
            .map(|reason| {
                let to = entry.detail["to"].as_str().unwrap_or_default();
                reason
                    .strip_prefix(to)
                    .map(|rest| rest.trim_start_matches(':').trim())
                    .unwrap_or(reason)
                    .to_owned()
            })
            .unwrap_or_default(),
        "submit" => format!("Submitted by {who}"),
        "suspend" => format!("Suspended by {who}"),
        // Tephra itself, by the project's rule: the words say which and why.
        "idle-suspend" => {
            let reason = entry.detail["reason"]
                .as_str()
                .unwrap_or("suspended: its GPUs were idle");
            let mut said = reason.to_owned();
            if let Some(first) = said.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            said
        }
        "resume" => format!("Resumed by {who}"),
        "delete" => format!("Deletion asked by {who}"),
        other => format!("{other} ({who})"),
    }
}

#[component]
pub(super) fn Timeline(history: Vec<HistoryEntry>) -> impl IntoView {
    view! {
        <ol class="relative flex flex-col gap-3 border-l border-slate-300 pl-4 text-sm dark:border-slate-700" data-testid="timeline">
            {history
                .into_iter()
                .map(|entry| {
                    let phase = (entry.action == "phase")
                        .then(|| entry.detail["to"].as_str().and_then(|p| p.parse::<Phase>().ok()))
                        .flatten();
                    view! {
                        <li>
                            <p class="text-xs text-slate-600 dark:text-slate-400">
                                <Timestamp rfc3339=entry.at.clone() />
                            </p>
                            <p class="flex flex-wrap items-center gap-2">
                                {phase.map(|phase| view! { <PhaseBadge phase /> })}
                                <span>{describe(&entry)}</span>
                            </p>
                        </li>
                    }
                })
                .collect_view()}
        </ol>
    }
    .into_any()
}
