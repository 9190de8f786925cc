//! Where the training's GPU use shows: the figures are drawn by the server
//! (`pages/gpu_use.rs`) and read again every 15 seconds while the page shows, in the browser
//! only, so a Prometheus that is slow never holds the page back.

use crate::pages::gpu_use::GPU_USE_ID;
use leptos::either::Either;
use leptos::prelude::*;
use tephra_core::model::workload::Workload;

#[cfg(feature = "hydrate")]
const EVERY: std::time::Duration = std::time::Duration::from_secs(15);

#[component]
pub(super) fn GpuChart(workload: RwSignal<Workload>) -> impl IntoView {
    let id = workload.with_untracked(|w| w.workload_id.clone());
    let uses_gpus = workload.with_untracked(|w| w.gpus > 0.0);
    #[cfg(feature = "hydrate")]
    if uses_gpus {
        let url = format!(
            "/trainings/{}/gpu-use",
            tephra_core::model::url::encode(&id)
        );
        let read = move || {
            let url = url.clone();
            leptos::task::spawn_local(async move {
                if let Err(error) =
                    crate::components::fragment::replace_from(&url, GPU_USE_ID).await
                {
                    leptos::logging::warn!("cannot read the GPU use: {error:?}");
                }
            });
        };
        read();
        if let Ok(handle) = set_interval_with_handle(read, EVERY) {
            on_cleanup(move || handle.clear());
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
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
