//! GPU use from NVIDIA's DCGM exporter, the de-facto source in Kubernetes clusters: which series
//! to ask Prometheus for, what its answers mean for a workload, and when a training's GPUs
//! count as idle. Pure: the Prometheus client (`crate::gpu_use`) does the asking.
//!
//! The exporter labels each GPU's series with the pod and namespace that hold it (its
//! Kubernetes mapping), so a workload's series are those of its Job's pods: Volcano names them
//! `<job>-<task>-<index>`.

use std::collections::BTreeMap;

/// GPU utilisation in percent, per GPU.
pub const UTILISATION: &str = "DCGM_FI_DEV_GPU_UTIL";
/// Frame buffer memory in use, MiB, per GPU.
pub const MEMORY_USED: &str = "DCGM_FI_DEV_FB_USED";
/// Frame buffer memory free, MiB, per GPU.
pub const MEMORY_FREE: &str = "DCGM_FI_DEV_FB_FREE";

/// Below this utilisation (percent) a GPU does no work worth the name; DCGM reports whole
/// percents, so this is "0 %" with room for a stray sample.
pub const IDLE_BELOW: f64 = 1.0;

/// The series selector of one Job's pods. Kubernetes names hold only `[a-z0-9.-]`; the dot is
/// escaped so it matches itself.
fn selector(metric: &str, namespace: &str, job: &str) -> String {
    let job = job.replace('.', "\\\\.");
    format!("{metric}{{namespace=\"{namespace}\",pod=~\"{job}-.+\"}}")
}

/// Each pod's mean utilisation over its GPUs.
pub fn utilisation_by_pod(namespace: &str, job: &str) -> String {
    format!("avg by (pod) ({})", selector(UTILISATION, namespace, job))
}

/// Each pod's memory in use over its GPUs, MiB.
pub fn memory_by_pod(namespace: &str, job: &str) -> String {
    format!("sum by (pod) ({})", selector(MEMORY_USED, namespace, job))
}

/// Each pod's GPU memory (in use and free) over its GPUs, MiB: the chart's full scale.
pub fn memory_total_by_pod(namespace: &str, job: &str) -> String {
    format!(
        "sum by (pod) ({} + {})",
        selector(MEMORY_USED, namespace, job),
        selector(MEMORY_FREE, namespace, job)
    )
}

/// Every pod's mean utilisation in these namespaces, for a page of the list at once.
pub fn utilisation_in(namespaces: &[&str]) -> String {
    let names: Vec<String> = namespaces.iter().map(|n| n.replace('.', "\\\\.")).collect();
    format!(
        "avg by (namespace, pod) ({UTILISATION}{{namespace=~\"{}\"}})",
        names.join("|")
    )
}

/// One sample: seconds since the epoch, and the value.
pub type Sample = (f64, f64);

/// One pod's samples over a time range, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct PodSeries {
    pub pod: String,
    pub samples: Vec<Sample>,
}

/// The mean of the pods' latest figures (the list's "GPU use"); `None` without any.
pub fn current(latest: &[f64]) -> Option<f64> {
    (!latest.is_empty()).then(|| latest.iter().sum::<f64>() / latest.len() as f64)
}

/// What a project's idle rule decides for one training.
#[derive(Debug, Clone, PartialEq)]
pub enum Idleness {
    /// Some GPU worked within the window, or the window is not covered yet.
    Busy,
    /// Every GPU of every pod stayed below [`IDLE_BELOW`] for the whole window.
    Idle { seconds: u64 },
    /// Nothing to judge on: no pod holds a GPU, or the exporter has no series for one.
    Unknown(String),
}

/// Judges a training by its GPU pods' utilisation over the last `window_seconds` (ending `now`),
/// sampled every `step` seconds. Idle needs every pod that holds GPUs to have samples from the
/// start of the window (so a training younger than the window is never idle) and every sample
/// below [`IDLE_BELOW`].
pub fn judge(
    gpu_pods: &[String],
    series: &[PodSeries],
    now: f64,
    window_seconds: u64,
    step: f64,
) -> Idleness {
    if gpu_pods.is_empty() {
        return Idleness::Unknown("no pod holds a GPU".into());
    }
    let by_pod: BTreeMap<&str, &PodSeries> = series.iter().map(|s| (s.pod.as_str(), s)).collect();
    let start = now - window_seconds as f64;
    for pod in gpu_pods {
        let Some(s) = by_pod.get(pod.as_str()) else {
            return Idleness::Unknown(format!("Prometheus has no GPU series for the pod {pod}"));
        };
        let covers = s
            .samples
            .first()
            .is_some_and(|(at, _)| *at <= start + step * 1.5);
        if !covers {
            return Idleness::Busy;
        }
        if s.samples.iter().any(|(_, v)| *v >= IDLE_BELOW) {
            return Idleness::Busy;
        }
    }
    Idleness::Idle {
        seconds: window_seconds,
    }
}

