//! All trainings the user may see: filtered, searched, sorted and paged through the URL (so every
//! view can be bookmarked and works without JavaScript), rendered by the server and kept current
//! by the event stream (`live`).

mod filters;
mod live;
mod table;

use self::filters::{Filters, is_filtered};
use self::live::{LIST_ID, LiveList};
use self::table::{EmptyState, TrainingTable};
use crate::api::{list_projects, list_workloads};
use crate::components::loaded::loaded;
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use tephra_core::model::url::query;
use tephra_core::model::workload::WorkloadQuery;

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
            let filtered = is_filtered(&q);
            let project = q.project_id.clone();
            view! {
                <Filters q=q.clone() projects />
                <div id=LIST_ID data-project-id=project>
                    {if page.total == 0 {
                        Either::Left(view! { <EmptyState filtered /> })
                    } else {
                        Either::Right(view! { <TrainingTable page q /> })
                    }}
                </div>
                <LiveList />
            }
        })}
    }
}
