//! The overview: what is in Tephra right now, and how to start.

use crate::api::get_overview;
use crate::components::error_panel::ErrorPanel;
use crate::components::loaded::loaded;
use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;
use tephra_core::model::{overview::Overview, phase::Phase};

#[component]
pub fn HomePage() -> impl IntoView {
    let overview = Resource::new(|| (), |_| get_overview());
    view! {
        <Title text="Overview" />
        <div class="flex flex-col gap-8">
            {loaded(overview, |overview| view! { <LiveOverview overview /> })}
            <GettingStarted />
        </div>
    }
}

/// The numbers, with a button that fetches them again without reloading the page.
#[island(lazy)]
fn LiveOverview(overview: Overview) -> impl IntoView {
    crate::components::hydrated::island_ready();
    let overview = RwSignal::new(Ok::<_, AppError>(overview));
    let refresh = Action::new(|_: &()| get_overview());
    Effect::new(move |_| {
        if let Some(fresh) = refresh.value().get() {
            overview.set(fresh);
        }
    });
    view! {
        <section aria-labelledby="overview-heading" class="flex flex-col gap-4">
            <div class="flex items-center justify-between gap-4">
                <h1 id="overview-heading" class="text-2xl font-semibold tracking-tight">
                    "Overview"
                </h1>
                <button
                    type="button"
                    class="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800"
                    on:click=move |_| {
                        refresh.dispatch(());
                    }
                >
                    "Refresh"
                </button>
            </div>
            {move || match overview.get() {
                Ok(overview) => view! { <Stats overview /> }.into_any(),
                Err(error) => view! { <ErrorPanel error /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn Stats(overview: Overview) -> impl IntoView {
    let cards = [
        ("Trainings", overview.trainings(), "/trainings"),
        ("Running", overview.in_phase(Phase::Running), "/trainings"),
        ("Pending", overview.in_phase(Phase::Pending), "/trainings"),
        ("Projects", overview.projects, "/projects"),
        ("Users", overview.users, "/admin"),
    ];
    view! {
        <dl class="grid grid-cols-2 gap-4 md:grid-cols-5" data-testid="overview-stats">
            {cards
                .into_iter()
                .map(|(label, value, href)| {
                    // A definition list may hold only <div> groups; the link is the term.
                    view! {
                        <div class="rounded-lg border border-slate-200 bg-white p-4 shadow-sm hover:border-indigo-300 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-indigo-700">
                            <dt class="text-sm">
                                <a
                                    href=href
                                    class="text-slate-600 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:text-slate-300"
                                >
                                    {label}
                                </a>
                            </dt>
                            <dd class="mt-1 text-3xl font-semibold tabular-nums">{value}</dd>
                        </div>
                    }
                })
                .collect_view()}
        </dl>
    }
}

/// A disclosure with the first steps. It opens only once its island is hydrated, which the
/// browser test relies on to prove that hydration worked.
#[island(lazy)]
fn GettingStarted() -> impl IntoView {
    crate::components::hydrated::island_ready();
    let open = RwSignal::new(false);
    view! {
        <section class="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <h2 class="text-lg font-semibold">
                <button
                    type="button"
                    id="getting-started-toggle"
                    aria-controls="getting-started"
                    aria-expanded=move || open.get().to_string()
                    class="flex w-full items-center justify-between px-4 py-3 text-left focus-visible:outline-2 focus-visible:outline-indigo-500"
                    on:click=move |_| open.update(|o| *o = !*o)
                >
                    "Getting started"
                    <span aria-hidden="true">{move || if open.get() { "−" } else { "+" }}</span>
                </button>
            </h2>
            <Show when=move || open.get()>
                <ol
                    id="getting-started"
                    class="list-decimal space-y-2 border-t border-slate-200 px-10 py-4 text-sm dark:border-slate-800"
                >
                    <li>"Pick a project: every training runs in one, within its quota."</li>
                    <li>"Describe the training: image, command, GPUs, storage, and how many workers."</li>
                    <li>"Submit it and watch its pods get scheduled together, all or nothing."</li>
                </ol>
            </Show>
        </section>
    }
}
