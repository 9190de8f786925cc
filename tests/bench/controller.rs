//! The controller's throughput on a cold start (issue 36): `BENCH_JOBS` (default 1,000) stored
//! trainings that all need a Job, as after a restart with a filled database or the end of an
//! API-server outage, against a raw kube-rs client creating the same rendered Jobs on the same
//! API server, in the same run.
//!
//! 1. The release server starts without a cluster and stores the trainings through the API
//!    (it keeps them until it runs with one), then stops.
//! 2. The baseline: a raw kube-rs client (no client-side rate limit, as Tephra's) creates the same
//!    number of rendered Jobs in a namespace of its own, `BENCH_RAW_PARALLEL` (default 8, the
//!    controller's concurrency) at a time. The benchmark then waits until Volcano has made all
//!    their pods run, so both phases start on a settled cluster.
//! 3. The release server starts again on the same database, now with the cluster, and creates
//!    every Job.
//!
//! A watch of Jobs times both: the rate is the Jobs seen between the first and the last, per
//! second. Starts its own testbed (10 fake nodes of 1,100 pods).

use futures::StreamExt;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, DynamicObject, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tephra_tests::bench::{env_usize, raw_job, small_training, watch_phase};
use tephra_tests::process::cpu_seconds;
use tephra_tests::tephra::Launch;
use tephra_tests::testbed::{Testbed, job_resource};

const RAW_NAMESPACE: &str = "bench-raw";
const TEPHRA_NAMESPACE: &str = "tephra-default";

/// When the watch first saw each Job, by namespace.
#[derive(Clone, Default)]
struct Arrivals(Arc<Mutex<Vec<(String, Instant)>>>);

impl Arrivals {
    fn watch(client: kube::Client) -> Self {
        let arrivals = Arrivals::default();
        let record = arrivals.clone();
        let api: Api<DynamicObject> = Api::all_with(client, &job_resource());
        tokio::spawn(async move {
            let mut seen = std::collections::HashSet::new();
            let mut stream = watcher(api, watcher::Config::default())
                .default_backoff()
                .applied_objects()
                .boxed();
            while let Some(Ok(job)) = stream.next().await {
                let namespace = job.metadata.namespace.clone().unwrap_or_default();
                let name = job.metadata.name.clone().unwrap_or_default();
                if seen.insert((namespace.clone(), name)) {
                    record
                        .0
                        .lock()
                        .expect("lock")
                        .push((namespace, Instant::now()));
                }
            }
        });
        arrivals
    }

    fn in_namespace(&self, namespace: &str) -> Vec<Instant> {
        let all = self.0.lock().expect("lock");
        all.iter()
            .filter(|(n, _)| n == namespace)
            .map(|(_, at)| *at)
            .collect()
    }

