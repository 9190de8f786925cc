//! What happened to the training, oldest first: submitted, phases, and the actions people took.

use crate::components::{phase_badge::PhaseBadge, relative_time::Timestamp};
use leptos::prelude::*;
use tephra_core::model::history::HistoryAction;
use tephra_core::model::phase::Phase;
use tephra_core::model::workload::HistoryEntry;

/// One history entry in words.
pub(super) fn describe(entry: &HistoryEntry) -> String {
    let who = entry
        .actor
        .clone()
        .unwrap_or_else(|| "the cluster".to_owned());
    match entry.action {
        // The badge beside it names the phase; the words say why.
        HistoryAction::Phase => entry.detail["reason"]
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
        HistoryAction::Submit => format!("Submitted by {who}"),
        HistoryAction::Suspend => format!("Suspended by {who}"),
        // Tephra itself, by the project's rule or its admission: the words say which and why.
        HistoryAction::IdleSuspend
        | HistoryAction::TimeLimit
        | HistoryAction::OverQuota
        | HistoryAction::Queued => {
            let reason = entry.detail["reason"]
                .as_str()
                .unwrap_or(match entry.action {
                    HistoryAction::IdleSuspend => "suspended: its GPUs were idle",
                    HistoryAction::TimeLimit => "stopped at its time limit",
                    HistoryAction::OverQuota => "admitted over its project's quota",
                    _ => "queued behind its project's work",
                });
            let mut said = reason.to_owned();
            if let Some(first) = said.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            said
        }
        HistoryAction::Resume => format!("Resumed by {who}"),
        HistoryAction::Delete => format!("Deletion asked by {who}"),
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
                    let phase = (entry.action == HistoryAction::Phase)
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
}

/// Who or what suspended the training, when a suspension is the latest of its suspends and
/// resumes: a person, or the project's idle GPU rule with its reason.
pub(super) fn last_suspension(history: &[HistoryEntry]) -> Option<String> {
    history
        .iter()
        .rev()
        .find(|e| {
            matches!(
                e.action,
                HistoryAction::Suspend
                    | HistoryAction::IdleSuspend
                    | HistoryAction::TimeLimit
                    | HistoryAction::Resume
            )
        })
        .filter(|e| e.action != HistoryAction::Resume)
        .map(describe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(action: &str, actor: Option<&str>, detail: serde_json::Value) -> HistoryEntry {
        HistoryEntry {
            at: "2026-11-25T18:00:00Z".into(),
            action: serde_json::from_value(json!(action)).expect("a history action"),
            actor: actor.map(Into::into),
            detail,
        }
    }

    #[test]
    fn the_latest_suspension_says_who_or_which_rule() {
        let submitted = entry("submit", Some("Ada"), json!({}));
        let idle = entry(
            "idle-suspend",
            None,
            json!({ "reason": "suspended by the project's idle GPU rule: its GPUs were idle (under 1 % use) for 1 min" }),
        );
        let phase = entry("phase", None, json!({ "to": "Stopped" }));
        assert_eq!(
            last_suspension(&[submitted.clone(), idle.clone(), phase.clone()]).as_deref(),
            Some(
                "Suspended by the project's idle GPU rule: its GPUs were idle (under 1 % use) for 1 min"
            )
        );
        let by_hand = entry("suspend", Some("Ada"), json!({}));
        let resumed = entry("resume", Some("Ada"), json!({}));
        assert_eq!(
            last_suspension(&[idle.clone(), resumed.clone(), by_hand.clone()]).as_deref(),
            Some("Suspended by Ada")
        );
        assert_eq!(last_suspension(&[idle, resumed]), None, "resumed since");
        assert_eq!(
            last_suspension(&[submitted, phase]),
            None,
            "never suspended"
        );
    }
}
