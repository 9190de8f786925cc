//! What the benchmark binaries share: knobs from the environment, percentiles, the training they
//! submit by the thousand, and a raw kube-rs watch as the baseline for status latencies.

use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A number from the environment, or `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// p50 and p99 of the samples (sorted in place).
pub fn percentiles<T: PartialOrd + Copy>(samples: &mut [T]) -> (T, T) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let at = |q: usize| samples[((samples.len() * q) / 100).min(samples.len() - 1)];
    (at(50), at(99))
}

/// A one-pod training that runs until told otherwise and fits by the thousand.
pub fn small_training(name: &str) -> Value {
    json!({ "name": name, "projectId": "default",
            "spec": { "image": "busybox", "command": "sleep infinity",
                      "compute": { "cpuCoreRequest": 0.01, "cpuMemoryRequest": "10M" } } })
}

/// Submits [`small_training`] `name` to `url` and returns the answer. A project may have 1,000
/// waiting (the profile's `maxWaitingPerProject`); beyond that it submits again once some have
/// started, as a client would. Any other refusal is an error.
pub async fn submit_training(
    http: &reqwest::Client,
    url: &str,
    name: &str,
) -> anyhow::Result<Value> {
    loop {
        let res = http.post(url).json(&small_training(name)).send().await?;
        let status = res.status();
        if status.is_success() {
            return Ok(res.json().await?);
        }
        let body = res.text().await.unwrap_or_default();
        anyhow::ensure!(
            body.contains("maxWaitingPerProject"),
            "submitting {name}: {status} {body}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

/// The Volcano Job Tephra renders for [`small_training`] `name` of workload `id` in `queue`, for
/// a raw kube-rs client to create as a baseline (unsigned, with no namespace set).
pub fn raw_job(name: &str, id: &str, queue: &str) -> anyhow::Result<kube::api::DynamicObject> {
    use tephra_core::domain::cluster::ClusterProfile;
    use tephra_core::domain::request::{Placement, Request, WorkloadKind};
    let request = Request::parse(&small_training(name), WorkloadKind::Training)
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let workload = request.owner(&Placement {
        workload_id: id,
        project: "default",
        queue: Some(queue),
        created_by: "bench",
        name_suffix: "abcde",
        token_uid_gid: None,
    });
    let rendered = request
        .render(&workload, &ClusterProfile::default())
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let mut job: kube::api::DynamicObject =
        serde_json::from_value(serde_json::to_value(&rendered.job)?)?;
    job.metadata.namespace = None;
    Ok(job)
}

/// `(workloadId, first pod name)` of each workload in a list answer's `key` array.
pub fn first_pods(page: &Value, key: &str) -> Vec<(String, String)> {
    page[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some((
                t["workloadId"].as_str()?.to_owned(),
                t["status"]["pods"][0]["name"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// When each pod was first seen in a phase, by pod name.
pub type Seen<T> = Arc<Mutex<HashMap<String, T>>>;

/// The baseline: a raw watch of `pods` that notes `now()` when each is first seen in `phase`.
pub fn watch_phase<T: Send + 'static>(
    pods: Api<Pod>,
    phase: &'static str,
    now: fn() -> T,
) -> Seen<T> {
    let seen: Seen<T> = Arc::default();
    let record = seen.clone();
    tokio::spawn(async move {
        let mut stream = watcher(pods, watcher::Config::default())
            .applied_objects()
            .boxed();
        while let Some(Ok(pod)) = stream.next().await {
            if pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some(phase) {
                let name = pod.metadata.name.clone().unwrap_or_default();
                record.lock().expect("lock").entry(name).or_insert_with(now);
            }
        }
    });
    seen
}

/// When the watch first saw `pod`, once it has.
pub async fn seen_at<T: Copy>(seen: &Seen<T>, pod: &str) -> T {
    loop {
        if let Some(at) = seen.lock().expect("lock").get(pod) {
            return *at;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}

/// `bytes` gzip-compressed at flate2's default level (6), as every page-weight figure is taken.
pub fn gzip_len(bytes: &[u8]) -> usize {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip into memory");
    encoder.finish().expect("gzip into memory").len()
}
