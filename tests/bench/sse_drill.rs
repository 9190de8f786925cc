//! Issue 12's event-stream drill: 2,000 clients on `GET /api/v1/workloads/events` while Volcano
//! brings up one distributed training of 1,000 pods in one gang, plus 20 clients that send the
//! request and never read. Prints what the clients received, the server's memory, /readyz latency
//! before and during, and what became of the clients that never read. Starts its own testbed (10
//! fake nodes of 1,100 pods) and the release server (`TEPHRA_BIN`), without the WASM bundle.
//!
//! `DRILL_SSE_CLIENTS` (default 2000) and `DRILL_SSE_PODS` (default 1000) scale it;
//! `DRILL_SSE_WAIT` (seconds, default 300) bounds the wait for every pod to run.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tephra_tests::bench::{env_usize, percentiles};
use tephra_tests::process::rss_mib;
use tephra_tests::sse_load::{self, Clients, Spread, StalledFate};
use tephra_tests::tephra::Launch;
use tephra_tests::testbed::Testbed;

const EVENTS: &str = "/api/v1/workloads/events";
const DISTRIBUTED: &str = "/api/v1/workloads/distributed";
/// Clients that send the request and then never read.
const STALLED: usize = 20;

/// The soft limit on open files, which the server inherits.
fn open_files_limit() -> Option<usize> {
    std::fs::read_to_string("/proc/self/limits")
        .ok()?
        .lines()
        .find(|l| l.starts_with("Max open files"))?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()
}

/// The server's HTTP API, through one pooled client.
#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
    /// The probes' own listener (`--probe-addr`), which the Helm chart's probes ask.
    probes: String,
}

impl Api {
    /// `/readyz` on the probes' listener, or on the main one when `main`.
    async fn readyz(&self, main: bool) -> Option<Duration> {
        let base = if main { &self.base } else { &self.probes };
        let started = Instant::now();
        let answer = self.http.get(format!("{base}/readyz")).send().await.ok()?;
        answer.status().is_success().then(|| started.elapsed())
    }

    async fn submit(&self, pods: usize) -> anyhow::Result<String> {
        let body = json!({
            "name": "wide", "projectId": "default",
            "spec": { "image": "busybox", "command": "sleep infinity",
                      "distributedFramework": "PyTorch", "numWorkers": pods - 1,
                      "compute": { "cpuCoreRequest": 0.05, "cpuMemoryRequest": "10M" } }
        });
        let answer = self
            .http
            .post(format!("{}{DISTRIBUTED}", self.base))
            .json(&body)
            .send()
            .await?;
        if !answer.status().is_success() {
            anyhow::bail!(
                "the training was refused ({}): {}",
                answer.status(),
                answer.text().await?
            );
        }
        let answer: Value = answer.json().await?;
        Ok(answer["workloadId"].as_str().unwrap_or_default().to_owned())
    }

    /// Running pods, pods of any state, and the phase; `None` when the server did not answer.
    async fn progress(&self, id: &str) -> Option<(usize, usize, String)> {
        let answer = self
            .http
            .get(format!("{}{DISTRIBUTED}/{id}", self.base))
            .send()
            .await
            .ok()?;
        let workload: Value = answer.json().await.ok()?;
        let counts: Vec<(u64, u64)> = workload["status"]["tasks"]
            .as_object()
            .into_iter()
            .flat_map(|tasks| tasks.values())
            .filter_map(|task| {
                let all = task.as_object()?.values().filter_map(Value::as_u64).sum();
                Some((task["running"].as_u64()?, all))
            })
            .collect();
        let running = counts.iter().map(|c| c.0).sum::<u64>() as usize;
        let present = counts.iter().map(|c| c.1).sum::<u64>() as usize;
        let phase = workload["actualPhase"].as_str()?.to_owned();
        Some((running, present, phase))
    }

