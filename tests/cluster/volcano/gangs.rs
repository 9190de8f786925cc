//! Gangs: seed 000's PyTorch job runs as one, its master's completion completes it, and a gang
//! that cannot fit, or is larger than the cluster, binds no pod.

use super::{Cluster, OUTCOME, assert_no_pod_bound, job, seed, task, wait};
use anyhow::Context;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

pub async fn seed_000_pytorch_job_runs_as_a_gang(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let queue = c.queue(None).await?;
    let pc: k8s_openapi::api::scheduling::v1::PriorityClass = serde_json::from_value(
        json!({ "metadata": { "name": "high-priority" }, "value": 100000 }),
    )?;
    let classes: Api<k8s_openapi::api::scheduling::v1::PriorityClass> = Api::all(c.client.clone());
    if let Err(e) = classes.create(&PostParams::default(), &pc).await
        && !matches!(&e, kube::Error::Api(s) if s.code == 409)
    {
        return Err(e.into());
    }
    // The seed's job exactly as written, but in this test's namespace and queue.
    let mut job = seed("seed-000-job.json")?;
    job["spec"]["queue"] = json!(queue);
    let name = c.create_job(job).await?;

    c.wait_job_phase(&name, "Running").await?;
    let pg = c
        .podgroup_of(&name)
        .await
        .context("the job has a PodGroup")?;
    assert_eq!(
        pg.data["spec"]["minMember"], 3,
        "the gang gate is the job's minAvailable"
    );
    wait("the PodGroup to run", || async {
        let pg = c.podgroup_of(&name).await?;
        (pg.data["status"]["phase"] == "Running").then_some(())
    })
    .await?;
    let pods = wait("4 running pods", || async {
        let pods = c.job_pods(&name).await.ok()?;
        let running = pods
            .iter()
            .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
            .count();
        (running == 4).then_some(pods)
    })
    .await?;
    for pod in &pods {
        let node = pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .unwrap_or_default();
        assert!(
            node.starts_with("gpu-node-"),
            "{} is bound to a fake node, not {node:?}",
            pod.metadata.name.as_deref().unwrap_or("?")
        );
    }
    Ok(())
}

pub async fn completing_the_master_completes_the_torchrun_job(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let queue = c.queue(None).await?;
    let mut master = task("master", 1, 1, json!({}));
    master["policies"] = json!([{ "event": "TaskCompleted", "action": "CompleteJob" }]);
    let mut job = job(
        "torchrun-gang",
        &queue,
        3,
        vec![master, task("worker", 2, 1, json!({}))],
    );
    job["spec"]["plugins"] =
        json!({ "pytorch": ["--master=master", "--worker=worker", "--port=23456"], "svc": [] });
    job["spec"]["policies"] = json!([{ "event": "PodEvicted", "action": "RestartJob" }]);
    let name = c.create_job(job).await?;
    c.wait_job_phase(&name, "Running").await?;
    wait("3 running pods", || async {
        let pods = c.job_pods(&name).await.ok()?;
        (pods
            .iter()
            .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
            .count()
            == 3)
            .then_some(())
    })
    .await?;
    c.annotate_pod(&format!("{name}-master-0"), OUTCOME, "Succeeded")
        .await?;
    c.wait_job_phase(&name, "Completed").await?;
    Ok(())
}

pub async fn a_gang_that_cannot_fit_binds_nothing_while_a_small_job_runs(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let queue = c.queue(None).await?;
    // 2 pods of 9 GPUs: 18 GPUs fit the cluster's total, so the gang is admitted (Inqueue), but no
    // node has 9; the scheduler marks it Unschedulable and binds none of its pods.
    let gang = c
        .create_job(job(
            "fragmented",
            &queue,
            2,
            vec![task("worker", 2, 9, json!({}))],
        ))
        .await?;
    let small = c
        .create_job(job(
            "fits",
            &queue,
            1,
            vec![task("worker", 1, 1, json!({}))],
        ))
        .await?;
    c.wait_job_phase(&small, "Running").await?;
    let pg = wait("the gang to be reported short of GPUs", || async {
        let pg = c.podgroup_of(&gang).await?;
        short_of_gpus(&pg).then_some(pg)
    })
    .await?;
    assert_eq!(pg.data["status"]["phase"], "Inqueue");
    assert_no_pod_bound(&c, &gang).await
}

pub async fn a_gang_larger_than_the_cluster_never_binds_a_pod(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let c = Cluster::new(&tb, ns).await?;
    let queue = c.queue(None).await?;
    // 5 pods of 8 GPUs: 40 GPUs, more than the cluster's 32. Without the enqueue action (see
    // the testbed's scheduler configuration) allocate admits the gang to its queue, but binds
    // none of its pods, and the PodGroup says why.
    let big = c
        .create_job(job(
            "too-big",
            &queue,
            5,
            vec![task("worker", 5, 8, json!({}))],
        ))
        .await?;
    // On an empty cluster its message is only the gang's tally ("1/5 tasks in gang unschedulable
    // ... 1 Unschedulable, 4 Schedulable"): four pods fit alone, so no node's shortfall is named
    // (with GPUs in use elsewhere it names "Insufficient nvidia.com/gpu"). That is why Tephra
    // words the reason itself from the request (runs::a_gang_that_cannot_fit_...).
    wait("the PodGroup to say it lacks resources", || async {
        let pg = c.podgroup_of(&big).await?;
        let conditions = pg.data["status"]["conditions"].as_array()?;
        conditions
            .iter()
            .any(|cond| {
                cond["type"] == "Unschedulable"
                    && cond["status"] == "True"
                    && cond["reason"] == "NotEnoughResources"
                    && cond["message"].as_str().is_some_and(|m| {
                        m.contains("1/5 tasks in gang unschedulable")
                            || m.contains("Insufficient nvidia.com/gpu")
                    })
            })
            .then_some(())
    })
    .await?;
    // Several scheduling sessions (200 ms each) to place it, wrongly.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_no_pod_bound(&c, &big).await
}

/// The PodGroup is Unschedulable and the scheduler names the resource it lacks.
fn short_of_gpus(pg: &DynamicObject) -> bool {
    pg.data["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| {
            cs.iter().any(|cond| {
                cond["type"] == "Unschedulable"
                    && cond["status"] == "True"
                    && cond["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("Insufficient nvidia.com/gpu"))
            })
        })
}
