//! The audit trail on the Admin page: who did what, when, to which object, filtered by actor
//! and action through the page's query (a plain GET form, so it works without JavaScript).

use crate::api::get_audit;
use crate::components::loaded::loaded;
use crate::components::relative_time::Timestamp;
use crate::components::style::CARD_CLASS;
use crate::components::table::{Column, Table};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use tephra_core::model::access::{AuditPage, AuditQuery};

const FIELD: &str = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-950";

#[component]
pub fn AuditTrail() -> impl IntoView {
    let params = use_query_map();
    let filters = move || {
        params.with(|q| AuditQuery {
            actor: q.get("actor").filter(|v| !v.is_empty()),
            action: q.get("action").filter(|v| !v.is_empty()),
            limit: Some(100),
            ..AuditQuery::default()
        })
    };
    let events = Resource::new(filters, get_audit);
    view! {
        <section class=format!("mt-6 {CARD_CLASS}")>
            <h2 class="mb-3 font-semibold">"Audit trail"</h2>
            <form method="get" action="/admin" class="mb-4 grid gap-3 sm:grid-cols-3 sm:items-end">
                <label class="text-sm font-medium">
                    "Actor"
                    <input name="actor" placeholder="e-mail or application" class=FIELD
                        value=move || params.with(|q| q.get("actor").unwrap_or_default()) />
                </label>
                <label class="text-sm font-medium">
                    "Action"
                    <input name="action" placeholder="workload, auth, application.revoke" class=FIELD
                        value=move || params.with(|q| q.get("action").unwrap_or_default()) />
                </label>
                <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-semibold dark:border-slate-700">
                    "Filter"
                </button>
            </form>
            {loaded(events, |page| view! { <Events page /> })}
        </section>
    }
}

const COLUMNS: [Column; 5] = [
    Column::text("When"),
    Column::text("Who"),
    Column::text("Action"),
    Column::text("Target"),
    Column::text("Detail"),
];

#[component]
fn Events(page: AuditPage) -> impl IntoView {
    let shown = page.events.len();
    view! {
        <p class="mb-2 text-xs text-slate-600 dark:text-slate-400">{format!("{shown} of {} events, newest first", page.total)}</p>
        <Table testid="audit-table" columns=&COLUMNS in_card=true>
            {page
                .events
                .into_iter()
                .map(|e| {
                    let who = match e.actor {
                        Some(name) if e.actor_type == "application" => format!("{name} (application)"),
                        Some(name) => name,
                        None => "Tephra".to_owned(),
                    };
                    view! {
                        <tr class="border-b border-slate-100 align-top last:border-0 dark:border-slate-800">
                            <td class="px-2 py-1 whitespace-nowrap"><Timestamp rfc3339=e.at /></td>
                            <td class="px-2 py-1">{who}</td>
                            <td class="px-2 py-1 font-mono text-xs">{e.action.as_str()}</td>
                            <td class="px-2 py-1 font-mono text-xs">{format!("{} {}", e.target_type, e.target_id).trim_end().to_owned()}</td>
                            <td class="px-2 py-1 text-xs break-words"><Detail summary=e.summary detail=e.detail /></td>
                        </tr>
                    }
                })
                .collect_view()}
        </Table>
    }
}

/// An entry's detail in one line of words (made by the server), and the whole of it as JSON one
/// click away (a native disclosure, so it opens without JavaScript).
#[component]
fn Detail(summary: String, detail: serde_json::Value) -> impl IntoView {
    let whole = serde_json::to_string_pretty(&detail).unwrap_or_default();
    view! {
        <details>
            <summary class="cursor-pointer">{summary}</summary>
            <pre class="mt-1 font-mono whitespace-pre-wrap break-all">{whole}</pre>
        </details>
    }
}