/// The reason a suspended training shows, and its history records.
pub fn idle_reason(seconds: u64) -> String {
    use crate::model::waits::duration;
    format!(
        "suspended by the project's idle GPU rule: its GPUs were idle (under {IDLE_BELOW:.0} % use) for {}",
        duration(seconds)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(pod: &str, samples: &[(f64, f64)]) -> PodSeries {
        PodSeries {
            pod: pod.into(),
            samples: samples.to_vec(),
        }
    }

    fn pods(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn queries_select_the_jobs_pods_in_its_namespace() {
        assert_eq!(
            utilisation_by_pod("team-a", "llama.v2"),
            r#"avg by (pod) (DCGM_FI_DEV_GPU_UTIL{namespace="team-a",pod=~"llama\\.v2-.+"})"#
        );
        assert_eq!(
            memory_by_pod("team-a", "bert"),
            r#"sum by (pod) (DCGM_FI_DEV_FB_USED{namespace="team-a",pod=~"bert-.+"})"#
        );
        assert_eq!(
            memory_total_by_pod("team-a", "bert"),
            r#"sum by (pod) (DCGM_FI_DEV_FB_USED{namespace="team-a",pod=~"bert-.+"} + DCGM_FI_DEV_FB_FREE{namespace="team-a",pod=~"bert-.+"})"#
        );
        assert_eq!(
            utilisation_in(&["a", "b"]),
            r#"avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{namespace=~"a|b"})"#
        );
    }

    #[test]
    fn idle_needs_every_gpu_pod_quiet_for_the_whole_window() {
        let quiet = |pod| series(pod, &[(400.0, 0.0), (700.0, 0.0), (1000.0, 0.0)]);
        let gpu_pods = pods(&["j-worker-0", "j-worker-1"]);
        assert_eq!(
            judge(
                &gpu_pods,
                &[quiet("j-worker-0"), quiet("j-worker-1")],
                1000.0,
                600,
                30.0
            ),
            Idleness::Idle { seconds: 600 }
        );
        let working = series("j-worker-1", &[(400.0, 0.0), (700.0, 35.0), (1000.0, 0.0)]);
        assert_eq!(
            judge(
                &gpu_pods,
                &[quiet("j-worker-0"), working],
                1000.0,
                600,
                30.0
            ),
            Idleness::Busy,
            "one busy sample of one pod keeps the training"
        );
    }

    #[test]
    fn a_training_younger_than_the_window_is_not_idle() {
        let young = series("j-0", &[(900.0, 0.0), (1000.0, 0.0)]);
        assert_eq!(
            judge(&pods(&["j-0"]), &[young], 1000.0, 600, 30.0),
            Idleness::Busy
        );
    }

    #[test]
    fn missing_series_or_no_gpu_pods_decide_nothing() {
        assert!(matches!(
            judge(&[], &[], 1000.0, 600, 30.0),
            Idleness::Unknown(_)
        ));
        let only_one = series("j-worker-0", &[(400.0, 0.0), (1000.0, 0.0)]);
        assert!(matches!(
            judge(&pods(&["j-worker-0", "j-worker-1"]), &[only_one], 1000.0, 600, 30.0),
            Idleness::Unknown(why) if why.contains("j-worker-1")
        ));
    }

    #[test]
    fn the_reason_says_how_long_in_words() {
        assert!(idle_reason(600).ends_with("for 10 min"));
        assert!(idle_reason(5400).ends_with("for 1 h 30 min"));
        assert!(idle_reason(45).ends_with("for 45 s"));
        assert_eq!(current(&[50.0, 70.0]), Some(60.0));
        assert_eq!(current(&[]), None);
    }
}
