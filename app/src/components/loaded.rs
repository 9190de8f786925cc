//! A page's data, loaded on the server before the page is sent (every route renders with
//! `SsrMode::Async`), shown by the page's view or, when loading failed, by an [`ErrorPanel`] in
//! its place.

use crate::components::error_panel::ErrorPanel;
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use leptos::server::codee::string::JsonSerdeCodec;
use serde::{Serialize, de::DeserializeOwned};

/// `show(value)` once `resource` has loaded, or why it could not be.
pub fn loaded<T, V>(
    resource: Resource<Result<T, AppError>, JsonSerdeCodec>,
    show: impl Fn(T) -> V + Clone + Send + Sync + 'static,
) -> impl IntoView
where
    T: Clone + Send + Sync + Serialize + DeserializeOwned + 'static,
    V: IntoView + 'static,
{
    view! {
        <Suspense fallback=|| view! { <p class="text-slate-500">"Loading…"</p> }>
            {move || {
                let show = show.clone();
                Suspend::new(async move {
                    match resource.await {
                        Ok(value) => Either::Left(show(value)),
                        Err(error) => Either::Right(view! { <ErrorPanel error /> }),
                    }
                })
            }}
        </Suspense>
    }
}
