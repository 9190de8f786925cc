//! The controller's throughput on a cold start (issue 36): `BENCH_JOBS` (default 1,000) stored
//! trainings that all need a Job, as after a restart with a filled database or the end of an
//! API-server outage, against a raw kube-rs client creating the same rendered Jobs on the same
//! API server, in the same run.
//!
//! One run of the two paths varies more than the difference sought (the ratio moved from 51 to
//! 91 % between runs of one build), so the benchmark takes `BENCH_ROUNDS` (default 3) rounds,
//! the two paths alternating, and prints each round and the median:
//! 1. Before the cluster phases, the release server starts without a cluster once per round, on
//!    a database of the round's own, and stores the trainings through the API (it keeps them
//!    until it runs with one), then stops. Each round has its own namespace prefix, so its
//!    project's namespace and queue are new.
//! 2. The baseline: a raw kube-rs client (no client-side rate limit, as Tephra's) creates the same
//!    number of rendered Jobs in a namespace of its own, `BENCH_RAW_PARALLEL` (default 8) at a
//!    time. The benchmark then waits until Volcano has made all their pods run.
//! 3. The release server starts again on the round's database, now with the cluster, and creates
//!    every Job; it stops once all their pods run, so the next round starts on a settled cluster.
//!
//! A watch of Jobs times both: the rate is the Jobs seen between the first and the last, per
//! second. The server inherits `TOKIO_WORKER_THREADS` (its runtime's threads). Starts its own testbed
//! (10 fake nodes of 1,100 pods).

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

/// Creates the Jobs in a new `namespace`, `parallel` at a time; returns when every create has
/// been answered.
async fn create_raw(
    client: &kube::Client,
    namespace: &str,
    jobs: Vec<DynamicObject>,
    parallel: usize,
) -> anyhow::Result<()> {
    let made: Namespace =
        serde_json::from_value(serde_json::json!({ "metadata": { "name": namespace } }))?;
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &made)
        .await?;
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &job_resource());
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

/// What every round is given: the testbed, the client and its watch of Jobs, and the sizes.
struct Setup<'a> {
    testbed: &'a Testbed,
    client: kube::Client,
    arrivals: Arrivals,
    count: usize,
    parallel: usize,
    wait: Duration,
}

/// One round's figures.
struct Round {
    raw_rate: f64,
    raw_answered: Duration,
    tephra_rate: f64,
    tephra_first: Duration,
    tephra_last: Duration,
    /// Tephra's CPU from its start to its last Job, per Job.
    cpu_per_job: Duration,
}

/// The namespace prefix of round `round`: its project's namespace and queue are new.
fn prefix(round: usize) -> String {
    format!("tephra-r{round}-")
}

/// The release server of round `round` on its database in `data`, without a cluster yet.
fn launch(data: &std::path::Path, round: usize) -> Launch {
    Launch::default()
        .api_only()
        .data_dir(data)
        .arg(format!("--namespace-prefix={}", prefix(round)))
}

/// Stores `count` trainings in a new database in `data`, through a server without a cluster.
async fn fill(data: &std::path::Path, round: usize, count: usize) -> anyhow::Result<()> {
    let server = launch(data, round).start()?;
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
    Ok(())
}

/// The raw client's creates, then Tephra's cold start on the round's database; each waits for
/// its pods to run before the next begins.
async fn round(setup: &Setup<'_>, round: usize, data: &std::path::Path) -> anyhow::Result<Round> {
    let Setup {
        client,
        arrivals,
        count,
        parallel,
        wait,
        ..
    } = setup;
    let raw_namespace = format!("bench-raw-{round}");
    let raw_started = Instant::now();
    create_raw(client, &raw_namespace, rendered_jobs(*count)?, *parallel).await?;
    let raw_answered = raw_started.elapsed();
    let raw = arrivals.all(&raw_namespace, *count, *wait).await?;
    settle(client, &raw_namespace, *count, *wait).await?;

    let namespace = format!("{}default", prefix(round));
    let started = Instant::now();
    let server = launch(data, round)
        .arg(format!(
            "--kubeconfig={}",
            setup.testbed.kubeconfig.display()
        ))
        .start()?;
    let tephra = arrivals.all(&namespace, *count, *wait).await?;
    let cpu = cpu_seconds(server.process.id());
    let since = |at: Option<&Instant>| at.map(|a| *a - started).unwrap_or_default();
    let figures = Round {
        raw_rate: rate(&raw),
        raw_answered,
        tephra_rate: rate(&tephra),
        tephra_first: since(tephra.iter().min()),
        tephra_last: since(tephra.iter().max()),
        cpu_per_job: Duration::from_secs_f64(cpu / *count as f64),
    };
    settle(client, &namespace, *count, *wait).await?;
    drop(server);
    Ok(figures)
}

