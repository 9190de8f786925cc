//! What the organisation page's forms share: the classes of their fields and table rows, and
//! how a save's answer is shown.

use super::Refusal;
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;

pub(super) const FIELD: &str = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-950";
pub(super) const LABEL: &str = "text-sm font-medium";
pub(super) const ROW: &str = "border-b border-slate-100 last:border-0 dark:border-slate-800";
pub(super) const CELL: &str = "px-4 py-2";

/// What a save answered: nothing yet, done, or the server's refusal.
pub(super) fn outcome<T: 'static>(
    value: impl Fn() -> Option<Result<T, AppError>> + Send + Sync + 'static,
    done: &'static str,
) -> impl IntoView {
    move || {
        value().map(|result| match result {
            Ok(_) => Either::Left(view! { <p role="status" class="mt-3 text-sm text-emerald-800 dark:text-emerald-300">{done}</p> }),
            Err(error) => Either::Right(view! { <Refusal error /> }),
        })
    }
}
