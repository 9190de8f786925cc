//! GPU use for the pages: one workload's over time, per pod, and the current figure of a page of
//! the list. Prometheus is optional and may be down; either way the page says so instead of
//! failing, because GPU use is an extra beside what Tephra itself knows.

use super::Workloads;
use crate::prometheus::{Labels, Prometheus};
use app::error::AppError;
use std::collections::{BTreeMap, HashMap};
use tephra_core::domain::gpu_use::{
    current, memory_by_pod, memory_total_by_pod, utilisation_by_pod, utilisation_in,
};
use tephra_core::model::gpu_use::{GpuUse, PodGpuUse};
use tephra_core::model::phase::Phase;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::Workload;

/// The detail page shows the last half hour (or since the workload was created).
const WINDOW_SECONDS: f64 = 30.0 * 60.0;
/// Points per line: enough for a small chart, few enough to ship.
const SAMPLES: f64 = 60.0;

/// A time range: seconds since the epoch, and about how many points per line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub start: f64,
    pub end: f64,
    pub samples: f64,
}

pub const NO_PROMETHEUS: &str =
    "GPU use is not shown: Tephra runs without a Prometheus (--prometheus-url)";

fn pod_of(labels: &Labels) -> String {
    labels.get("pod").cloned().unwrap_or_default()
}

impl Workloads {
    /// The workload's GPU use per pod over the last half hour (since it was created, if later).
    pub async fn gpu_use(&self, principal: &Principal, id: &str) -> Result<GpuUse, AppError> {
        self.gpu_use_over(principal, id, None).await
    }

    /// The workload's GPU use per pod over `span` (the last half hour when `None`).
    pub async fn gpu_use_over(
        &self,
        principal: &Principal,
        id: &str,
        span: Option<Span>,
    ) -> Result<GpuUse, AppError> {
        let listing = self.watched(principal, id).await?;
        let Some(prometheus) = &self.prometheus else {
            return Ok(GpuUse::unavailable(NO_PROMETHEUS));
        };
        let project = self.db.projects().get(listing.workload.project_id).await?;
        let Span {
            start,
            end,
            samples,
        } = span.unwrap_or_else(|| {
            let end = chrono::Utc::now().timestamp() as f64;
            let created = listing.workload.created_at.timestamp() as f64;
            Span {
                start: created.max(end - WINDOW_SECONDS).min(end - 60.0),
                end,
                samples: SAMPLES,
            }
        });
        let step = ((end - start) / samples).round().max(1.0);
        let (namespace, job) = (&project.namespace, &listing.workload.name);
        let utilisation = utilisation_by_pod(namespace, job);
        let memory = memory_by_pod(namespace, job);
        let total = memory_total_by_pod(namespace, job);
        let (utilisation, memory, total) = tokio::join!(
            prometheus.range(&utilisation, start, end, step),
            prometheus.range(&memory, start, end, step),
            prometheus.range(&total, start, end, step)
        );
        let (utilisation, memory, total) = match (utilisation, memory, total) {
            (Ok(u), Ok(m), Ok(t)) => (u, m, t),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                tracing::warn!(workload = %listing.workload.id, error = %e, "no GPU use");
                return Ok(GpuUse::unavailable(format!("GPU use is not shown: {e}")));
            }
        };
        let whole = |samples: Vec<(f64, f64)>| -> Vec<(i64, f64)> {
            samples.into_iter().map(|(at, v)| (at as i64, v)).collect()
        };
        let mut pods: BTreeMap<String, PodGpuUse> = BTreeMap::new();
        for (labels, samples) in utilisation {
            let pod = pod_of(&labels);
            let entry = pods.entry(pod.clone()).or_default();
            entry.pod = pod;
            entry.utilisation = whole(samples);
        }
        for (labels, samples) in memory {
            let pod = pod_of(&labels);
            let entry = pods.entry(pod.clone()).or_default();
            entry.pod = pod;
            entry.memory_mib = whole(samples);
        }
        // The cards' size only scales the chart; a pod it does not cover keeps its own scale.
        for (labels, samples) in total {
            if let Some(entry) = pods.get_mut(&pod_of(&labels)) {
                entry.memory_total_mib = samples.iter().map(|(_, v)| *v).reduce(f64::max);
            }
        }
        Ok(GpuUse {
            unavailable: None,
            start: start as i64,
            end: end as i64,
            pods: pods.into_values().collect(),
        })
    }

    /// Fills in the current GPU use of the running workloads that hold GPUs, in one query for
    /// the page. Leaves the figures out when Prometheus is not there or does not answer.
    pub async fn fill_gpu_use(&self, workloads: &mut [Workload]) {
        let Some(prometheus) = &self.prometheus else {
            return;
        };
        let running = |w: &Workload| w.actual_phase == Phase::Running && w.gpus > 0.0;
        let mut namespaces: HashMap<String, String> = HashMap::new();
        for w in workloads.iter().filter(|w| running(w)) {
            if namespaces.contains_key(&w.project_name) {
                continue;
            }
            if let Ok(project) = self.db.projects().by_key(&w.project_name).await {
                namespaces.insert(w.project_name.clone(), project.namespace);
            }
        }
        if namespaces.is_empty() {
            return;
        }
        let names: Vec<&str> = namespaces.values().map(String::as_str).collect();
        let figures = match now(prometheus, &utilisation_in(&names)).await {
            Ok(figures) => figures,
            Err(e) => {
                tracing::warn!(error = %e, "no GPU use for the list");
                return;
            }
        };
        for w in workloads.iter_mut().filter(|w| running(w)) {
            let Some(namespace) = namespaces.get(&w.project_name) else {
                continue;
            };
            let latest: Vec<f64> = w
                .status
                .pods
                .iter()
                .filter_map(|p| figures.get(&(namespace.clone(), p.name.clone())).copied())
                .collect();
            w.gpu_use = current(&latest);
        }
    }
}

/// Each pod's figure now, by namespace and pod.
async fn now(
    prometheus: &Prometheus,
    query: &str,
) -> Result<HashMap<(String, String), f64>, crate::prometheus::Error> {
    Ok(prometheus
        .instant(query)
        .await?
        .into_iter()
        .map(|(labels, v)| {
            let namespace = labels.get("namespace").cloned().unwrap_or_default();
            ((namespace, pod_of(&labels)), v)
        })
        .collect())
}
