//! The dashboard's numbers: the release bundle's size (WASM, JS, CSS; raw and gzip), server-side
//! rendering time to first byte and the browser's time to interactive for the trainings list with
//! 1,000 trainings, and the time from a pod's phase change in the cluster to the list's DOM
//! showing it, beside a raw kube-rs watch of the same pods. Starts its own testbed, the release
//! server and headless Chromium. Run with `scripts/bench`.
//!
//! `BENCH_TRAININGS` (default 1000) and `BENCH_SAMPLES` (default 100) scale it down.

use fantoccini::Locator;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tephra_tests::bench::{
    env_usize, first_pods, percentiles, seen_at, small_training, watch_phase,
};
use tephra_tests::browser::Browser;
use tephra_tests::tephra::{self, Launch};
use tephra_tests::testbed::Testbed;

const TRAININGS: &str = "/api/v1/workloads/trainings";

fn gzip_len(bytes: &[u8]) -> usize {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip into memory");
    encoder.finish().expect("gzip into memory").len()
}

fn kib(n: usize) -> String {
    format!("{:.1} KiB", n as f64 / 1024.0)
}

fn ms(d: f64) -> String {
    format!("{d:.1} ms")
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

async fn sizes(base: &str) -> anyhow::Result<()> {
    let pkg = tephra::site_root()?.join("pkg");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for entry in std::fs::read_dir(&pkg)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if let Some(name) = name.filter(|n| n.ends_with(".wasm") || n.ends_with(".js")) {
            files.push((name, std::fs::read(&path)?));
        }
    }
    files.sort();
    let css = reqwest::get(format!("{base}/pkg/tephra.css"))
        .await?
        .bytes()
        .await?;
    files.push(("tephra.css".to_owned(), css.to_vec()));
    println!("## Release bundle: every file the site serves\n");
    println!("| file | raw | gzip |\n|---|---|---|");
    let (mut raw, mut zipped) = (0, 0);
    for (name, bytes) in &files {
        let z = gzip_len(bytes);
        raw += bytes.len();
        zipped += z;
        println!("| {name} | {} | {} |", kib(bytes.len()), kib(z));
    }
    println!("| total of all files | {} | {} |", kib(raw), kib(zipped));
    Ok(())
}

/// What a page downloads before it is interactive: every script, WebAssembly module and
/// stylesheet Chromium fetched for it (Resource Timing), each measured gzip-compressed.
async fn page_bytes(browser: &Browser, base: &str, path: &str) -> anyhow::Result<()> {
    browser.client.goto("about:blank").await?;
    browser.open(&format!("{base}{path}")).await?;
    let fetched = browser
        .client
        .execute(
            "return performance.getEntriesByType('resource').map(e => e.name)
               .filter(n => /\\.(wasm|js|css)(\\?|$)/.test(n));",
            vec![],
        )
        .await?;
    let mut names = Vec::new();
    let mut total = 0;
    for url in fetched
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let bytes = reqwest::get(url).await?.bytes().await?;
        total += gzip_len(&bytes);
        names.push(url.rsplit('/').next().unwrap_or(url).to_owned());
    }
    println!("| {path} | {} | {} |", kib(total), names.join(", "));
    Ok(())
}

async fn submit_all(http: &reqwest::Client, base: &str, n: usize) -> anyhow::Result<()> {
    let names: Vec<String> = (0..n).map(|i| format!("dash-{i:04}")).collect();
    let results = futures::stream::iter(names)
        .map(|name| async move {
            http.post(format!("{base}{TRAININGS}"))
                .json(&small_training(&name))
                .send()
                .await?
                .error_for_status()
                .map(|_| ())
        })
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;
    for r in results {
        r?;
    }
    Ok(())
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
        kib(size)
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

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let trainings = env_usize("BENCH_TRAININGS", 1000);
    let samples = env_usize("BENCH_SAMPLES", 100).min(trainings);
    let pods_per_node = (trainings / 4 + 50).to_string();
    eprintln!("starting the testbed (4 nodes, {pods_per_node} pods each)");
    let testbed = Testbed::start_with(&["--nodes", "4", "--pods", &pods_per_node])?;
    let server = Launch::default()
        .arg(format!("--kubeconfig={}", testbed.kubeconfig.display()))
        .start()?;
    let base = server.base_url();
    sizes(&base).await?;

    let http = reqwest::Client::new();
    eprintln!("submitting {trainings} trainings");
    submit_all(&http, &base, trainings).await?;
    let deadline = Instant::now() + Duration::from_secs(600);
    while running(&http, &base).await? < trainings as i64 {
        anyhow::ensure!(
            Instant::now() < deadline,
            "not every training runs after 10 minutes"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }

    println!(
        "\n## Trainings list with {trainings} trainings, all running (server-side rendering)\n"
    );
    println!("100 sequential GETs each, one connection.\n");
    println!("| page | time to first byte p50 / p99 | whole page p50 / p99 | size |");
    println!("|---|---|---|---|");
    ttfb(&http, &format!("{base}/trainings"), 100).await?;
    ttfb(&http, &format!("{base}/trainings?limit=500"), 100).await?;

    let browser = Browser::start().await?;
    println!("\n## What each page downloads before it is interactive (gzip)\n");
    println!("| page | WebAssembly + JS + CSS | files |\n|---|---|---|");
    let id = first_training_id(&http, &base).await?;
    for path in [
        "/".to_owned(),
        "/trainings".to_owned(),
        "/trainings/new".to_owned(),
        format!("/trainings/{id}"),
        "/projects".to_owned(),
        "/applications".to_owned(),
        "/admin".to_owned(),
    ] {
        page_bytes(&browser, &base, &path).await?;
    }

    println!("\n## Time to interactive in headless Chromium (30 fresh navigations)\n");
    println!(
        "First byte is `responseStart`; interactive is when the WebAssembly app has hydrated the \
         page (`data-hydrated-at`), both from the navigation's start.\n"
    );
    println!("| page | first byte p50 / p99 | interactive p50 / p99 |\n|---|---|---|");
    tti(&browser, &base, "/trainings", 30).await?;
    tti(&browser, &base, "/trainings?limit=500", 30).await?;
    tti(&browser, &base, "/trainings/new", 30).await?;

    let kube = testbed.client().await?;
    dom_latency(&browser, &base, &kube, samples).await?;
    browser.close().await?;
    Ok(())
}
