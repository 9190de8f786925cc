//! The dashboard's numbers: the release bundle's size (WASM, JS, CSS; raw and gzip), server-side
//! rendering time to first byte and the browser's time to interactive for the trainings list with
//! 1,000 trainings, the new-training form's round trip per pause in typing, and the time from a
//! pod's phase change in the cluster to the list's DOM
//! showing it, beside a raw kube-rs watch of the same pods. Starts its own testbed, the release
//! server and headless Chromium. Run with `scripts/bench`.
//!
//! `BENCH_TRAININGS` (default 1000) and `BENCH_SAMPLES` (default 100) scale it down;
//! `BENCH_NAVIGATIONS` (default 30) is the number of page loads per time-to-interactive figure;
//! `BENCH_RUN_WAIT` (seconds, default 600) bounds the wait for every training to run. With a
//! cluster it also prints the server's memory per running training beyond the idle process.
//! `BENCH_CLUSTER=0` runs without a testbed (the trainings stay stored, never running) and skips
//! the pod-to-DOM latency: enough for the bundle's figures. `scripts/bench dashboard` runs only
//! this benchmark.

#[path = "dashboard_form.rs"]
mod dashboard_form;
#[path = "dashboard_weight.rs"]
mod dashboard_weight;

use fantoccini::Locator;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tephra_tests::bench::{
    env_usize, first_pods, percentiles, seen_at, submit_training, watch_phase,
};
use tephra_tests::browser::Browser;
use tephra_tests::process::rss_mib;
use tephra_tests::tephra::Launch;
use tephra_tests::testbed::Testbed;

const TRAININGS: &str = "/api/v1/workloads/trainings";

