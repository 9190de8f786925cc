//! A workload's GPU use over time, per pod, as Prometheus has it from NVIDIA's DCGM exporter.

use serde::{Deserialize, Serialize};

/// One pod's GPU figures: `(seconds since the epoch, value)`, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGpuUse {
    pub pod: String,
    /// Mean utilisation over the pod's GPUs, percent.
    pub utilisation: Vec<(i64, f64)>,
    /// Memory in use over the pod's GPUs, MiB.
    pub memory_mib: Vec<(i64, f64)>,
    /// The memory of the pod's GPUs together (in use and free), MiB, when the exporter says.
    #[serde(default)]
    pub memory_total_mib: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GpuUse {
    /// Why there are no figures, when there are none: no Prometheus configured, or it did not
    /// answer. The page shows this instead of an empty chart.
    pub unavailable: Option<String>,
    /// The range shown, seconds since the epoch.
    pub start: i64,
    pub end: i64,
    pub pods: Vec<PodGpuUse>,
}

impl GpuUse {
    pub fn unavailable(why: impl Into<String>) -> Self {
        GpuUse {
            unavailable: Some(why.into()),
            ..GpuUse::default()
        }
    }
}
