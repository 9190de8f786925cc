//! Edits of a running training, after seeds/001: scale the workers and the gang, change the
//! priority class; Volcano's controller makes the pods and the PodGroup follow.

use crate::api::{DISTRIBUTED, TRAININGS, Tephra, id_of, pytorch, training};
use anyhow::Context;
use kube::api::{Api, DynamicObject, ListParams};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::{Testbed, resource};

/// The PodGroup Volcano made for the workload's Job.
async fn pod_group(t: &Tephra, id: &str) -> anyhow::Result<DynamicObject> {
    let resource = resource("scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups");
    let job = t.jobs_of(id).await?.pop().context("a Job")?;
    let uid = job.metadata.uid.context("a uid")?;
    let groups: Api<DynamicObject> =
        Api::namespaced_with(t.kube.clone(), &t.namespace(), &resource);
    groups
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .find(|g| {
            g.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|r| r.uid == uid)
        })
        .context("the Job's PodGroup")
}

/// The uids of the workload's pods of these names, in that order; missing ones are an error.
async fn uids(t: &Tephra, id: &str, names: &[&str]) -> anyhow::Result<Vec<String>> {
    let pods = t.pods_of(id).await?;
    names
        .iter()
        .map(|name| {
            pods.iter()
                .find(|p| p.metadata.name.as_deref() == Some(*name))
                .and_then(|p| p.metadata.uid.clone())
                .with_context(|| format!("no pod {name}"))
        })
        .collect()
}

pub async fn a_running_training_scales_and_changes_priority_and_the_cluster_follows(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let id = id_of(&t.submit(DISTRIBUTED, &pytorch("elastic", 2, 1)).await?)?;
        t.wait_until(DISTRIBUTED, &id, "three pods running", |b| {
            b["status"]["tasks"]["worker"]["running"] == 2
        })
        .await?;
        let at = format!("{DISTRIBUTED}/{id}");

        // What Volcano cannot change on a live Job is refused by field, and nothing changes.
        let (status, body) = t.patch(&at, &json!({ "image": "other:1" })).await?;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["details"][0]["field"], "image", "{body}");
        let (status, body) = t.patch(&at, &json!({ "numWorkers": 0 })).await?;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["details"][0]["field"], "spec.numWorkers", "{body}");

        // Up: four workers, a gang of three workers and the master, another priority class.
        let (status, body) = t
            .patch(
                &at,
                &json!({ "numWorkers": 4, "minReplicas": 3, "priorityClass": "build" }),
            )
            .await?;
        assert_eq!(status, 202, "{body}");
        let scaled = t
            .wait_until(DISTRIBUTED, &id, "four workers running", |b| {
                b["status"]["tasks"]["worker"]["running"] == 4
                    && b["status"]["podGroup"]["minMember"] == 4
            })
            .await?;
        assert!(
            scaled["status"]["drift"].is_null(),
            "an edit is no drift: {scaled}"
        );
        let group = pod_group(&t, &id).await?;
        assert_eq!(group.data["spec"]["priorityClassName"], "tephra-build");
        let job = t.jobs_of(&id).await?.pop().context("a Job")?;
        assert_eq!(job.data["spec"]["priorityClassName"], "tephra-build");
        let (_, history) = t.get(&format!("/api/v1/workloads/{id}/history")).await?;
        assert!(
            history.to_string().contains("\"action\":\"edit\""),
            "{history}"
        );

        // Down again: one worker, the gang of one worker and the master. The master and the
        // first worker run on: Volcano removes the others without restarting the training.
        let kept = uids(&t, &id, &["elastic-master-0", "elastic-worker-0"]).await?;
        let (status, body) = t
            .patch(&at, &json!({ "numWorkers": 1, "minReplicas": 1 }))
            .await?;
        assert_eq!(status, 202, "{body}");
        t.wait_until(DISTRIBUTED, &id, "one worker left", |b| {
            b["status"]["tasks"]["worker"]["running"] == 1
                && b["status"]["podGroup"]["minMember"] == 2
        })
        .await?;
        tephra_tests::wait_for(
            "only the master and the first worker",
            Duration::from_secs(60),
            || async { (t.pods_of(&id).await.ok()?.len() == 2).then_some(()) },
        )
        .await?;
        let names = ["elastic-master-0", "elastic-worker-0"];
        assert_eq!(uids(&t, &id, &names).await?, kept, "the same pods run on");
        let job = t.jobs_of(&id).await?.pop().context("a Job")?;
        assert_eq!(
            job.data["status"]["retryCount"].as_i64().unwrap_or(0),
            0,
            "a scale-down is no restart: {}",
            job.data["status"]
        );

        // A training has no workers; its priority class may change.
        let single = id_of(&t.submit(TRAININGS, &training("single", 0)).await?)?;
        let (status, body) = t
            .patch(
                &format!("{TRAININGS}/{single}"),
                &json!({ "numWorkers": 2 }),
            )
            .await?;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["details"][0]["field"], "numWorkers", "{body}");

        t.finish_pods(&id, Some("master"), "Succeeded").await?;
        t.wait_phase(DISTRIBUTED, &id, "Completed").await?;
        let (status, body) = t.patch(&at, &json!({ "numWorkers": 2 })).await?;
        assert_eq!(status, 409, "a finished training cannot change: {body}");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