fn ms(d: f64) -> String {
    format!("{d:.1} ms")
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

async fn submit_all(http: &reqwest::Client, base: &str, n: usize) -> anyhow::Result<()> {
    let url = format!("{base}{TRAININGS}");
    let results = futures::stream::iter(0..n)
        .map(|i| {
            let url = &url;
            async move { submit_training(http, url, &format!("dash-{i:04}")).await }
        })
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;
    for r in results {
        r?;
    }
    Ok(())
}

/// Issue 36's memory target: RSS beyond the idle process, per running training.
fn memory_per_running(idle_mib: f64, running_mib: f64, trainings: usize) {
    let per = (running_mib - idle_mib) * 1024.0 / trainings.max(1) as f64;
    println!("\n## Server memory with {trainings} trainings running\n");
    println!(
        "| idle after start | all running | per running training | target |\n|---|---|---|---|"
    );
    println!(
        "| {idle_mib:.0} MiB | {running_mib:.0} MiB | {per:.1} KiB | ≤ 5 KiB: {} |",
        if per <= 5.0 { "met" } else { "not met" }
    );
}

async fn running(http: &reqwest::Client, base: &str) -> anyhow::Result<i64> {
    let page: Value = http
        .get(format!("{base}{TRAININGS}?phase=Running&limit=1"))
        .send()
        .await?
        .json()
        .await?;
    Ok(page["total"].as_i64().unwrap_or(0))
}

async fn first_training_id(http: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let page: Value = http
        .get(format!("{base}{TRAININGS}?limit=1"))
        .send()
        .await?
        .json()
        .await?;
    page["trainings"][0]["workloadId"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("no training to open: {page}"))
}

async fn ttfb(http: &reqwest::Client, url: &str, samples: usize) -> anyhow::Result<()> {
    let (mut first, mut whole, mut size) = (Vec::new(), Vec::new(), 0);
    for _ in 0..samples {
        let started = Instant::now();
        let response = http.get(url).send().await?.error_for_status()?;
        first.push(started.elapsed().as_secs_f64() * 1000.0);
        let body = response.bytes().await?;
        whole.push(started.elapsed().as_secs_f64() * 1000.0);
        size = body.len();
    }
    let (f50, f99) = percentiles(&mut first);
    let (w50, w99) = percentiles(&mut whole);
    let path = url.split_once("/trainings").map_or(url, |(_, p)| p);
    println!(
        "| /trainings{path} | {} / {} | {} / {} | {} |",
        ms(f50),
        ms(f99),
        ms(w50),
        ms(w99),
        dashboard_weight::kib(size)
    );
    Ok(())
}

async fn tti(browser: &Browser, base: &str, path: &str, samples: usize) -> anyhow::Result<()> {
    let url = format!("{base}{path}");
    let (mut interactive, mut first_byte) = (Vec::new(), Vec::new());
    for _ in 0..samples {
        browser.client.goto("about:blank").await?;
        browser.open(&url).await?;
        let timing = browser
            .client
            .execute(
                "const n = performance.getEntriesByType('navigation')[0];
                 return [n.responseStart, Number(document.body.dataset.hydratedAt)];",
                vec![],
            )
            .await?;
        first_byte.push(timing[0].as_f64().unwrap_or(f64::NAN));
        interactive.push(timing[1].as_f64().unwrap_or(f64::NAN));
    }
    let (b50, b99) = percentiles(&mut first_byte);
    let (i50, i99) = percentiles(&mut interactive);
    println!(
        "| {path} | {} / {} | {} / {} |",
        ms(b50),
        ms(b99),
        ms(i50),
        ms(i99)
    );
    Ok(())
}

/// Records, in the page, when each row's pod count changes to `0/1` (its pod has ended).
const OBSERVER: &str = r#"
window.__ended = {};
const scan = () => {
  for (const row of document.querySelectorAll('tr[data-workload-id]')) {
    const id = row.dataset.workloadId;
    const cell = row.querySelector('[data-testid=tasks]');
    if (cell && cell.textContent === '0/1' && !(id in window.__ended)) {
      window.__ended[id] = Date.now();
    }
  }
};
new MutationObserver(scan).observe(document.body,
  { subtree: true, childList: true, characterData: true, attributes: true });
scan();
"#;

async fn dom_latency(
    browser: &Browser,
    base: &str,
    kube: &kube::Client,
    samples: usize,
) -> anyhow::Result<()> {
    let http = reqwest::Client::new();
    let page: Value = http
        .get(format!(
            "{base}{TRAININGS}?phase=Running&limit={samples}&sortBy=name&sortOrder=asc"
        ))
        .send()
        .await?
        .json()
        .await?;
    let targets = first_pods(&page, "trainings");
    let pods: Api<Pod> = Api::namespaced(kube.clone(), "tephra-default");
    let raw = watch_phase(pods.clone(), "Succeeded", epoch_ms);
    browser
        .open(&format!(
            "{base}/trainings?phase=Running&limit={samples}&sortBy=name&sortOrder=asc"
        ))
        .await?;
    browser
        .client
        .find(Locator::Css("[data-testid=trainings-table]"))
        .await?;
    browser.client.execute(OBSERVER, vec![]).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let patch =
        json!({ "metadata": { "annotations": { "testbed.tephra.dev/outcome": "Succeeded" } } });
    let (mut from_watch, mut from_patch, mut watch_only) = (Vec::new(), Vec::new(), Vec::new());
    for (id, pod) in &targets {
        let patched = epoch_ms();
        pods.patch(pod, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        let deadline = Instant::now() + Duration::from_secs(60);
        let shown = loop {
            let at = browser
                .client
                .execute(&format!("return window.__ended['{id}'] ?? null"), vec![])
                .await?;
            if let Some(at) = at.as_f64() {
                break at;
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the row of {id} never showed 0/1"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let seen = seen_at(&raw, pod).await;
        from_watch.push(shown - seen);
        from_patch.push(shown - patched);
        watch_only.push(seen - patched);
    }
    let (w50, w99) = percentiles(&mut from_watch);
    let (p50, p99) = percentiles(&mut from_patch);
    let (r50, r99) = percentiles(&mut watch_only);
    println!(
        "\n## Pod phase change to DOM update ({} changes, one at a time, list page of {samples} rows)\n",
        from_watch.len()
    );
    println!(
        "Each change is a PATCH that makes KWOK end one pod (Running to Succeeded); the DOM update is \
         the row's pod count turning 0/1, seen by a MutationObserver (`Date.now()`, the same clock).\n"
    );
    println!("| path | p50 | p99 |\n|---|---|---|");
    println!(
        "| raw kube-rs watch sees the pod Succeeded, until the browser's DOM shows it | {} | {} |",
        ms(w50),
        ms(w99)
    );
    println!(
        "| PATCH until the DOM shows it (includes KWOK) | {} | {} |",
        ms(p50),
        ms(p99)
    );
    println!(
        "| baseline: PATCH until a raw kube-rs watch sees it | {} | {} |",
        ms(r50),
        ms(r99)
    );
    Ok(())
}

/// A testbed of four nodes with room for `trainings` pods.
fn start_testbed(trainings: usize) -> anyhow::Result<Testbed> {
    let pods_per_node = (trainings / 4 + 50).to_string();
    eprintln!("starting the testbed (4 nodes, {pods_per_node} pods each)");
    Testbed::start_with(&["--nodes", "4", "--pods", &pods_per_node])
}

/// Submits `trainings` trainings and, with a cluster, waits until every one runs.
async fn fill(
    http: &reqwest::Client,
    base: &str,
    trainings: usize,
    cluster: bool,
) -> anyhow::Result<()> {
    eprintln!("submitting {trainings} trainings");
    submit_all(http, base, trainings).await?;
    let wait = Duration::from_secs(env_usize("BENCH_RUN_WAIT", 600) as u64);
    let deadline = Instant::now() + wait;
    while cluster && running(http, base).await? < trainings as i64 {
        anyhow::ensure!(
            Instant::now() < deadline,
            "not every training runs after {} s (BENCH_RUN_WAIT)",
            wait.as_secs()
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let trainings = env_usize("BENCH_TRAININGS", 1000);
    let samples = env_usize("BENCH_SAMPLES", 100).min(trainings);
    let navigations = env_usize("BENCH_NAVIGATIONS", 30);
    let cluster = std::env::var("BENCH_CLUSTER").as_deref() != Ok("0");
    let testbed = if cluster {
        Some(start_testbed(trainings)?)
    } else {
        None
    };
    let mut launch = Launch::default();
    if let Some(testbed) = &testbed {
        launch = launch.arg(format!("--kubeconfig={}", testbed.kubeconfig.display()));
    }
    let server = launch.start()?;
    let base = server.base_url();
    let pid = server.process.id();
    dashboard_weight::sizes(&base).await?;
    let idle = rss_mib(pid);

    let http = reqwest::Client::new();
    fill(&http, &base, trainings, cluster).await?;
    if cluster {
        memory_per_running(idle, rss_mib(pid), trainings);
    }

    let state = if cluster {
        "all running"
    } else {
        "stored, no cluster"
    };
    println!("\n## Trainings list with {trainings} trainings, {state} (server-side rendering)\n");
    println!("100 sequential GETs each, one connection.\n");
    println!("| page | time to first byte p50 / p99 | whole page p50 / p99 | size |");
    println!("|---|---|---|---|");
    ttfb(&http, &format!("{base}/trainings"), 100).await?;
    ttfb(&http, &format!("{base}/trainings?limit=500"), 100).await?;

    let browser = Browser::start().await?;
    let id = first_training_id(&http, &base).await?;
    dashboard_weight::pages(&browser, &base, &id).await?;

    println!("\n## Time to interactive in headless Chromium ({navigations} fresh navigations)\n");
    println!(
        "First byte is `responseStart`; interactive is when the WebAssembly app has hydrated every \
         island on the page, lazy ones included (`data-hydrated-at`), both from the navigation's start.\n"
    );
    println!("| page | first byte p50 / p99 | interactive p50 / p99 |\n|---|---|---|");
    tti(&browser, &base, "/trainings", navigations).await?;
    tti(&browser, &base, "/trainings?limit=500", navigations).await?;
    tti(&browser, &base, "/trainings/new", navigations).await?;
    dashboard_form::round_trip(&http, &base, samples.max(20)).await?;

    if let Some(testbed) = &testbed {
        let kube = testbed.client().await?;
        dom_latency(&browser, &base, &kube, samples).await?;
    } else {
        println!("\n(BENCH_CLUSTER=0: no pod-to-DOM latency without a cluster)");
    }
    browser.close().await?;
    Ok(())
}
