//! The page for any path no route matches; answered with status 404.

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found" />
        <div class="py-16 text-center">
            <p class="text-sm font-semibold text-indigo-600 dark:text-indigo-400">"404"</p>
            <h1 class="mt-2 text-2xl font-semibold tracking-tight">"There is no page here"</h1>
            <p class="mt-2 text-slate-600 dark:text-slate-400">
                "The address may be mistyped, or what it pointed to was deleted."
            </p>
            <a href="/" class="mt-6 inline-block rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500">
                "Back to the overview"
            </a>
        </div>
    }
}
