//! Where the training's GPU use shows: the figures are drawn by the server
//! (`pages/gpu_use.rs`) and read again every 15 seconds while the page shows, in the browser
//! only, so a Prometheus that is slow never holds the page back.

use crate::pages::gpu_use::GPU_USE_ID;
use leptos::either::Either;
use leptos::prelude::*;

#[component]
pub(super) fn GpuChart(uses_gpus: bool) -> impl IntoView {
    if uses_gpus {
        Either::Left(view! {
            <div id=GPU_USE_ID>
                <p class="text-sm text-slate-600 dark:text-slate-300">"Reading GPU use…"</p>
            </div>
        })
    } else {
        Either::Right(view! {
            <p class="text-sm text-slate-600 dark:text-slate-300">"This training asks for no GPUs."</p>
        })
    }
}

/// Reads the figures of workload `id` now and every 15 seconds, for as long as the calling
/// island lives.
#[cfg(feature = "hydrate")]
pub(super) fn keep_reading(id: &str) {
    let url = format!("/trainings/{}/gpu-use", tephra_core::model::url::encode(id));
    let read = move || {
        let url = url.clone();
        leptos::task::spawn_local(async move {
            let read = crate::components::fragment::replace_from(&url, &[GPU_USE_ID]);
            if let Err(error) = read.await {
                leptos::logging::warn!("cannot read the GPU use: {error:?}");
            }
        });
    };
    read();
    if let Ok(handle) = set_interval_with_handle(read, std::time::Duration::from_secs(15)) {
        on_cleanup(move || handle.clear());
    }
}
