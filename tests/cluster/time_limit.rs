//! A training's time limit (`maxRunTimeSeconds`) on the testbed: it runs, its page counts down,
//! and at the limit Tephra stops it as a suspend does (no pods left), saying why in its history;
//! resumed, it runs again.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use kube::Api;
use kube::api::ListParams;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

pub async fn a_training_is_stopped_at_its_time_limit(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("limited", 1);
        body["spec"]["maxRunTimeSeconds"] = json!(60);
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let page = t.page(&format!("/trainings/{id}")).await?;
        ensure!(
            page.contains("it stops in ") && page.contains("(its time limit of 1 min)"),
            "the page counts down"
        );
        let stopped = tephra_tests::wait_for(
            "the training to be stopped at its limit",
            Duration::from_secs(120),
            || async {
                let (_, body) = t.get(&format!("{TRAININGS}/{id}")).await.ok()?;
                (body["actualPhase"] == "Stopped").then_some(body)
            },
        )
        .await?;
        ensure!(stopped["desiredPhase"] == "Stopped", "{stopped}");
        let (_, history) = t.get(&format!("/api/v1/workloads/{id}/history")).await?;
        let entry = history
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["action"] == "time-limit")
            .with_context(|| format!("the stop in the history: {history}"))?;
        ensure!(
            entry["actor"].is_null()
                && entry["detail"]["reason"].as_str().is_some_and(|r| {
                    r.starts_with("stopped at its time limit: it ran 1 min (maxRunTimeSeconds 60)")
                }),
            "Tephra stopped it, saying why: {entry}"
        );
        let pods: Api<k8s_openapi::api::core::v1::Pod> =
            Api::namespaced(t.kube.clone(), &t.namespace());
        let left = pods.list(&ListParams::default()).await?;
        ensure!(left.items.is_empty(), "no pod runs once it is stopped");
        // Resumed, it runs again, with a new minute.
        let (status, _) = t
            .post(&format!("{TRAININGS}/{id}/resume"), &json!({}))
            .await?;
        ensure!(status == 202, "resume: {status}");
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        ensure!(status == 202);
        t.wait_gone(TRAININGS, &id).await
    }
    .await;
    t.cleanup().await;
    result
}