/// The middle value (the mean of the two middle ones for an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn print(rounds: &[Round], count: usize, parallel: usize) {
    println!("\n## Controller throughput: {count} Jobs to create on a cold start\n");
    println!(
        "| round | raw kube-rs create, {parallel} at a time (baseline): Jobs/s, first to last | \
         Tephra on its filled database: first Job, last Job, Jobs/s | Tephra / raw | Tephra's CPU a Job |"
    );
    println!("|---|---|---|---|---|");
    for (i, r) in rounds.iter().enumerate() {
        println!(
            "| {} | {:.1} (every create answered at {:.1} s) | {:.1} s, {:.1} s, {:.1} | {:.0} % | {:.1} ms |",
            i + 1,
            r.raw_rate,
            r.raw_answered.as_secs_f64(),
            r.tephra_first.as_secs_f64(),
            r.tephra_last.as_secs_f64(),
            r.tephra_rate,
            100.0 * r.tephra_rate / r.raw_rate,
            r.cpu_per_job.as_secs_f64() * 1000.0,
        );
    }
    let ratio = median(rounds.iter().map(|r| r.tephra_rate / r.raw_rate).collect());
    let cpu = median(rounds.iter().map(|r| r.cpu_per_job.as_secs_f64()).collect());
    println!(
        "\nMedian of {} rounds: Tephra's rate is {:.0} % of the raw client's (target: at least \
         80 %), raw {:.1} and Tephra {:.1} Jobs/s; Tephra used {:.1} ms of CPU a Job from its start \
         to the last Job.",
        rounds.len(),
        100.0 * ratio,
        median(rounds.iter().map(|r| r.raw_rate).collect()),
        median(rounds.iter().map(|r| r.tephra_rate).collect()),
        cpu * 1000.0
    );
}

fn main() -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(bench())
}

async fn bench() -> anyhow::Result<()> {
    let count = env_usize("BENCH_JOBS", 1000).max(2);
    let rounds = env_usize("BENCH_ROUNDS", 3).max(1);
    let testbed = Testbed::start_with(&["--nodes", "10", "--pods", "1100"])?;
    let client = testbed.client().await?;
    let mut data = Vec::new();
    for round in 1..=rounds {
        let dir = tempfile::Builder::new().prefix("tephra-bench-").tempdir()?;
        let filled = Instant::now();
        fill(dir.path(), round, count).await?;
        eprintln!(
            "round {round}: {count} trainings stored in {:.1} s",
            filled.elapsed().as_secs_f64()
        );
        data.push(dir);
    }
    let setup = Setup {
        testbed: &testbed,
        arrivals: Arrivals::watch(client.clone()),
        client,
        count,
        parallel: env_usize("BENCH_RAW_PARALLEL", 8).max(1),
        wait: Duration::from_secs(env_usize("BENCH_SETTLE_WAIT", 900) as u64),
    };
    let mut figures = Vec::new();
    for (i, dir) in data.iter().enumerate() {
        let r = round(&setup, i + 1, dir.path()).await?;
        eprintln!(
            "round {}: raw {:.1} Jobs/s, Tephra {:.1} Jobs/s ({:.0} %)",
            i + 1,
            r.raw_rate,
            r.tephra_rate,
            100.0 * r.tephra_rate / r.raw_rate
        );
        figures.push(r);
    }
    print(&figures, count, setup.parallel);
    drop(setup);
    drop(testbed);
    Ok(())
}
