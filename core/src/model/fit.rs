//! Whether a request fits now: what `POST .../fit` answers and the form shows before submit.

use serde::{Deserialize, Serialize};

/// How a request would fare if submitted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// Within its project's quota, with room in the cluster as Tephra counts it.
    WithinQuota,
    /// Beyond the quota, within the limits: runs on idle capacity and may be preempted.
    OverQuota,
    /// Admitted, but the cluster's GPUs are taken by other workloads as Tephra counts them: it
    /// waits until they free up.
    Waiting,
    /// Admitted into the queue: it fits its project's and department's limits on its own, not
    /// beside what their workloads use now, so it starts when enough of them finish.
    Queued,
    /// It can never run as asked: the `details` say why.
    Refused,
}

/// GPUs (devices), CPU (millicores) and memory (MiB).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Resources {
    pub gpus: f64,
    pub cpu_millis: i64,
    pub memory_mib: i64,
}

/// The same, each possibly unbounded (`null`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Bounds {
    pub gpus: Option<f64>,
    pub cpu_millis: Option<f64>,
    pub memory_mib: Option<f64>,
}

/// One reason, at its field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Detail {
    pub field: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    pub verdict: Verdict,
    /// When it would be queued or wait for GPUs: how many waiting workloads it would wait
    /// behind (its project's of the same or a higher priority when queued; all those competing
    /// for its nodes when it waits for GPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued_behind: Option<u32>,
    /// In words, with the numbers.
    pub message: String,
    /// Why it is refused, by field, as a 400 would say it.
    pub details: Vec<Detail>,
    /// What the request asks for, all pods together.
    pub asks: Resources,
    /// What the project's live workloads already use.
    pub project_used: Resources,
    pub project_quota: Bounds,
    pub project_limit: Bounds,
    /// The GPUs of the node pools it may use that Tephra's workloads leave free.
    pub free_gpus: Option<f64>,
}

/// What the form shows of a [`Fit`]: the verdict, the message, the numbers in a sentence and the
/// refusals by field, worded on the server so the form's script decodes strings, not the
/// resources and bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitShown {
    pub verdict: Verdict,
    pub message: String,
    pub numbers: String,
    /// `(field, message)`.
    pub details: Vec<(String, String)>,
}

fn bound(b: Option<f64>) -> String {
    b.map_or_else(|| "none".to_owned(), |n| n.to_string())
}

impl FitShown {
    pub fn of(fit: Fit) -> FitShown {
        let mut numbers = format!(
            "Asks {} GPU(s); the project uses {} of its quota {} (limit {}).",
            fit.asks.gpus,
            fit.project_used.gpus,
            bound(fit.project_quota.gpus),
            bound(fit.project_limit.gpus)
        );
        if let Some(free) = fit.free_gpus {
            numbers.push_str(&format!(" {free} GPU(s) free in its pools."));
        }
        FitShown {
            verdict: fit.verdict,
            message: fit.message,
            numbers,
            details: fit
                .details
                .into_iter()
                .map(|d| (d.field, d.message))
                .collect(),
        }
    }
}
