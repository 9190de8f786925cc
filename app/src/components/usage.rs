//! A use against a quota and a limit (a project's or department's GPUs, CPU or memory) or
//! against a total (a node pool's or node's GPUs), as text and a bar that turns amber over the
//! quota.

use leptos::prelude::*;

/// A figure without a trailing `.0`, with at most two decimals: "3", "0.5".
pub fn figure(n: f64) -> String {
    let rounded = (n * 100.0).round() / 100.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded}")
    }
}

/// "3 / 4 (8)" (in use / quota (limit)), "1 / – (no limit)", or with `total` "3 / 8".
#[component]
pub fn Usage(
    in_use: f64,
    quota: Option<f64>,
    limit: Option<f64>,
    /// `limit` is what there is (a pool's or node's GPUs), not a unit's ceiling.
    #[prop(optional)]
    total: bool,
) -> impl IntoView {
    let text = if total {
        format!(
            "{} / {}",
            figure(in_use),
            limit.map_or_else(|| "–".to_owned(), figure)
        )
    } else {
        format!(
            "{} / {} ({})",
            figure(in_use),
            quota.map_or_else(|| "–".to_owned(), figure),
            limit.map_or_else(|| "no limit".to_owned(), figure)
        )
    };
    let scale = quota.filter(|q| *q > 0.0).or(limit.filter(|l| *l > 0.0));
    let bar = scale.map(|scale| {
        let percent = (in_use / scale * 100.0).clamp(0.0, 100.0);
        let over = quota.is_some_and(|q| in_use > q);
        let colour = if over { "bg-amber-500" } else { "bg-sky-600" };
        view! {
            <div class="mt-1 h-1.5 w-32 rounded-md bg-slate-200 dark:bg-slate-700" aria-hidden="true">
                <div class=format!("h-1.5 rounded-md {colour}") style=format!("width: {percent:.0}%")></div>
            </div>
        }
    });
    view! {
        <span class="tabular-nums">{text}</span>
        {bar}
    }
}
