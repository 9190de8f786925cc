//! Lists at the size of a real organisation (issue 36): every list query a client pages with,
//! against a project holding `BENCH_STORED` trainings (default 100,000) among 1,000 projects,
//! beside the same query against a project of 1,000 trainings in the same server (the baseline:
//! what depth costs). Both databases, one after the other; the in-process server, no cluster.
//!
//! The trainings are filled directly in the database, not through the API (submitting 100,000
//! through admission would take most of an hour on two cores): one real training is submitted,
//! and its row is copied with a new id, name, phase and times (`fill`). The lists read them as
//! they read any row. On PostgreSQL the fill ends with the `VACUUM ANALYZE` autovacuum would run.
//! Last, the cost of a submit into the big project, every row of it finished, beside a submit
//! into an empty project (`lists_submit.rs`).

use anyhow::Context;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tephra_tests::bench::{env_usize, percentiles, small_training};
use tephra_tests::in_process::InProcess;
use tephra_tests::postgres::TempPostgres;

#[path = "lists_eta.rs"]
mod eta;
#[path = "lists_fill.rs"]
mod fill;
#[path = "lists_submit.rs"]
mod submit;
use fill::{fill, wait};

const TARGET_P99: Duration = Duration::from_millis(20);

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() -> anyhow::Result<()> {
    let stored = env_usize("BENCH_STORED", 100_000);
    let samples = env_usize("BENCH_SAMPLES", 100);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        println!(
            "\n## Lists: a project of {stored} trainings beside one of 1,000, among 1,000 projects"
        );
        println!(
            "\n{samples} sequential GETs per query, each answer with its count; target p99 < {}.",
            ms(TARGET_P99)
        );
        measure("SQLite", &[], stored, samples).await?;
        let pg = TempPostgres::start()?;
        let url = pg.create_database("lists").await?;
        measure("PostgreSQL", &["--database-url", &url], stored, samples).await
    })
}

