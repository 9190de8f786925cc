//! GPU use from a real Prometheus scraping the testbed's DCGM-shaped exporter (`testbed/run up
//! --metrics`): the detail page's figures per pod, the list's current figure, and the projects'
//! idle GPU rule, which suspends a training whose GPUs stay idle and says why.

use crate::api::{TRAININGS, Tephra, id_of, launch, prefix_for, training};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use kube::api::DeleteParams;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::testbed::Testbed;

/// The exporter reports this utilisation for a container with it in its environment.
fn with_utilisation(mut body: Value, percent: u32) -> Value {
    body["spec"]["environmentVariables"] =
        json!([{ "name": "TESTBED_GPU_UTIL", "value": percent.to_string() }]);
    body
}

async fn start(tb: &Testbed, ns: &str) -> anyhow::Result<Tephra> {
    let url = std::fs::read_to_string(tb.dir.join("prometheus-url"))
        .context("the shared testbed runs with --metrics")?;
    let prefix = prefix_for(ns);
    let launch =
        launch(crate::tephra_kubeconfig(), &prefix).arg(format!("--prometheus-url={}", url.trim()));
    Tephra::start_with(tb, launch, prefix).await
}

async fn server_fn(t: &Tephra, name: &str, body: Value) -> anyhow::Result<Value> {
    let response = t
        .http
        .post(t.url(&format!("/api/fn/{name}")))
        .json(&body)
        .send()
        .await?;
    ensure!(
        response.status().is_success(),
        "{name}: {}",
        response.status()
    );
    Ok(response.json().await?)
}

pub async fn gpu_use_shows_per_pod_and_in_the_list(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = start(&tb, &ns).await?;
    let result = async {
        let id = id_of(
            &t.submit(TRAININGS, &with_utilisation(training("gpu-use", 2), 42))
                .await?,
        )?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let figures = tephra_tests::wait_for("GPU figures", Duration::from_secs(30), || async {
            let figures = server_fn(&t, "get_gpu_use", json!({ "id": id }))
                .await
                .ok()?;
            let last = figures["pods"][0]["utilisation"]
                .as_array()?
                .last()?
                .clone();
            (last[1] == 42.0).then_some(figures)
        })
        .await?;
        ensure!(figures["unavailable"].is_null(), "{figures}");
        let pod = &figures["pods"][0];
        ensure!(
            pod["pod"]
                .as_str()
                .is_some_and(|p| p.starts_with("gpu-use-")),
            "the training's own pod: {pod}"
        );
        ensure!(
            pod["memoryMib"].as_array().is_some_and(|m| !m.is_empty()),
            "memory in use over time: {pod}"
        );
        // The exporter keeps 70 % of each card in use; the cards' size scales the chart.
        let used = pod["memoryMib"][0][1].as_f64().unwrap_or_default();
        let total = pod["memoryTotalMib"].as_f64().unwrap_or_default();
        ensure!(
            total > 0.0 && (used / total - 0.7).abs() < 0.01,
            "memory in use against the cards' size: {pod}"
        );
        let page = server_fn(&t, "list_workloads", json!({ "query": {} })).await?;
        let row = page["workloads"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|w| w["workloadId"] == id.as_str())
            .context("the training in the list")?;
        ensure!(row["gpuUse"] == 42.0, "the list's current figure: {row}");
        // Run:ai's workload metrics: the whole workload (labels null), then each pod.
        let (status, metrics) = t
            .get(&format!(
                "/api/v1/workloads/{id}/metrics?metricType=GPU_UTILIZATION&metricType=GPU_MEMORY_USAGE_BYTES&numberOfSamples=10"
            ))
            .await?;
        ensure!(status == 200, "metrics: {status} {metrics}");
        let measurements = metrics["measurements"].as_array().context("measurements")?;
        let kinds: Vec<&str> = measurements.iter().filter_map(|m| m["type"].as_str()).collect();
        ensure!(
            kinds == ["GPU_UTILIZATION", "GPU_UTILIZATION", "GPU_MEMORY_USAGE_BYTES", "GPU_MEMORY_USAGE_BYTES"],
            "{metrics}"
        );
        ensure!(
            measurements[0]["labels"].is_null()
                && measurements[1]["labels"]["pod"] == pod["pod"]
                && measurements[0]["values"].as_array().and_then(|v| v.last()).map(|v| &v["value"])
                    == Some(&json!("42")),
            "{metrics}"
        );
        let (status, bad) = t
            .get(&format!("/api/v1/workloads/{id}/metrics?metricType=TEMPERATURE"))
            .await?;
        // One error, naming the field and what is allowed.
        ensure!(
            status == 400
                && bad["details"].as_array().map(Vec::len) == Some(1)
                && bad["details"][0]["field"] == "metricType"
                && bad["details"][0]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("GPU_UTILIZATION")),
            "{bad}"
        );
        in_the_browser(&t, &id, figures["pods"][0]["pod"].as_str().unwrap_or_default()).await
    }
    .await;
    t.cleanup().await;
    result
}

