//! The frame around every page: header with the signed-in user, navigation, content.

use crate::api::get_me;
use leptos::prelude::*;
use leptos_router::components::A;

const NAV: [(&str, &str); 4] = [
    ("/", "Overview"),
    ("/trainings", "Trainings"),
    ("/projects", "Projects"),
    ("/admin", "Admin"),
];

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    view! {
        <a href="#main" class="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-10 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900">
            "Skip to content"
        </a>
        <header class="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <div class="mx-auto flex max-w-6xl items-center justify-between gap-4 px-4 py-3">
                <a href="/" class="flex items-center gap-2 text-lg font-semibold tracking-tight focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500">
                    <img src="/favicon.svg" alt="" width="24" height="24" />
                    "Tephra"
                </a>
                <nav aria-label="Main" class="flex flex-wrap items-center gap-1 text-sm">
                    {NAV
                        .into_iter()
                        .map(|(href, label)| {
                            view! {
                                <A
                                    href=href
                                    exact=true
                                    attr:class="rounded-md px-3 py-2 font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
                                >
                                    {label}
                                </A>
                            }
                        })
                        .collect_view()}
                </nav>
                <SignedInUser />
            </div>
        </header>
        <main id="main" class="mx-auto max-w-6xl px-4 py-8">
            {children()}
        </main>
    }
}

#[component]
fn SignedInUser() -> impl IntoView {
    let me = OnceResource::new(get_me());
    view! {
        <div class="text-sm" data-testid="signed-in-user">
            <Suspense fallback=|| view! { <span class="text-slate-400">"…"</span> }>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(principal) => {
                            view! {
                                <span class="flex items-center gap-2">
                                    <span class="font-medium">{principal.display_name}</span>
                                    {principal
                                        .dev_login
                                        .then(|| {
                                            view! {
                                                <span
                                                    class="rounded-full border border-amber-400 bg-amber-50 px-2 py-0.5 text-xs font-semibold text-amber-900 dark:border-amber-500 dark:bg-amber-950 dark:text-amber-200"
                                                    title="Signed in with the development login: no identity provider checked who you are."
                                                >
                                                    "dev login"
                                                </span>
                                            }
                                        })}
                                </span>
                            }
                                .into_any()
                        }
                        Err(err) => {
                            view! { <span class="text-slate-500">{err.to_string()}</span> }.into_any()
                        }
                    }
                })}
            </Suspense>
        </div>
    }
}