    /// The arrival times in `namespace` once there are `count`, or an error after `wait`.
    async fn all(
        &self,
        namespace: &str,
        count: usize,
        wait: Duration,
    ) -> anyhow::Result<Vec<Instant>> {
        let started = Instant::now();
        loop {
            let seen = self.in_namespace(namespace);
            if seen.len() >= count {
                return Ok(seen);
            }
            anyhow::ensure!(
                started.elapsed() < wait,
                "only {} of {count} Jobs appeared in {namespace} within {} s",
                seen.len(),
                wait.as_secs()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Jobs per second between the first and the last arrival.
fn rate(arrivals: &[Instant]) -> f64 {
    match (arrivals.iter().min(), arrivals.iter().max()) {
        (Some(first), Some(last)) if last > first => {
            (arrivals.len() - 1) as f64 / (*last - *first).as_secs_f64()
        }
        _ => f64::NAN,
    }
}

/// `count` Jobs rendered as Tephra renders a small training, for the raw client.
fn rendered_jobs(count: usize) -> anyhow::Result<Vec<DynamicObject>> {
    (0..count)
        .map(|i| {
            raw_job(
                &format!("raw-{i}"),
                &uuid::Uuid::new_v4().to_string(),
                "default",
            )
        })
        .collect()
}

/// Creates the Jobs `parallel` at a time; returns when every create has been answered.
async fn create_raw(
    client: &kube::Client,
    jobs: Vec<DynamicObject>,
    parallel: usize,
) -> anyhow::Result<()> {
    let namespace: Namespace =
        serde_json::from_value(serde_json::json!({ "metadata": { "name": RAW_NAMESPACE } }))?;
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await?;
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), RAW_NAMESPACE, &job_resource());
    let results: Vec<Result<DynamicObject, kube::Error>> = futures::stream::iter(jobs)
        .map(|job| {
            let api = api.clone();
            async move { api.create(&PostParams::default(), &job).await }
        })
        .buffer_unordered(parallel)
        .collect()
        .await;
    results.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(())
}

/// Waits until `count` pods run in `namespace`; how long that took.
async fn settle(
    client: &kube::Client,
    namespace: &str,
    count: usize,
    wait: Duration,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let running = watch_phase(
        Api::<Pod>::namespaced(client.clone(), namespace),
        "Running",
        Instant::now,
    );
    loop {
        let now = running.lock().expect("lock").len();
        if now >= count {
            return Ok(started.elapsed());
        }
        anyhow::ensure!(
            started.elapsed() < wait,
            "only {now} of {count} pods run in {namespace} after {} s",
            wait.as_secs()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

fn main() -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(bench())
}

async fn bench() -> anyhow::Result<()> {
    let count = env_usize("BENCH_JOBS", 1000).max(2);
    let parallel = env_usize("BENCH_RAW_PARALLEL", 8).max(1);
    let wait = Duration::from_secs(env_usize("BENCH_SETTLE_WAIT", 900) as u64);
    let testbed = Testbed::start_with(&["--nodes", "10", "--pods", "1100"])?;
    let client = testbed.client().await?;
    let data = tempfile::Builder::new().prefix("tephra-bench-").tempdir()?;

    // 1. The stored trainings, without a cluster.
    let filled = Instant::now();
    {
        let server = Launch::default().api_only().data_dir(data.path()).start()?;
        let http = reqwest::Client::new();
        let base = server.base_url();
        let answers: Vec<anyhow::Result<()>> = futures::stream::iter(0..count)
            .map(|i| {
                let (http, base) = (http.clone(), base.clone());
                async move {
                    http.post(format!("{base}/api/v1/workloads/trainings"))
                        .json(&small_training(&format!("cold-{i}")))
                        .send()
                        .await?
                        .error_for_status()?;
                    Ok(())
                }
            })
            .buffer_unordered(4)
            .collect()
            .await;
        answers.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    }
    eprintln!(
        "{count} trainings stored in {:.1} s",
        filled.elapsed().as_secs_f64()
    );

    // 2. The raw baseline, then a settled cluster.
    let arrivals = Arrivals::watch(client.clone());
    let jobs = rendered_jobs(count)?;
    let raw_started = Instant::now();
    create_raw(&client, jobs, parallel).await?;
    let raw_answered = raw_started.elapsed();
    let raw = arrivals.all(RAW_NAMESPACE, count, wait).await?;
    let raw_all = raw
        .iter()
        .max()
        .map(|l| *l - raw_started)
        .unwrap_or_default();
    eprintln!(
        "raw: {count} Jobs created in {:.1} s; waiting for their pods",
        raw_all.as_secs_f64()
    );
    let settled = settle(&client, RAW_NAMESPACE, count, wait).await?;
    eprintln!("raw: every pod runs {:.1} s later", settled.as_secs_f64());

    // 3. Tephra on the same database, with the cluster.
    let tephra_started = Instant::now();
    let server = Launch::default()
        .api_only()
        .data_dir(data.path())
        .arg(format!("--kubeconfig={}", testbed.kubeconfig.display()))
        .start()?;
    let listening = tephra_started.elapsed();
    let pid = server.process.id();
    let tephra = arrivals.all(TEPHRA_NAMESPACE, count, wait).await?;
    let cpu = cpu_seconds(pid);
    let tephra_all = tephra
        .iter()
        .max()
        .map(|l| *l - tephra_started)
        .unwrap_or_default();
    let tephra_first = tephra
        .iter()
        .min()
        .map(|f| *f - tephra_started)
        .unwrap_or_default();

    let (raw_rate, tephra_rate) = (rate(&raw), rate(&tephra));
    println!("\n## Controller throughput: {count} Jobs to create on a cold start\n");
    println!("| path | first Job | last Job | Jobs/s, first to last |\n|---|---|---|---|");
    println!(
        "| raw kube-rs create, {parallel} at a time (baseline; every create answered at {:.1} s) | {:.1} s | {:.1} s | {raw_rate:.1} |",
        raw_answered.as_secs_f64(),
        raw.iter()
            .min()
            .map(|f| *f - raw_started)
            .unwrap_or_default()
            .as_secs_f64(),
        raw_all.as_secs_f64(),
    );
    println!(
        "| Tephra started on the filled database (listening at {:.1} s) | {:.1} s | {:.1} s | {tephra_rate:.1} |",
        listening.as_secs_f64(),
        tephra_first.as_secs_f64(),
        tephra_all.as_secs_f64(),
    );
    println!(
        "\nTephra's rate is {:.0} % of the raw client's (target: at least 80 %). Tephra used \
         {cpu:.1} s of CPU from its start to the last Job ({:.1} ms a Job).",
        100.0 * tephra_rate / raw_rate,
        cpu * 1000.0 / count as f64
    );
    drop(server);
    drop(testbed);
    Ok(())
}
