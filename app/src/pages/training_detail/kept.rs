//! What Tephra kept of a failing training's logs (`tephra_core::model::kept`): the hints first,
//! then each container's last lines, rendered on the server; it stays after the pods are gone.

use crate::components::style::CARD_CLASS;
use leptos::prelude::*;
use tephra_core::model::kept::{KeptLog, LogHint};

fn hint_item(hint: LogHint) -> impl IntoView {
    view! {
        <li>
            <span class="font-medium">{hint.meaning}</span>
            <code class="mt-1 block overflow-x-auto text-xs">{hint.line}</code>
        </li>
    }
}

fn container_log(log: KeptLog) -> impl IntoView {
    let run = if log.previous {
        ", its previous run"
    } else {
        ""
    };
    let label = format!(
        "Pod {} container {}{run}: its last {} line(s), read {}",
        log.pod,
        log.container,
        log.lines.len(),
        log.taken_at
    );
    view! {
        <h3 class="mt-3 text-sm font-medium">{label.clone()}</h3>
        <pre class="mt-1 max-h-64 overflow-auto rounded-md bg-slate-100 p-3 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 dark:bg-slate-950" tabindex="0" aria-label=label>
            {log.lines.join("\n")}
        </pre>
    }
}

/// The kept lines and their hints; nothing when nothing was kept.
#[component]
pub(super) fn KeptLogs(logs: Vec<KeptLog>) -> impl IntoView {
    let hints: Vec<LogHint> = logs.iter().flat_map(|log| log.hints.clone()).collect();
    let hints = (!hints.is_empty()).then(|| {
        view! {
            <p class="text-sm">"What the lines hint at:"</p>
            <ul class="mt-1 list-disc pl-5 text-sm" data-testid="log-hints">
                {hints.into_iter().map(hint_item).collect_view()}
            </ul>
        }
    });
    (!logs.is_empty()).then(|| {
        view! {
            <section aria-labelledby="kept-heading" class=CARD_CLASS data-testid="kept-logs">
                <h2 id="kept-heading" class="mb-3 text-lg font-semibold">"Last log lines, kept"</h2>
                <p class="mb-2 text-xs text-slate-600 dark:text-slate-400">
                    "Tephra read these when the training failed and keeps them after its pods are gone."
                </p>
                {hints}
                {logs.into_iter().map(container_log).collect_view()}
            </section>
        }
    })
}
