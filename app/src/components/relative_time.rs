//! Timestamps as people read them; the exact time stays available on hover and to screen readers.

use leptos::prelude::*;

#[component]
pub fn Timestamp(rfc3339: String) -> impl IntoView {
    // Server and browser must render the same text for hydration, so no clock is read here.
    let shown = rfc3339
        .get(..16)
        .map(|s| s.replace('T', " "))
        .unwrap_or_else(|| rfc3339.clone());
    view! {
        <time datetime=rfc3339.clone() title=rfc3339>
            {shown}
        </time>
    }
}
