//! The cluster's recent events about the training's objects, newest first.

use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::workload::{EventType, Workload};

#[component]
pub(super) fn Events(workload: Workload) -> impl IntoView {
    let mut events = workload.status.events;
    if events.is_empty() {
        return Either::Left(view! {
            <p class="text-sm text-slate-600 dark:text-slate-300">"No events yet."</p>
        });
    }
    events.reverse();
    Either::Right(view! {
        <ul class="flex flex-col gap-2 text-sm" data-testid="events">
            {events
                .into_iter()
                .map(|e| {
                    let warning = e.kind == EventType::Warning;
                    view! {
                        <li class="flex flex-wrap gap-x-3">
                            <span class=if warning {
                                "font-semibold text-red-800 dark:text-red-300"
                            } else {
                                "font-semibold"
                            }>
                                {if warning { "Warning " } else { "" }}
                                {e.reason}
                            </span>
                            <span class="text-slate-600 dark:text-slate-300">{e.object}</span>
                            <span class="basis-full">{e.message}</span>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    })
}
