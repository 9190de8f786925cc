//! What admission costs on the submit path: `POST /api/v1/workloads/trainings` until its 202,
//! sequentially, against the release server (SQLite, no cluster, so nothing else is on the path),
//! in the same run: without quotas or policies (no limits anywhere, an empty system policy), and
//! with them (limits on the project and its department, policies with rules and defaults at the
//! system, department and project). `BENCH_SAMPLES` (default 300) sets the count.

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tephra_tests::bench::{env_usize, percentiles, small_training};
use tephra_tests::tephra::Launch;

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

async fn send(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    body: &Value,
) -> anyhow::Result<Value> {
    let answer = http.request(method, url).json(body).send().await?;
    let status = answer.status();
    let text = answer.text().await?;
    anyhow::ensure!(status.is_success(), "{status}: {text}");
    Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn submits(
    http: &reqwest::Client,
    base: &str,
    project: &str,
    round: &str,
    n: usize,
) -> anyhow::Result<Vec<Duration>> {
    let mut took = Vec::with_capacity(n);
    for i in 0..n {
        let mut body = small_training(&format!("{project}-{round}-{i}"));
        body["projectId"] = json!(project);
        let started = Instant::now();
        send(
            http,
            reqwest::Method::POST,
            format!("{base}/api/v1/workloads/trainings"),
            &body,
        )
        .await?;
        took.push(started.elapsed());
    }
    Ok(took)
}

fn main() -> anyhow::Result<()> {
    let samples = env_usize("BENCH_SAMPLES", 300);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let server = Launch::default().start()?;
        let base = server.base_url();
        let http = reqwest::Client::new();
        let put = reqwest::Method::PUT;
        let post = reqwest::Method::POST;
        let shares = |deserved: f64, limit: f64| {
            json!([{ "nodePool": { "name": "default" },
                     "gpu": { "deserved": deserved, "limit": limit },
                     "cpu": { "deserved": 100000, "limit": 200000 },
                     "memory": { "deserved": 1000000, "limit": 2000000 } }])
        };
        // Without: a project with no limits in a department with none, and no rules anywhere.
        send(&http, post.clone(), format!("{base}/api/v1/org-unit/projects"), &json!({ "name": "plain" })).await?;
        send(&http, put.clone(), format!("{base}/api/v2/policy/trainings"),
             &json!({ "meta": { "scope": "system" }, "policy": { "rules": {} } })).await?;
        submits(&http, &base, "plain", "warm", 20).await?;
        let mut without = submits(&http, &base, "plain", "run", samples).await?;
        // With: the built-in system policy back, limits and policies on both inner scopes.
        http.delete(format!("{base}/api/v2/policy/trainings?scope=system")).send().await?;
        let department = send(&http, post.clone(), format!("{base}/api/v1/org-unit/departments"),
            &json!({ "name": "research", "resources": shares(100.0, 200.0) })).await?;
        send(&http, post.clone(), format!("{base}/api/v1/org-unit/projects"),
            &json!({ "name": "governed", "parentId": department["id"], "resources": shares(50.0, 100.0) })).await?;
        let rules = json!({ "compute": { "gpuDevicesRequest": { "max": 4 }, "cpuCoreRequest": { "max": 8 } },
                            "image": { "registries": ["busybox", "docker.io/"] } });
        send(&http, put.clone(), format!("{base}/api/v2/policy/trainings"),
            &json!({ "meta": { "scope": "department", "departmentId": "research" },
                     "policy": { "rules": rules, "defaults": { "backoffLimit": 3 } } })).await?;
        send(&http, put.clone(), format!("{base}/api/v2/policy/trainings"),
            &json!({ "meta": { "scope": "project", "projectId": "governed" },
                     "policy": { "rules": { "compute": { "gpuDevicesRequest": { "max": 2 } } },
                                 "defaults": { "compute": { "cpuCoreLimit": 1 } } } })).await?;
        submits(&http, &base, "governed", "warm", 20).await?;
        let mut with = submits(&http, &base, "governed", "run", samples).await?;
        let (w50, w99) = percentiles(&mut without);
        let (g50, g99) = percentiles(&mut with);
        println!("\n## Admission overhead ({samples} sequential submits each, until the 202; SQLite, no cluster)\n");
        println!("| submit | p50 | p99 |\n|---|---|---|");
        println!("| without quotas or policies (no limits, empty system policy) | {} | {} |", ms(w50), ms(w99));
        println!("| with limits on project and department, policies at three scopes | {} | {} |", ms(g50), ms(g99));
        println!(
            "| difference | {} | {} |",
            ms(g50.saturating_sub(w50)),
            ms(g99.saturating_sub(w99))
        );
        drop(server);
        anyhow::Ok(())
    })
}
