//! A failed training's last log lines outlive its pods: the training's container prints an NVIDIA
//! Xid line and an NCCL error (the testbed's `testbed/log-lines`), its pod fails, and Tephra keeps
//! the lines with what they hint at. Once its Job and pods are gone (as a TTL collects them), the
//! API and the page still show them.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::Pod;
use kube::Api;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

const XID: &str =
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus.";
const NCCL: &str = "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error";

/// Fails the training's pods with exit code 1 (each retry's too) until it has failed.
async fn fail_until_failed(t: &Tephra, id: &str) -> anyhow::Result<Value> {
    let patch = json!({ "metadata": { "annotations": {
        "testbed.tephra.dev/outcome": "Failed",
        "testbed.tephra.dev/exit-code": "1",
        "testbed.tephra.dev/run-duration": "2s",
    } } });
    tephra_tests::wait_for("the training to fail", Duration::from_secs(90), || async {
        for pod in t.pods_of(id).await.ok()? {
            let (Some(name), Some(namespace)) = (pod.metadata.name, pod.metadata.namespace) else {
                continue;
            };
            let _ = Api::<Pod>::namespaced(t.kube.clone(), &namespace)
                .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                .await;
        }
        let (_, body) = t.get(&format!("{TRAININGS}/{id}")).await.ok()?;
        (body["actualPhase"] == "Failed").then_some(body)
    })
    .await
}

async fn kept(t: &Tephra, id: &str) -> anyhow::Result<Value> {
    let (status, body) = t.get(&format!("/api/v1/workloads/{id}/kept-logs")).await?;
    ensure!(status == 200, "{status} {body}");
    Ok(body)
}

pub async fn a_failed_trainings_last_lines_and_hints_outlive_its_pods(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("gpu-fault", 0);
        body["spec"]["backoffLimit"] = json!(0);
        body["spec"]["annotations"] =
            json!([{ "name": "testbed/log-lines", "value": format!("{XID}\n{NCCL}") }]);
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        // The lines are written once the pod is bound; give the testbed a moment.
        tokio::time::sleep(Duration::from_secs(3)).await;
        fail_until_failed(&t, &id).await?;
        let logs =
            tephra_tests::wait_for("the lines to be kept", Duration::from_secs(30), || async {
                let body = kept(&t, &id).await.ok()?;
                (body["logs"].as_array().is_some_and(|l| !l.is_empty())).then_some(body)
            })
            .await?;
        let first = &logs["logs"][0];
        let lines = first["lines"].to_string();
        ensure!(
            lines.contains("fallen off the bus") && lines.contains("NCCL error"),
            "{logs}"
        );
        let meanings: Vec<&str> = first["hints"]
            .as_array()
            .context("hints")?
            .iter()
            .filter_map(|h| h["meaning"].as_str())
            .collect();
        ensure!(
            meanings
                .iter()
                .any(|m| m.starts_with("NVIDIA Xid 79: the GPU fell off the bus"))
                && meanings
                    .iter()
                    .any(|m| m.starts_with("NCCL, the GPUs' communication library")),
            "{logs}"
        );
        // The Job and its pods go, as a TTL collects them; what was kept stays.
        delete_pods_and_jobs(&t).await?;
        let page = t.page(&format!("/trainings/{id}")).await?;
        ensure!(
            page.contains("Last log lines, kept") && page.contains("fallen off the bus"),
            "the page shows the kept lines once the pods are gone"
        );
        ensure!(
            kept(&t, &id).await?["logs"][0]["lines"]
                .to_string()
                .contains("NCCL error")
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// Deletes every Volcano Job in the test's namespace and waits until no pod is left.
async fn delete_pods_and_jobs(t: &Tephra) -> anyhow::Result<()> {
    let resource = kube::discovery::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
        "batch.volcano.sh",
        "v1alpha1",
        "Job",
    ));
    let jobs: Api<kube::api::DynamicObject> =
        Api::namespaced_with(t.kube.clone(), &t.namespace(), &resource);
    jobs.delete_collection(&DeleteParams::foreground(), &ListParams::default())
        .await?;
    let pods: Api<Pod> = Api::namespaced(t.kube.clone(), &t.namespace());
    tephra_tests::wait_for("the pods to be gone", Duration::from_secs(60), || async {
        pods.list(&ListParams::default())
            .await
            .ok()?
            .items
            .is_empty()
            .then_some(())
    })
    .await
}