/// What a user sees: the list's "42% busy", and on the detail page a chart per figure with a line
/// for the pod, its legend saying 42 %.
async fn in_the_browser(t: &Tephra, id: &str, pod: &str) -> anyhow::Result<()> {
    const SHOWN: Duration = Duration::from_secs(30);
    let browser = Browser::start().await?;
    let result = async {
        browser.open(&t.url("/trainings")).await?;
        browser
            .wait_text(
                &format!("tr[data-workload-id='{id}'] [data-testid=gpu-use]"),
                "42% busy",
                SHOWN,
            )
            .await?;
        // The figures' own page, drawn by the server: what the training's page reads again.
        browser
            .open(&t.url(&format!("/trainings/{id}/gpu-use")))
            .await?;
        browser
            .wait_text(
                &format!("#gpu-use-live [data-testid=gpu-use-legend] li[data-pod='{pod}']"),
                "42 %",
                SHOWN,
            )
            .await?;
        browser.open(&t.url(&format!("/trainings/{id}"))).await?;
        browser.hydrated().await?;
        // Read in the browser after hydration (the training's page is not held back for them).
        browser
            .wait_text(
                &format!("[data-testid=gpu-use-legend] li[data-pod='{pod}']"),
                "42 %",
                SHOWN,
            )
            .await?;
        browser
            .wait_for(
                "[data-testid=gpu-use] svg[aria-label='Utilisation (%)'] polyline",
                SHOWN,
            )
            .await?;
        browser
            .wait_for(
                "[data-testid=gpu-use] svg[aria-label='Memory in use (GiB)'] polyline",
                SHOWN,
            )
            .await?;
        browser.screenshot("gpu-use-detail").await
    }
    .await;
    browser.close().await?;
    result
}

pub async fn a_project_rule_suspends_a_training_whose_gpus_stay_idle(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = start(&tb, &ns).await?;
    let result = async {
        let rule = json!({ "trainingJobMaxIdleDurationSeconds": 60 });
        let (status, project) = t
            .post(
                "/api/v1/org-unit/projects",
                &json!({ "name": "idle", "schedulingRules": rule }),
            )
            .await?;
        ensure!(status == 201, "project: {status} {project}");
        ensure!(project["schedulingRules"] == rule, "{project}");
        let in_project = |mut body: Value| {
            body["projectId"] = json!("idle");
            body
        };
        let idle = id_of(
            &t.submit(
                TRAININGS,
                &in_project(with_utilisation(training("sleepy", 1), 0)),
            )
            .await?,
        )?;
        let busy = id_of(
            &t.submit(TRAININGS, &in_project(training("busy", 1)))
                .await?,
        )?;
        t.wait_phase(TRAININGS, &busy, "Running").await?;
        // A minute of idle samples, then a pass of the rule (every 15 s).
        let stopped = tephra_tests::wait_for(
            "the idle training to be suspended",
            Duration::from_secs(150),
            || async {
                let (_, body) = t.get(&format!("{TRAININGS}/{idle}")).await.ok()?;
                (body["actualPhase"] == "Stopped").then_some(body)
            },
        )
        .await?;
        ensure!(stopped["desiredPhase"] == "Stopped", "{stopped}");
        let (_, busy_now) = t.get(&format!("{TRAININGS}/{busy}")).await?;
        ensure!(
            busy_now["actualPhase"] == "Running",
            "the busy one runs on: {busy_now}"
        );
        let (_, history) = t.get(&format!("/api/v1/workloads/{idle}/history")).await?;
        let entry = history
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["action"] == "idle-suspend")
            .with_context(|| format!("the suspension in the history: {history}"))?;
        ensure!(
            entry["actor"].is_null()
                && entry["detail"]["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("idle GPU rule") && r.ends_with("for 1 min")),
            "Tephra suspended it, saying why: {entry}"
        );
        let (_, audit) = t.get("/api/v1/audit?action=workload.idle-suspend").await?;
        ensure!(
            audit.to_string().contains(&idle),
            "the audit trail has it: {audit}"
        );
        // The page says why it stopped, above the timeline.
        let browser = Browser::start().await?;
        let shown = async {
            browser.open(&t.url(&format!("/trainings/{idle}"))).await?;
            browser
                .wait_text(
                    "[data-testid=suspended-by]",
                    "idle GPU rule",
                    Duration::from_secs(30),
                )
                .await?;
            browser.screenshot("idle-suspended").await
        }
        .await;
        browser.close().await?;
        shown?;
        for id in [&idle, &busy] {
            t.delete(&format!("{TRAININGS}/{id}")).await?;
            t.wait_gone(TRAININGS, id).await?;
        }
        Ok(())
    }
    .await;
    t.cleanup().await;
    let _ = Api::<Namespace>::all(tb.client().await?)
        .delete(
            &format!("{}idle", prefix_for(&ns)),
            &DeleteParams::default(),
        )
        .await;
    result
}