    async fn delete(&self, id: &str) {
        let answer = self
            .http
            .delete(format!("{}{DISTRIBUTED}/{id}", self.base))
            .send()
            .await;
        if !answer.is_ok_and(|a| a.status().is_success()) {
            eprintln!("the training {id} could not be deleted");
        }
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Repeats `sample` every `every` until `stop` is set; a slow sample delays the next one rather
/// than piling up.
fn sampler<T: Send + 'static, F: Future<Output = T> + Send>(
    every: Duration,
    stop: Arc<AtomicBool>,
    mut sample: impl FnMut() -> F + Send + 'static,
) -> tokio::task::JoinHandle<Vec<T>> {
    tokio::spawn(async move {
        let mut samples = Vec::new();
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while !stop.load(Ordering::Relaxed) {
            tick.tick().await;
            samples.push(sample().await);
        }
        samples
    })
}

fn main() -> anyhow::Result<()> {
    let count = env_usize("DRILL_SSE_CLIENTS", 2000);
    let pods = env_usize("DRILL_SSE_PODS", 1000).max(2);
    let wait = Duration::from_secs(env_usize("DRILL_SSE_WAIT", 300) as u64);
    // Both ends of every connection live on this machine: the drill's sockets here, the server's
    // in the child, which inherits this limit.
    let needed = count + STALLED + 512;
    if let Some(limit) = open_files_limit().filter(|l| *l < needed) {
        anyhow::bail!(
            "open files are limited to {limit}; {count} clients need {needed}: raise `ulimit -n`"
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(drill(count, pods, wait))
}

/// Polls the training until every pod runs or `wait` has passed; prints progress every 10 s.
async fn wait_running(
    api: &Api,
    id: &str,
    pods: usize,
    wait: Duration,
    clients: &Clients,
    pid: u32,
) -> (usize, String) {
    let started = Instant::now();
    let mut reported = Instant::now();
    loop {
        // A failed poll is one more sign of an overloaded server, not a reason to stop.
        let (running, present, phase) =
            api.progress(id)
                .await
                .unwrap_or((0, 0, "(no answer)".into()));
        if (phase == "Running" && running >= pods) || started.elapsed() > wait {
            return (running, phase);
        }
        if reported.elapsed() >= Duration::from_secs(10) {
            eprintln!(
                "{:.0} s: {phase}, {running}/{pods} pods running ({present} exist), {} events received, server RSS {:.0} MiB",
                started.elapsed().as_secs_f64(),
                clients.sum(|t| &t.events),
                rss_mib(pid)
            );
            reported = Instant::now();
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Everything the drill prints.
struct Figures {
    count: usize,
    pods: usize,
    connected_in: Duration,
    running: usize,
    phase: String,
    took: Duration,
    /// Server RSS in MiB: before the clients, with them connected, peak while pods came up, after.
    rss: [f64; 4],
    /// `/readyz` before and while pods come up: on the probes' listener, then on the main one.
    baseline: [Vec<Duration>; 2],
    during: [Vec<Option<Duration>>; 2],
    stalled: StalledFate,
}

fn latency(samples: &[Duration]) -> String {
    if samples.is_empty() {
        return "- / -".into();
    }
    let mut samples = samples.to_vec();
    let (p50, p99) = percentiles(&mut samples);
    format!("{} / {}", ms(p50), ms(p99))
}

fn report(f: &Figures, clients: &Clients) {
    let (count, pods) = (f.count, f.pods);
    let [before, connected, peak, after] = f.rss;
    println!(
        "\n# Event-stream drill: {count} SSE clients (+{STALLED} that never read), one training of {pods} pods\n"
    );
    println!("| figure | value |\n|---|---|");
    println!(
        "| all {count} streams started | {:.1} s |",
        f.connected_in.as_secs_f64()
    );
    println!(
        "| submit until Running with {pods} pods running | {:.1} s (at the end: {}, {} running) |",
        f.took.as_secs_f64(),
        f.phase,
        f.running
    );
    println!(
        "| server RSS before / {count} streams open / peak / after | {before:.0} / {connected:.0} / {peak:.0} / {after:.0} MiB |"
    );
    println!(
        "| server memory per open stream, (open - before) / {count} (target: at most 32 KiB) | {:.1} KiB |",
        (connected - before) * 1024.0 / count as f64
    );
    for (i, listener) in ["the probes' listener (--probe-addr)", "the main listener"]
        .iter()
        .enumerate()
    {
        let failed = f.during[i].iter().filter(|p| p.is_none()).count();
        let during: Vec<Duration> = f.during[i].iter().copied().flatten().collect();
        println!(
            "| /readyz on {listener} p50 / p99, baseline ({} sequential) | {} |",
            f.baseline[i].len(),
            latency(&f.baseline[i])
        );
        println!(
            "| /readyz on {listener} p50 / p99, while pods come up ({} every 100 ms, {failed} failed; target: p99 under 10 ms) | {} |",
            during.len(),
            latency(&during)
        );
    }
    let ends = clients.ends();
    println!(
        "| reading clients open / closed by the server / failed | {} / {} / {} |",
        ends.open, ends.closed, ends.failed
    );
    println!(
        "| non-reading clients open / closed by the server (after 30 s taking no bytes) | {} / {} |",
        f.stalled.open, f.stalled.closed
    );
    println!(
        "| unread bytes of the non-reading clients: server send queues / client receive queues | {} / {} |",
        mib(f.stalled.server_queued),
        mib(f.stalled.client_queued)
    );
    println!("\n| per reading client | total | min | median | max |\n|---|---|---|---|---|");
    let row = |what: &str, s: Spread| {
        println!(
            "| {what} | {} | {} | {} | {} |",
            s.total, s.min, s.median, s.max
        )
    };
    row("`workload` events", clients.spread(|t| &t.events));
    row(
        "`resync` events (after the first)",
        clients.spread(|t| &t.resyncs),
    );
    row("bytes", clients.spread(|t| &t.bytes));
    println!("\nall clients received {}", mib(clients.sum(|t| &t.bytes)));
}

async fn drill(count: usize, pods: usize, wait: Duration) -> anyhow::Result<()> {
    let began = Instant::now();
    let testbed = Testbed::start_with(&["--nodes", "10", "--pods", "1100"])?;
    // Every client is the development login's one user, whose streams are limited to 16.
    let probes = format!("127.0.0.1:{}", tephra_tests::free_port());
    let server = Launch::default()
        .api_only()
        .arg(format!("--probe-addr={probes}"))
        .arg(format!("--kubeconfig={}", testbed.kubeconfig.display()))
        .env(
            "TEPHRA_STREAMS_PER_PRINCIPAL",
            (count + STALLED).to_string(),
        )
        .start()?;
    let pid = server.process.id();
    let api = Arc::new(Api {
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()?,
        base: server.base_url(),
        probes: format!("http://{probes}"),
    });

    let mut baseline = [Vec::new(), Vec::new()];
    for (i, main) in [false, true].into_iter().enumerate() {
        for _ in 0..200 {
            baseline[i].extend(api.readyz(main).await);
        }
    }
    let rss_before = rss_mib(pid);
    let connecting = Instant::now();
    let (clients, stalled) = sse_load::open(server.addr, EVENTS, count, STALLED).await?;
    let connected_in = connecting.elapsed();
    let rss_connected = rss_mib(pid);
    eprintln!(
        "{count} streams started in {:.1} s; server RSS {rss_connected:.0} MiB",
        connected_in.as_secs_f64()
    );

    let stop = Arc::new(AtomicBool::new(false));
    let rss_samples = sampler(Duration::from_millis(500), stop.clone(), move || {
        std::future::ready(rss_mib(pid))
    });
    // Each probe asks from a thread of its own: on this runtime it would also wait behind the
    // clients' reads, and the figure would be this process's, not the server's.
    let readyz_samples = [false, true].map(|main| {
        let api = api.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let api = Api {
                http: reqwest::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .build()?,
                base: api.base.clone(),
                probes: api.probes.clone(),
            };
            let samples = runtime.block_on(async move {
                sampler(Duration::from_millis(100), stop, move || {
                    let api = api.clone();
                    async move { api.readyz(main).await }
                })
                .await
            });
            anyhow::Ok(samples?)
        })
    });
    let submitted = Instant::now();
    let id = api.submit(pods).await?;
    let (running, phase) = wait_running(&api, &id, pods, wait, &clients, pid).await;
    let took = submitted.elapsed();
    // The last status changes are still on their way to the clients.
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, Ordering::Relaxed);
    let rss_after = rss_mib(pid);
    let peak = rss_samples.await?.into_iter().fold(rss_after, f64::max);
    // A client that took no bytes for 30 s is cut off: give the last ones to stall that long.
    let stalled_since = Instant::now();
    while sse_load::stalled_fate(server.addr, &stalled).open > 0
        && stalled_since.elapsed() < Duration::from_secs(40)
    {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let figures = Figures {
        count,
        pods,
        connected_in,
        running,
        phase,
        took,
        rss: [rss_before, rss_connected, peak, rss_after],
        baseline,
        during: {
            let joined = readyz_samples.map(|thread| thread.join().expect("the probe sampler ran"));
            let [probes, main] = joined;
            [probes?, main?]
        },
        stalled: sse_load::stalled_fate(server.addr, &stalled),
    };
    report(&figures, &clients);
    println!("\nthe drill took {:.0} s", began.elapsed().as_secs_f64());

    api.delete(&id).await;
    drop(stalled);
    drop(server);
    drop(testbed);
    Ok(())
}
