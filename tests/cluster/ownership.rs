//! What a workload owns goes with it: suspended and resumed three times then deleted, nothing
//! is left; the volumes it asked for are created for it and deleted with it.

use crate::api::{TRAININGS, Tephra, WAIT, id_of, training};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::PersistentVolumeClaim;
use kube::api::{Api, DynamicObject, ListParams};
use serde_json::json;
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

pub async fn suspend_and_resume_three_times_then_delete_leaves_nothing(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let id = id_of(&t.submit(TRAININGS, &training("pausable", 1)).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let job_uid = |jobs: Vec<DynamicObject>| jobs.first().and_then(|j| j.metadata.uid.clone());
        let mut uids = vec![job_uid(t.jobs_of(&id).await?)];
        for round in 1..=3 {
            let (status, body) = t
                .post(&format!("{TRAININGS}/{id}/suspend"), &json!({}))
                .await?;
            assert_eq!(status, 202, "suspend {round}: {body}");
            assert_eq!(body["code"], 202);
            t.wait_phase(TRAININGS, &id, "Stopped").await?;
            ensure!(
                t.pods_of(&id).await?.is_empty(),
                "suspend {round}: pods are gone"
            );
            ensure!(
                t.jobs_of(&id).await?.is_empty(),
                "suspend {round}: the Job is gone"
            );
            let (status, _) = t
                .post(&format!("{TRAININGS}/{id}/suspend"), &json!({}))
                .await?;
            assert_eq!(status, 409, "suspending twice is a conflict");

            let (status, _) = t
                .post(&format!("{TRAININGS}/{id}/resume"), &json!({}))
                .await?;
            assert_eq!(status, 202, "resume {round}");
            let running = t.wait_phase(TRAININGS, &id, "Running").await?;
            assert_eq!(
                running["status"]["retryCount"], 0,
                "a resume spends no retry"
            );
            uids.push(job_uid(t.jobs_of(&id).await?));
        }
        let distinct: std::collections::BTreeSet<_> = uids.iter().flatten().collect();
        assert_eq!(distinct.len(), 4, "each resume created a new Job: {uids:?}");
        let (status, body) = t
            .post(&format!("{TRAININGS}/{id}/resume"), &json!({}))
            .await?;
        assert_eq!(status, 409, "resuming a running training: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap_or_default()
                .contains("not suspended"),
            "{body}"
        );

        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        assert_eq!(status, 202);
        t.wait_gone(TRAININGS, &id).await?;
        ensure!(t.jobs_of(&id).await?.is_empty(), "the Job is gone");
        ensure!(t.pods_of(&id).await?.is_empty(), "the pods are gone");
        let (_, history) = t.get(&format!("/api/v1/workloads/{id}/history")).await?;
        let count = |action: &str| {
            history
                .as_array()
                .map_or(0, |h| h.iter().filter(|e| e["action"] == action).count())
        };
        assert_eq!((count("suspend"), count("resume")), (3, 3), "{history}");
        assert_eq!((count("delete"), count("deleted")), (1, 1), "{history}");
        let suspend = history
            .as_array()
            .and_then(|h| h.iter().find(|e| e["action"] == "suspend"))
            .context("a suspend entry")?;
        assert_eq!(suspend["actor"], "Dev User", "who suspended is recorded");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn new_volumes_belong_to_the_workload_and_go_with_it(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("with-volume", 0);
        body["spec"]["storage"] = json!({ "pvc": [{
            "name": "scratch", "existingPvc": false, "path": "/scratch",
            "claimInfo": { "size": "1G", "storageClass": "standard",
                           "accessModes": { "readWriteOnce": true } }
        }] });
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        let pvcs: Api<PersistentVolumeClaim> = Api::namespaced(t.kube.clone(), &t.namespace());
        let selector = format!("tephra.dev/workload-id={id}");
        tephra_tests::wait_for("the PVC", WAIT, || async {
            let list = pvcs
                .list(&ListParams::default().labels(&selector))
                .await
                .ok()?;
            (list.items.len() == 1).then_some(())
        })
        .await?;
        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        assert_eq!(status, 202);
        t.wait_gone(TRAININGS, &id).await?;
        let left = pvcs.list(&ListParams::default().labels(&selector)).await?;
        // A PVC may linger with its protection finalizer, but it is being deleted.
        ensure!(
            left.items
                .iter()
                .all(|p| p.metadata.deletion_timestamp.is_some()),
            "the workload's PVC is deleted with it"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
