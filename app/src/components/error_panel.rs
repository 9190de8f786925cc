//! How a failed load is shown in place of the content it was for.

use crate::error::AppError;
use leptos::prelude::*;

#[component]
pub fn ErrorPanel(error: AppError) -> impl IntoView {
    view! {
        <div
            role="alert"
            class="rounded-lg border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
            <p class="font-semibold">"Could not load this"</p>
            <p>{error.to_string()}</p>
        </div>
    }
}
