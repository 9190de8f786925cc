//! The trainings API's numbers, each beside the raw kube-rs baseline measured in the same run:
//! submit latency (POST until the Volcano Job exists, one client and four: `api_submit`), status latency (a pod's phase changes until
//! the SSE event arrives) with 1,000 trainings present, list latency for a filtered, sorted page of
//! 50 out of 10,000 trainings, and the server's memory with 10,000 trainings and their pods
//! watched. Starts its own testbed (10 fake nodes of 1,100 pods). Run with `scripts/bench`.
//!
//! `BENCH_TRAININGS` (default 10000) and `BENCH_LIVE` (default 1000) scale it down for a quick look;
//! `BENCH_SCALE_WAIT` bounds how long the memory phase waits for every pod; `BENCH_SUBMITS`
//! (default 300) is how many submits the one client makes, and the four clients as many together.

use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tephra_tests::bench::{
    self, env_usize, first_pods, percentiles, seen_at, submit_training, watch_phase,
};
use tephra_tests::process::rss_mib;
use tephra_tests::sse::SseStream;
use tephra_tests::tephra::{Launch, TephraServer};
use tephra_tests::testbed::{Testbed, job_resource};

#[path = "api_stored.rs"]
mod api_stored;
#[path = "api_submit.rs"]
mod api_submit;

const TRAININGS: &str = "/api/v1/workloads/trainings";
const SAMPLES: usize = 100;

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    fn new(server: &TephraServer) -> Self {
        Client {
            http: reqwest::Client::new(),
            base: server.base_url(),
        }
    }

    async fn submit(&self, name: &str) -> anyhow::Result<String> {
        let url = format!("{}{TRAININGS}", self.base);
        let answer = submit_training(&self.http, &url, name).await?;
        Ok(answer["workloadId"].as_str().unwrap_or_default().to_owned())
    }

    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        Ok(self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?)
    }

    /// Submits `count` trainings, `parallel` at a time.
    async fn submit_many(&self, prefix: &str, count: usize, parallel: usize) -> anyhow::Result<()> {
        let results: Vec<anyhow::Result<String>> = futures::stream::iter(0..count)
            .map(|i| async move { self.submit(&format!("{prefix}-{i}")).await })
            .buffer_unordered(parallel)
            .collect()
            .await;
        results.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
        Ok(())
    }

    async fn count(&self, query: &str) -> anyhow::Result<i64> {
        let page = self.get(&format!("{TRAININGS}?limit=1&{query}")).await?;
        Ok(page["total"].as_i64().unwrap_or_default())
    }

    /// Waits until `want` trainings run; prints progress.
    async fn wait_running(&self, want: i64) -> anyhow::Result<Duration> {
        let started = Instant::now();
        loop {
            let running = self.count("phase=Running").await?;
            if running >= want {
                return Ok(started.elapsed());
            }
            if started.elapsed() > Duration::from_secs(1800) {
                anyhow::bail!("only {running} of {want} trainings run after 30 minutes");
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }
}

/// When each workload's Job was first seen by a watch, by workload id.
type Seen = bench::Seen<Instant>;

fn watch_jobs(client: kube::Client) -> Seen {
    let seen = Seen::default();
    let record = seen.clone();
    let api: Api<DynamicObject> = Api::all_with(client, &job_resource());
    tokio::spawn(async move {
        let mut stream = watcher(
            api,
            watcher::Config::default().labels("app.kubernetes.io/managed-by=tephra"),
        )
        .default_backoff()
        .applied_objects()
        .boxed();
        while let Some(Ok(job)) = stream.next().await {
            if let Some(id) = job
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("tephra.dev/workload-id"))
            {
                record
                    .lock()
                    .expect("lock")
                    .entry(id.clone())
                    .or_insert_with(Instant::now);
            }
        }
    });
    seen
}

