//! `/trainings/{id}/gpu-use`: a training's GPU utilisation and memory per pod over the last
//! half hour, two small line charts drawn as SVG on the server, so no chart library ships and
//! the browser carries no code to draw them. The training's page shows this page's figures and
//! reads them again every 15 seconds (`training_detail/gpu_chart.rs`).

use crate::api::get_gpu_use;
use crate::error::AppError;
use leptos::either::{Either, EitherOf3};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use tephra_core::model::gpu_use::{GpuUse, PodGpuUse};
use tephra_core::model::url::encode;

/// The element holding the figures, here and on the training's page.
pub const GPU_USE_ID: &str = "gpu-use-live";

const WIDTH: f64 = 480.0;
const HEIGHT: f64 = 120.0;
/// One colour per pod, in turn; Tailwind's 600s read on light and dark backgrounds.
const COLOURS: &[&str] = &[
    "#4f46e5", "#059669", "#d97706", "#dc2626", "#0891b2", "#9333ea",
];

#[component]
pub fn GpuUsePage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let figures = Resource::new(move || id.get(), get_gpu_use);
    view! {
        <Title text="GPU use" />
        <div class="flex flex-col gap-4">
            <p class="text-sm text-slate-600 dark:text-slate-300">
                <a href=move || format!("/trainings/{}", encode(&id.get())) class="hover:underline">"The training"</a>
            </p>
            <h1 class="text-2xl font-semibold tracking-tight">"GPU use"</h1>
            <Suspense fallback=|| view! { <p class="text-slate-500">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let answer = figures.await;
                    view! { <div id=GPU_USE_ID><Figures answer /></div> }
                })}
            </Suspense>
        </div>
    }
}

/// The charts, or why there are none.
#[component]
fn Figures(answer: Result<GpuUse, AppError>) -> impl IntoView {
    match answer {
        Ok(GpuUse {
            unavailable: Some(why),
            ..
        })
        | Err(AppError::Unavailable(why)) => EitherOf3::A(view! {
            <p class="text-sm text-slate-600 dark:text-slate-300" data-testid="gpu-use-unavailable">{why}</p>
        }),
        Ok(figures) => EitherOf3::B(view! { <Charts figures /> }),
        Err(error) => EitherOf3::C(view! {
            <p class="text-sm text-red-700 dark:text-red-300">{error.to_string()}</p>
        }),
    }
}

#[component]
fn Charts(figures: GpuUse) -> impl IntoView {
    if figures.pods.is_empty() {
        return Either::Left(view! {
            <p class="text-sm text-slate-600 dark:text-slate-300" data-testid="gpu-use-none">
                "No GPU figures yet: they appear once the pods run and the exporter reports them."
            </p>
        });
    }
    // The cards' size when the exporter gives it, so a fuller card looks fuller; otherwise the
    // most memory any pod used.
    let memory_top = figures
        .pods
        .iter()
        .flat_map(|p| {
            p.memory_total_mib
                .into_iter()
                .chain(p.memory_mib.iter().map(|(_, v)| *v))
        })
        .fold(1.0_f64, f64::max);
    let span = (figures.start, figures.end);
    Either::Right(view! {
        <div class="grid gap-4 md:grid-cols-2" data-testid="gpu-use">
            <Chart title="Utilisation (%)" top=100.0 span pods=figures.pods.clone()
                series=|p: &PodGpuUse| p.utilisation.clone() unit="%" scale=1.0 />
            <Chart title="Memory in use (GiB)" top=memory_top / 1024.0 span pods=figures.pods.clone()
                series=|p: &PodGpuUse| p.memory_mib.clone() unit=" GiB" scale=1.0 / 1024.0 />
        </div>
        <ul class="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs" data-testid="gpu-use-legend">
            {figures.pods.iter().enumerate().map(|(i, p)| {
                let now = p.utilisation.last().map(|(_, v)| format!("{v:.0} %")).unwrap_or_else(|| "–".into());
                view! {
                    <li class="flex items-center gap-1" data-pod=p.pod.clone()>
                        <span class="inline-block h-2 w-3 rounded-sm" style=format!("background:{}", COLOURS[i % COLOURS.len()])></span>
                        <span class="font-mono">{p.pod.clone()}</span>
                        <span class="tabular-nums text-slate-600 dark:text-slate-300">{now}</span>
                    </li>
                }
            }).collect_view()}
        </ul>
    })
}

/// One chart: a line per pod, `series` picking its samples, scaled by `scale` into `unit`.
#[component]
fn Chart(
    title: &'static str,
    top: f64,
    span: (i64, i64),
    pods: Vec<PodGpuUse>,
    series: fn(&PodGpuUse) -> Vec<(i64, f64)>,
    unit: &'static str,
    scale: f64,
) -> impl IntoView {
    let top = if top > 0.0 { top } else { 1.0 };
    let width = (span.1 - span.0).max(1) as f64;
    let lines = pods
        .iter()
        .enumerate()
        .map(|(i, pod)| {
            let points = series(pod)
                .iter()
                .map(|(at, v)| {
                    let x = (*at - span.0) as f64 / width * WIDTH;
                    let y = HEIGHT - (v * scale / top).clamp(0.0, 1.0) * HEIGHT;
                    format!("{x:.1},{y:.1}")
                })
                .collect::<Vec<_>>()
                .join(" ");
            view! {
                <polyline points=points fill="none" stroke=COLOURS[i % COLOURS.len()] stroke-width="1.5"
                    vector-effect="non-scaling-stroke" />
            }
        })
        .collect_view();
    view! {
        <figure>
            <figcaption class="mb-1 flex justify-between text-xs font-medium">
                <span>{title}</span>
                <span class="tabular-nums text-slate-600 dark:text-slate-300">{format!("max {top:.0}{unit}")}</span>
            </figcaption>
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") preserveAspectRatio="none" role="img" aria-label=title
                class="h-28 w-full rounded-md border border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-900">
                <line x1="0" x2=WIDTH y1=HEIGHT / 2.0 y2=HEIGHT / 2.0 stroke="currentColor" stroke-opacity="0.15" />
                {lines}
            </svg>
            <p class="mt-1 flex justify-between text-xs text-slate-600 dark:text-slate-300">
                <span>{format!("{} min ago", (span.1 - span.0) / 60)}</span>
                <span>"now"</span>
            </p>
        </figure>
    }
}
