//! All trainings the user may see: filtered, searched, sorted and paged through the URL (so every
//! view can be bookmarked and works without JavaScript), and kept current by the event stream.

mod filters;
mod table;

use self::filters::{Filters, is_filtered};
use self::table::{EmptyState, TrainingTable};
use crate::api::{list_projects, list_workloads};
use crate::components::live::{LiveMessage, subscribe};
use crate::components::loaded::loaded;
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use tephra_core::model::url::query;
use tephra_core::model::workload::{RowChange, WorkloadPage, WorkloadQuery, WorkloadRow};

// The new-training page still takes its button classes from here.
pub use crate::components::style::{PRIMARY_BUTTON_CLASS, SECONDARY_BUTTON_CLASS};

/// The list's query from the page URL.
fn query_from_url() -> Memo<WorkloadQuery> {
    let params = use_query_map();
    Memo::new(move |_| {
        params.with(|p| {
            let text = |k: &str| p.get(k).filter(|v| !v.is_empty());
            WorkloadQuery {
                project_id: text("projectId"),
                phase: text("phase"),
                created_by: text("createdBy"),
                name: text("name"),
                sort_by: text("sortBy"),
                sort_order: text("sortOrder"),
                offset: text("offset").and_then(|o| o.parse().ok()),
                limit: text("limit").and_then(|l| l.parse().ok()),
                after: text("after"),
            }
        })
    })
}

/// The URL of the list with `query`.
pub fn list_href(q: &WorkloadQuery) -> String {
    let offset = q.offset.filter(|o| *o > 0).map(|o| o.to_string());
    let limit = q.limit.map(|l| l.to_string());
    format!(
        "/trainings{}",
        query(&[
            ("projectId", q.project_id.as_deref()),
            ("phase", q.phase.as_deref()),
            ("createdBy", q.created_by.as_deref()),
            ("name", q.name.as_deref()),
            ("sortBy", q.sort_by.as_deref()),
            ("sortOrder", q.sort_order.as_deref()),
            ("offset", offset.as_deref()),
            ("limit", limit.as_deref()),
        ])
    )
}

#[component]
pub fn TrainingsPage() -> impl IntoView {
    let q = query_from_url();
    let page = Resource::new(
        move || q.get(),
        |q| async {
            Ok::<_, AppError>((
                list_workloads(q).await?,
                list_projects().await.unwrap_or_default(),
            ))
        },
    );
    view! {
        <Title text="Trainings" />
        <div class="mb-6 flex flex-wrap items-center justify-between gap-4">
            <h1 class="text-2xl font-semibold tracking-tight">"Trainings"</h1>
            <a href="/trainings/new" class=PRIMARY_BUTTON_CLASS>
                "New training"
            </a>
        </div>
        {loaded(page, move |(page, projects)| {
            let q = q.get_untracked();
            view! {
                <Filters q=q.clone() projects />
                <LiveTrainings page q />
            }
        })}
    }
}

/// The rows on screen, each with its own signal, so a change touches one row of the DOM.
type Rows = StoredValue<Vec<(String, RwSignal<WorkloadRow>)>>;

/// How long changes the page cannot apply in place (a new training, one that is gone) gather
/// before the page is loaded again: a busy cluster must not make the list reload on every event.
const RELOAD_AFTER: std::time::Duration = std::time::Duration::from_secs(1);
/// Most reads of the list in a row while changes keep arriving during each read.
const RELOADS_WHILE_CHANGING: usize = 3;

/// The table (or the empty state) and its pages, kept current by the event stream: the one part
/// of this page that runs in the browser.
#[island]
fn LiveTrainings(page: WorkloadPage, q: WorkloadQuery) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let filtered = is_filtered(&q);
    let page = RwSignal::new(page);
    let rows: Rows = StoredValue::new(Vec::new());
    let changes = StoredValue::new(0u64);
    let reload = {
        let q = q.clone();
        move || {
            let q = q.clone();
            leptos::task::spawn_local(async move {
                // A change that arrives while the list is read may be older than the read, or
                // newer: the rows it updated are replaced by the fresh page either way, so read
                // again (a few times at most, under constant change).
                for _ in 0..RELOADS_WHILE_CHANGING {
                    let before = changes.get_value();
                    match list_workloads(q.clone()).await {
                        Ok(fresh) => page.set(fresh),
                        Err(error) => {
                            leptos::logging::warn!("cannot reload the trainings: {error}");
                            return;
                        }
                    }
                    if changes.get_value() == before {
                        return;
                    }
                }
            })
        }
    };
    follow_changes(q.project_id.clone(), rows, changes, reload);
    view! {
        {move || {
            let page = page.get();
            if page.total == 0 {
                Either::Left(view! { <EmptyState filtered /> })
            } else {
                Either::Right(view! { <TrainingTable page q=q.clone() rows /> })
            }
        }}
    }
}

/// Keeps the rows on screen current from the event stream, for as long as the page is shown
/// (one stream per page, not per load, so reloading the rows never reopens it).
fn follow_changes(
    project: Option<String>,
    rows: Rows,
    changes: StoredValue<u64>,
    reload: impl Fn() + Clone + 'static,
) {
    let reload_pending = StoredValue::new(false);
    let reload_soon = move || {
        if !reload_pending.get_value() {
            reload_pending.set_value(true);
            let reload = reload.clone();
            set_timeout(
                move || {
                    reload_pending.set_value(false);
                    reload();
                },
                RELOAD_AFTER,
            );
        }
    };
    let url = format!(
        "/api/v1/workloads/events{}",
        query(&[("projectId", project.as_deref())])
    );
    // Every connection opens with a resync, the first one too: the rows were read when the page
    // was rendered, and a change broadcast before this stream connected (the page was still
    // loading its WebAssembly) reaches no one. Under load that gap is seconds, and a row stayed
    // "Initializing" for good while its pods ran.
    subscribe(url, move |message: LiveMessage<RowChange>| match message {
        LiveMessage::Workload(e) => {
            changes.update_value(|n| *n += 1);
            let row = rows.with_value(|rows| {
                rows.iter()
                    .find(|(id, _)| *id == e.workload_id)
                    .map(|(_, row)| *row)
            });
            match row {
                Some(row) if !e.deleted => row.update(|w| w.apply(&e)),
                _ => reload_soon(),
            }
        }
        LiveMessage::Resync => reload_soon(),
    });
}