async fn measure(
    engine: &str,
    extra: &[&str],
    stored: usize,
    samples: usize,
) -> anyhow::Result<()> {
    let server = InProcess::start(extra).await?;
    let http = reqwest::Client::new();
    let started = Instant::now();
    for i in 0..998 {
        post(
            &http,
            &server.url("/api/v1/org-unit/projects"),
            &json!({ "name": format!("p{i:03}") }),
        )
        .await?;
    }
    let small = project(&http, &server, "small", 1_000).await?;
    let big = project(&http, &server, "big", stored).await?;
    // A researcher of ten projects lists what they may read: the project and nine small ones.
    let small_reader = researcher(&http, &server, &small).await?;
    let big_reader = researcher(&http, &server, &big).await?;
    eprintln!(
        "{engine}: filled in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    println!("\n### {engine}\n");
    println!(
        "| query | 1,000 stored p50 / p99 | {stored} stored p50 / p99 | answer | within target |"
    );
    println!("|---|---|---|---|---|");
    for (label, query) in queries(stored) {
        let (small_path, big_path) = if label == CURSOR {
            // A build without cursors (an older one, measured for comparison) has no such row.
            let small_path = cursor_path(&http, &server, &small, 1_000).await;
            let big_path = cursor_path(&http, &server, &big, stored).await;
            let (Ok(small_path), Ok(big_path)) = (small_path, big_path) else {
                println!("| `{label}` | — | — | — | no cursor in this build |");
                continue;
            };
            (small_path, big_path)
        } else {
            (query(1_000), query(stored))
        };
        let (small_http, big_http) = if label == RESEARCHER {
            (&small_reader, &big_reader)
        } else {
            (&http, &http)
        };
        let (s50, s99, _) = time(small_http, &server, &small, &small_path, samples).await?;
        let (b50, b99, bytes) = time(big_http, &server, &big, &big_path, samples).await?;
        let met = if b99 < TARGET_P99 { "yes" } else { "no" };
        println!(
            "| `{label}` | {} / {} | {} / {} | {:.1} KiB | {met} |",
            ms(s50),
            ms(s99),
            ms(b50),
            ms(b99),
            bytes as f64 / 1024.0
        );
    }
    positions(engine, &http, &server, &big, samples).await?;
    // Last: it marks every stored training finished.
    submit::submit_cost(&http, &server, &big, stored, samples).await?;
    server.stop().await
}

/// How many of the big project's trainings wait to start while positions are measured.
const WAITING: usize = 10_000;
/// How many reads of waiting trainings are timed one at a time, apart.
const COLD_SAMPLES: usize = 20;

/// The cost of queue positions: [`WAITING`] of the big project's trainings made to wait, then a
/// page of waiting ones (each row gets its place, computed over every waiting workload) beside a
/// page of running ones of the same size (no places to compute).
async fn positions(
    engine: &str,
    http: &reqwest::Client,
    server: &InProcess,
    big: &str,
    samples: usize,
) -> anyhow::Result<()> {
    wait(&server.db, WAITING).await?;
    println!("\n{engine}, with {WAITING} trainings waiting to start:\n");
    println!("| query | p50 / p99 | answer |");
    println!("|---|---|---|");
    for (label, phase) in [
        ("trainings: phase=Running (no positions)", "Running"),
        (
            "trainings: phase=Pending (each row's queuePosition)",
            "Pending",
        ),
    ] {
        let path = format!("/api/v1/workloads/trainings?projectId={{p}}&limit=50&phase={phase}");
        let (p50, p99, bytes) = time(http, server, big, &path, samples).await?;
        println!(
            "| `{label}` | {} / {} | {:.1} KiB |",
            ms(p50),
            ms(p99),
            bytes as f64 / 1024.0
        );
    }
    // The order is kept computed for a minute after each read, so a page read now and then
    // finds it ready; a read right after an action here (a suspend or resume, untimed) brings
    // the kept order up to date with the action.
    let path = "/api/v1/workloads/trainings?projectId={p}&limit=50&phase=Pending";
    let acted = eta::a_waiting_training(&server.db).await?;
    for (apart, act, what) in [
        (1_100, false, "kept computed"),
        (5_100, false, "kept computed"),
        (1_100, true, "right after a suspend or resume here"),
    ] {
        let mut took = Vec::new();
        for i in 0..samples.clamp(1, COLD_SAMPLES) {
            tokio::time::sleep(Duration::from_millis(apart)).await;
            if act {
                let action = if i % 2 == 0 { "suspend" } else { "resume" };
                let url = server.url(&format!("/api/v1/workloads/trainings/{acted}/{action}"));
                let answer = http.post(url).send().await?;
                anyhow::ensure!(
                    answer.status().is_success(),
                    "{action}: {}",
                    answer.status()
                );
            }
            took.push(time(http, server, big, path, 1).await?.0);
        }
        let (p50, p99) = percentiles(&mut took);
        println!(
            "| `trainings: phase=Pending`, read alone ({} reads {:.1} s apart: {what}) | {} / {} | |",
            took.len(),
            apart as f64 / 1000.0,
            ms(p50),
            ms(p99)
        );
    }
    let id = eta::a_waiting_training(&server.db).await?;
    let path = format!("/api/v1/workloads/trainings/{id}");
    let (p50, p99, bytes) = time(http, server, big, &path, samples).await?;
    println!(
        "| `trainings/{{id}}`: one waiting training with its place | {} / {} | {:.1} KiB |",
        ms(p50),
        ms(p99),
        bytes as f64 / 1024.0
    );
    eta::estimate_parts(&server.db, samples).await
}

/// What each row measures: a label and the path for a project of `n` trainings (`{p}` is the
/// project). Deep pages are 90 % of the way down.
type Query = (&'static str, Box<dyn Fn(usize) -> String>);

fn queries(_stored: usize) -> Vec<Query> {
    let trainings = "/api/v1/workloads/trainings?projectId={p}&limit=50";
    let runai = "/api/v1/workloads?limit=50&filterBy=projectName=={p}";
    let at = move |base: &'static str, rest: &'static str| -> Box<dyn Fn(usize) -> String> {
        Box::new(move |_| format!("{base}{rest}"))
    };
    let deep = move |base: &'static str, rest: &'static str| -> Box<dyn Fn(usize) -> String> {
        Box::new(move |n| format!("{base}{rest}&offset={}", n * 9 / 10))
    };
    vec![
        ("trainings: first page", at(trainings, "")),
        ("trainings: offset 90 %", deep(trainings, "")),
        (CURSOR, at(trainings, "")),
        (
            "trainings: sortBy=name",
            at(trainings, "&sortBy=name&sortOrder=asc"),
        ),
        (
            "trainings: sortBy=name, offset 90 %",
            deep(trainings, "&sortBy=name&sortOrder=asc"),
        ),
        (
            "trainings: sortBy=createdAt asc",
            at(trainings, "&sortBy=createdAt&sortOrder=asc"),
        ),
        (
            "trainings: sortBy=updatedAt",
            at(trainings, "&sortBy=updatedAt"),
        ),
        (
            "trainings: sortBy=actualPhase",
            at(trainings, "&sortBy=actualPhase"),
        ),
        (
            "trainings: sortBy=actualPhase, offset 90 %",
            deep(trainings, "&sortBy=actualPhase"),
        ),
        ("trainings: name=777", at(trainings, "&name=777")),
        ("trainings: phase=Failed", at(trainings, "&phase=Failed")),
        (
            "trainings: phase=Failed, offset 90 %",
            Box::new(move |n| {
                // 9 % are Failed; 90 % of the way down them.
                format!("{trainings}&phase=Failed&offset={}", n * 81 / 1000)
            }),
        ),
        (
            "trainings: every project, first page",
            Box::new(|_| "/api/v1/workloads/trainings?limit=50".into()),
        ),
        (
            RESEARCHER,
            Box::new(|_| "/api/v1/workloads/trainings?limit=50".into()),
        ),
        ("Run:ai workloads: first page", at(runai, "")),
        ("Run:ai workloads: offset 90 %", deep(runai, "")),
        ("Run:ai workloads: sortBy=name", at(runai, "&sortBy=name")),
        (
            "Run:ai workloads: filterBy=phase==Failed",
            at(runai, ",phase==Failed"),
        ),
    ]
}

const CURSOR: &str = "trainings: after= a cursor 90 % down";
const RESEARCHER: &str = "trainings: every project of a researcher of 10";

/// A client acting as an application with the researcher role in `project` and in nine of the
/// small ones (`p000` to `p008`): a list of every project it may read covers those ten.
async fn researcher(
    http: &reqwest::Client,
    server: &InProcess,
    project: &str,
) -> anyhow::Result<reqwest::Client> {
    let name = format!("{project}-reader");
    let roles: Vec<Value> = std::iter::once(project.to_owned())
        .chain((0..9).map(|i| format!("p{i:03}")))
        .map(|scope| json!({"roleId": 4, "scopeType": "project", "scopeId": scope}))
        .collect();
    let app = post(
        http,
        &server.url("/api/v1/apps"),
        &json!({"name": name, "roles": roles}),
    )
    .await?;
    let secret = app["clientSecret"].as_str().context("a clientSecret")?;
    let token = post(
        http,
        &server.url("/api/v1/token"),
        &json!({"grantType": "client_credentials", "clientId": name, "clientSecret": secret}),
    )
    .await?;
    let token = token["accessToken"].as_str().context("an accessToken")?;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse()?,
    );
    Ok(reqwest::Client::builder()
        .default_headers(headers)
        .build()?)
}

/// The trainings list from the `nextCursor` of the page that ends 90 % of the way down.
async fn cursor_path(
    http: &reqwest::Client,
    server: &InProcess,
    project: &str,
    n: usize,
) -> anyhow::Result<String> {
    let base = format!("/api/v1/workloads/trainings?projectId={project}&limit=50");
    let url = server.url(&format!(
        "{base}&offset={}",
        (n * 9 / 10).saturating_sub(50)
    ));
    let page: Value = http.get(url).send().await?.json().await?;
    let cursor = page["nextCursor"]
        .as_str()
        .context("a nextCursor 90 % down")?;
    Ok(format!("{base}&after={cursor}"))
}

/// p50, p99 and the size of the last answer of `samples` GETs of `path` in `project`.
async fn time(
    http: &reqwest::Client,
    server: &InProcess,
    project: &str,
    path: &str,
    samples: usize,
) -> anyhow::Result<(Duration, Duration, usize)> {
    let url = server.url(&path.replace("{p}", project));
    let mut took = Vec::with_capacity(samples);
    let mut bytes = 0;
    for _ in 0..samples {
        let started = Instant::now();
        let answer = http.get(&url).send().await?;
        let status = answer.status();
        let body = answer.bytes().await?;
        took.push(started.elapsed());
        anyhow::ensure!(
            status.is_success(),
            "{url}: {status}: {}",
            String::from_utf8_lossy(&body)
        );
        bytes = body.len();
    }
    let (p50, p99) = percentiles(&mut took);
    Ok((p50, p99, bytes))
}

async fn post(http: &reqwest::Client, url: &str, body: &Value) -> anyhow::Result<Value> {
    let answer = http.post(url).json(body).send().await?;
    let status = answer.status();
    let text = answer.text().await?;
    anyhow::ensure!(status.is_success(), "{url}: {status}: {text}");
    Ok(serde_json::from_str(&text)?)
}

/// A project named `name` holding `n` trainings: one submitted, the rest copies of its row.
async fn project(
    http: &reqwest::Client,
    server: &InProcess,
    name: &str,
    n: usize,
) -> anyhow::Result<String> {
    post(
        http,
        &server.url("/api/v1/org-unit/projects"),
        &json!({ "name": name }),
    )
    .await?;
    let mut body = small_training(&format!("{name}-template"));
    body["projectId"] = json!(name);
    let made = post(http, &server.url("/api/v1/workloads/trainings"), &body).await?;
    let id = made["workloadId"].as_str().context("a workloadId")?;
    fill(&server.db, uuid::Uuid::parse_str(id)?, n.saturating_sub(1)).await?;
    Ok(name.to_owned())
}
