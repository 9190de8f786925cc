//! The frame around every page: header with the signed-in user, navigation, content.

use crate::api::get_me;
use crate::components::toast::ToastRegion;
use crate::error::AppError;
use leptos::prelude::*;
use leptos_router::components::A;
use tephra_core::model::principal::Principal;

const NAV: [(&str, &str); 6] = [
    ("/", "Overview"),
    ("/trainings", "Trainings"),
    ("/projects", "Projects"),
    ("/organisation", "Organisation"),
    ("/applications", "Applications"),
    ("/admin", "Admin"),
];

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    // One request for who is signed in, shared by the banner and the header.
    let me = OnceResource::new(get_me());
    view! {
        <a href="#main" class="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-10 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900">
            "Skip to content"
        </a>
        <DevLoginBanner me />
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
                <SignedInUser me />
            </div>
        </header>
        // Before the content, so it is hydrated before the islands that raise toasts.
        <ToastRegion />
        // Hidden until the browser's code fails (a lazy island's chunk that does not load, or a
        // panic): the page stays as the server rendered it, and this says why nothing moves.
        <div
            id="live-failed"
            role="alert"
            hidden=true
            data-testid="live-failed"
            class="mx-auto mt-4 max-w-6xl rounded-md border border-red-300 bg-red-50 px-4 py-2 text-sm text-red-900 dark:border-red-700 dark:bg-red-950 dark:text-red-100"
        >
            "Part of this page did not load, so it shows what the server sent and will not update or respond to its buttons. Reload the page to try again."
        </div>
        <main id="main" class="mx-auto max-w-6xl px-4 py-8">
            {children()}
        </main>
    }
}

#[component]
fn SignedInUser(me: OnceResource<Result<Principal, AppError>>) -> impl IntoView {
    view! {
        <div class="text-sm" data-testid="signed-in-user">
            <Suspense fallback=|| view! { <span class="text-slate-400">"…"</span> }>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(principal) => view! { <Who principal /> }.into_any(),
                        Err(err) => {
                            view! { <span class="text-slate-500">{err.to_string()}</span> }.into_any()
                        }
                    }
                })}
            </Suspense>
        </div>
    }
}

const CHIP_CLASS: &str = "rounded-full border px-2 py-0.5 text-xs font-semibold";

/// The signed-in user's name and roles, and the way out.
#[component]
fn Who(principal: Principal) -> impl IntoView {
    // The widest role first; the rest in the chip's tooltip.
    let labels: Vec<String> = principal.grants.iter().map(|g| g.label()).collect();
    let role = match labels.as_slice() {
        [] => "no role yet".to_owned(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} +{}", rest.len()),
    };
    let all_roles = labels.join(", ");
    let sign_out = (!principal.dev_login).then(|| {
        view! {
            <form method="post" action="/auth/logout">
                <button
                    type="submit"
                    class="rounded-md px-2 py-1 font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:bg-slate-800"
                >
                    "Sign out"
                </button>
            </form>
        }
    });
    view! {
        <span class="flex items-center gap-2">
            <span class="font-medium" title=principal.email.clone().unwrap_or_default()>
                {principal.display_name}
            </span>
            <span
                class=format!("{CHIP_CLASS} border-slate-300 text-slate-700 dark:border-slate-600 dark:text-slate-200")
                data-testid="role"
                title=all_roles
            >
                {role}
            </span>
            {principal
                .dev_login
                .then(|| {
                    view! {
                        <span
                            class=format!("{CHIP_CLASS} border-amber-400 bg-amber-50 text-amber-900 dark:border-amber-500 dark:bg-amber-950 dark:text-amber-200")
                            title="Signed in with the development login: no identity provider checked who you are."
                        >
                            "dev login"
                        </span>
                    }
                })}
            {sign_out}
        </span>
    }
}

/// Shown on every page while the development login is on: anyone who can reach this machine's
/// loopback address acts as an administrator.
#[component]
fn DevLoginBanner(me: OnceResource<Result<Principal, AppError>>) -> impl IntoView {
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                me.await
                    .ok()
                    .filter(|p| p.dev_login)
                    .map(|_| {
                        view! {
                            <div
                                role="note"
                                data-testid="dev-login-banner"
                                class="bg-amber-100 px-4 py-1 text-center text-xs font-medium text-amber-950 dark:bg-amber-900 dark:text-amber-50"
                            >
                                "Development login: no sign-in, everyone on this machine acts as an administrator. Configure --oidc-issuer before sharing Tephra."
                            </div>
                        }
                    })
            })}
        </Suspense>
    }
}