async fn status_latency(
    client: &Client,
    kube: &kube::Client,
    present: usize,
) -> anyhow::Result<()> {
    let page = client
        .get(&format!(
            "{TRAININGS}?phase=Running&limit={SAMPLES}&sortBy=name"
        ))
        .await?;
    let targets = first_pods(&page, "trainings");
    let pods: Api<Pod> = Api::namespaced(kube.clone(), "tephra-default");
    // The baseline: a raw watch of the same pods, noting when each is first seen Succeeded.
    let raw_seen = watch_phase(pods.clone(), "Succeeded", Instant::now);
    let mut events = SseStream::open(&format!("{}/api/v1/workloads/events", client.base)).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let patch =
        json!({ "metadata": { "annotations": { "testbed.tephra.dev/outcome": "Succeeded" } } });
    let (mut via_sse, mut via_raw) = (Vec::new(), Vec::new());
    for (id, pod) in &targets {
        let started = Instant::now();
        pods.patch(pod, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        loop {
            let event = events.next(Duration::from_secs(60)).await?;
            if event.event != "workload" {
                continue;
            }
            let data: Value = serde_json::from_str(&event.data)?;
            // A stream of many workloads carries the summary: per-task pod counts, no pod list.
            let succeeded = data["status"]["tasks"]
                .as_object()
                .is_some_and(|tasks| tasks.values().any(|t| t["succeeded"].as_u64() > Some(0)));
            if data["workloadId"] == id.as_str() && succeeded {
                via_sse.push(started.elapsed());
                break;
            }
        }
        via_raw.push(seen_at(&raw_seen, pod).await - started);
    }
    let (s50, s99) = percentiles(&mut via_sse);
    let (r50, r99) = percentiles(&mut via_raw);
    println!(
        "\n## Status latency ({} pod phase changes, one at a time, {present} trainings present)\n",
        via_sse.len()
    );
    println!(
        "Measured from the PATCH that makes KWOK end the pod; both paths include KWOK's reaction.\n"
    );
    println!("| path | p50 | p99 |\n|---|---|---|");
    println!(
        "| Tephra: watch, derive, write the row, SSE event received | {} | {} |",
        ms(s50),
        ms(s99)
    );
    println!(
        "| raw kube-rs watch on the same pods | {} | {} |",
        ms(r50),
        ms(r99)
    );
    Ok(())
}

/// Samples the server's memory every 30 s while Volcano brings up the pods of `scale` trainings,
/// until they all run or `BENCH_SCALE_WAIT` seconds (default 1800) have passed: on two cores,
/// Volcano's controller creates a few pods per second, which dominates this phase.
async fn memory(
    client: &Client,
    kube: &kube::Client,
    pid: u32,
    scale: usize,
) -> anyhow::Result<()> {
    let limit = Duration::from_secs(env_usize("BENCH_SCALE_WAIT", 1800) as u64);
    let pods: Api<Pod> = Api::namespaced(kube.clone(), "tephra-default");
    let jobs: Api<DynamicObject> =
        Api::namespaced_with(kube.clone(), "tephra-default", &job_resource());
    let first = kube::api::ListParams::default().limit(1);
    println!("\n## Memory with {scale} trainings\n");
    println!(
        "| after | Volcano Jobs | pods | trainings running | server RSS |\n|---|---|---|---|---|"
    );
    let started = Instant::now();
    loop {
        let job_list = jobs.list_metadata(&first).await?;
        let job_count =
            job_list.metadata.remaining_item_count.unwrap_or(0) as usize + job_list.items.len();
        let pod_list = pods.list_metadata(&first).await?;
        let pod_count =
            pod_list.metadata.remaining_item_count.unwrap_or(0) as usize + pod_list.items.len();
        let running = client.count("phase=Running").await?;
        println!(
            "| {:.0} s | {job_count} | {pod_count} | {running} | {:.0} MiB |",
            started.elapsed().as_secs_f64(),
            rss_mib(pid)
        );
        if running as usize >= scale - SAMPLES || started.elapsed() > limit {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_secs(30)).await;
    }
}

fn main() -> anyhow::Result<()> {
    let scale = env_usize("BENCH_TRAININGS", 10_000);
    let live = env_usize("BENCH_LIVE", 1_000).min(scale);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        api_stored::list_latency(scale).await?;

        let pods_per_node = (scale / 10 + 100).to_string();
        let testbed = Testbed::start_with(&[
            "--nodes",
            "10",
            "--pods",
            &pods_per_node,
            "--cpu",
            "1000",
            "--memory",
            "4000Gi",
        ])?;
        let kube = testbed.client().await?;
        let server = Launch::default()
            .arg(format!("--kubeconfig={}", testbed.kubeconfig.display()))
            .start()?;
        let pid = server.process.id();
        let client = Client::new(&server);
        println!("\n# Trainings API on the testbed (10 fake nodes), release build\n");
        println!("server RSS after start: {:.0} MiB", rss_mib(pid));
        let seen = watch_jobs(kube.clone());
        let present = api_submit::submit_latency(&client, &kube, &seen).await?;

        client
            .submit_many("live", live.saturating_sub(present), 16)
            .await?;
        // The status phase meets a quiet cluster: everything submitted so far runs.
        let live = live.max(present);
        let took = client.wait_running(live as i64).await?;
        println!(
            "\n{live} trainings running ({:.0} s from the last submit); server RSS {:.0} MiB",
            took.as_secs_f64(),
            rss_mib(pid)
        );
        status_latency(&client, &kube, live).await?;

        let scale = scale.max(live);
        client.submit_many("scale", scale - live, 16).await?;
        memory(&client, &kube, pid, scale).await?;
        drop(server);
        drop(testbed);
        anyhow::Ok(())
    })
}
