//! What Volcano does with a running Job: a queue's capability caps it, abort and resume stop and
//! restart it, a foreground delete removes its pods and PodGroup, and a failed pod restarts it.

use super::{Cluster, OUTCOME, assert_no_pod_bound, job, task, wait};
use anyhow::Context;
use kube::api::{DeleteParams, PropagationPolicy};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

pub async fn a_queue_capability_caps_what_runs(tb: Arc<Testbed>, ns: String) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let queue = c.queue(Some(json!({ "nvidia.com/gpu": "4" }))).await?;
    let over = c
        .create_job(job(
            "wants-8",
            &queue,
            1,
            vec![task("worker", 1, 8, json!({}))],
        ))
        .await?;
    let within = c
        .create_job(job(
            "wants-4",
            &queue,
            1,
            vec![task("worker", 1, 4, json!({}))],
        ))
        .await?;
    c.wait_job_phase(&within, "Running").await?;
    // Give the scheduler several sessions to (wrongly) admit the larger one.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_ne!(
        c.job_phase(&over).await.as_deref(),
        Some("Running"),
        "8 GPUs exceed the queue's capability of 4"
    );
    assert_no_pod_bound(&c, &over).await
}

pub async fn abort_and_resume_commands_stop_and_restart_the_job(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let name = c.running_job("suspend-me", 2).await?;
    c.command(&name, "AbortJob").await?;
    c.wait_job_phase(&name, "Aborted").await?;
    wait("the pods to be gone", || async {
        c.job_pods(&name).await.ok()?.is_empty().then_some(())
    })
    .await?;
    c.command(&name, "ResumeJob").await?;
    let job = c.wait_job_phase(&name, "Running").await?;
    // Documented Volcano behaviour Tephra avoids: every resume spends a retry.
    assert_eq!(
        job.data["status"]["retryCount"], 1,
        "{}",
        job.data["status"]
    );
    Ok(())
}

pub async fn foreground_delete_removes_pods_and_the_podgroup(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let name = c.running_job("delete-me", 2).await?;
    c.podgroup_of(&name).await.context("a PodGroup exists")?;
    let params = DeleteParams {
        propagation_policy: Some(PropagationPolicy::Foreground),
        ..DeleteParams::default()
    };
    c.jobs().delete(&name, &params).await?;
    wait("the job to be gone", || async {
        c.jobs().get(&name).await.is_err().then_some(())
    })
    .await?;
    wait("its pods to be gone", || async {
        c.job_pods(&name).await.ok()?.is_empty().then_some(())
    })
    .await?;
    wait("its PodGroup to be gone", || async {
        c.podgroup_of(&name).await.is_none().then_some(())
    })
    .await?;
    Ok(())
}

pub async fn a_failed_pod_restarts_the_job_and_counts_a_retry(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let queue = c.queue(None).await?;
    let mut job = job("flaky", &queue, 1, vec![task("worker", 1, 1, json!({}))]);
    job["spec"]["policies"] = json!([{ "event": "PodFailed", "action": "RestartJob" }]);
    let name = c.create_job(job).await?;
    c.wait_job_phase(&name, "Running").await?;
    c.annotate_pod(&format!("{name}-worker-0"), OUTCOME, "Failed")
        .await?;
    let job = wait("the job to restart and run again", || async {
        let job = c.jobs().get(&name).await.ok()?;
        let status = &job.data["status"];
        (status["state"]["phase"] == "Running" && status["retryCount"] == 1).then_some(job)
    })
    .await?;
    assert_eq!(job.data["status"]["retryCount"], 1);
    Ok(())
}
