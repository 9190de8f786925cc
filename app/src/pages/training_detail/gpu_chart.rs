//! GPU utilisation and memory per pod over the last half hour: two small line charts, read again
//! every 15 seconds while the page shows. Drawn as SVG here, so no chart library ships.

#[cfg(feature = "hydrate")]
use crate::api::get_gpu_use;
use leptos::either::{Either, EitherOf4};
use leptos::prelude::*;
use tephra_core::model::gpu_use::{GpuUse, PodGpuUse};
use tephra_core::model::workload::Workload;

const WIDTH: f64 = 480.0;
const HEIGHT: f64 = 120.0;
/// One colour per pod, in turn; Tailwind's 600s read on light and dark backgrounds.
const COLOURS: &[&str] = &[
    "#4f46e5", "#059669", "#d97706", "#dc2626", "#0891b2", "#9333ea",
];

#[component]
pub(super) fn GpuChart(workload: RwSignal<Workload>) -> impl IntoView {
    let id = workload.with_untracked(|w| w.workload_id.clone());
    let uses_gpus = Memo::new(move |_| workload.with(|w| w.gpus > 0.0));
    let figures = RwSignal::new(None::<Result<GpuUse, crate::error::AppError>>);
    // Read in the browser only, by an effect (effects never run on the server): a Prometheus
    // that is slow must not hold the page back, and a resource read during server rendering
    // outlives the render that made it.
    #[cfg(feature = "hydrate")]
    {
        let tick = RwSignal::new(0u32);
        if let Ok(handle) = set_interval_with_handle(
            move || tick.update(|n| *n += 1),
            std::time::Duration::from_secs(15),
        ) {
            on_cleanup(move || handle.clear());
        }
        Effect::new(move |_| {
            tick.track();
            let id = id.clone();
            leptos::task::spawn_local(async move {
                let answer = get_gpu_use(id).await;
                // The page may have gone meanwhile.
                let _ = figures.try_set(Some(answer));
            });
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
    view! {
        <Show when=move || uses_gpus.get()
            fallback=|| view! { <p class="text-sm text-slate-600 dark:text-slate-300">"This training asks for no GPUs."</p> }>
            // A plain closure rather than <Suspense>: the figures are read in the browser only,
            // so the server and the first client render both say "Reading".
            {move || match figures.get() {
                None => EitherOf4::A(view! {
                    <p class="text-sm text-slate-600 dark:text-slate-300">"Reading GPU use…"</p>
                }),
                Some(Ok(GpuUse { unavailable: Some(why), .. }) | Err(crate::error::AppError::Unavailable(why))) => EitherOf4::B(view! {
                    <p class="text-sm text-slate-600 dark:text-slate-300" data-testid="gpu-use-unavailable">{why}</p>
                }),
                Some(Ok(figures)) => EitherOf4::C(view! { <Charts figures /> }),
                Some(Err(error)) => EitherOf4::D(view! {
                    <p class="text-sm text-red-700 dark:text-red-300">{error.to_string()}</p>
                }),
            }}
        </Show>
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
