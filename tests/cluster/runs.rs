//! Trainings run end to end through the API: seed 003's request live on the event stream to
//! its completion, a PyTorch gang with its master, and a gang that cannot fit, pending with the
//! scheduler's reason.

use crate::api::{DISTRIBUTED, SEED_003_PROFILE, TRAININGS, Tephra, WAIT, id_of, pytorch};
use anyhow::{Context, ensure};
use kube::api::{Api, ListParams};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::sse::SseStream;
use tephra_tests::testbed::Testbed;

/// Seed 003's request with what the testbed cannot provide taken out: node pools and types it
/// does not label, GPU sharing and vendor resources its nodes do not advertise, a registered data
/// volume, storage that needs a provisioner or a CSI driver, and pod affinity on a label no node
/// has; and the readiness probe's `host`, which node protection refuses (the kubelet would probe
/// another host from the node). Everything else is the seed's.
fn seed_003() -> anyhow::Result<Value> {
    let path = tephra_tests::workspace::root().join("core/tests/fixtures/seed-003-consistent.json");
    let mut body: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    body["projectId"] = json!("default");
    body["useGivenNameAsPrefix"] = json!(true);
    let top = body.as_object_mut().context("an object")?;
    top.remove("clusterId");
    let spec = body["spec"].as_object_mut().context("a spec")?;
    for key in ["nodeType", "nodePools", "podAffinity"] {
        spec.remove(key);
    }
    if let Some(get) = spec
        .get_mut("probes")
        .and_then(|p| p.pointer_mut("/readiness/handler/httpGet"))
        .and_then(Value::as_object_mut)
    {
        get.remove("host");
    }
    spec.insert(
        "compute".into(),
        json!({ "gpuDevicesRequest": 1, "cpuCoreRequest": 0.5, "cpuCoreLimit": 2,
                "cpuMemoryRequest": "20M", "cpuMemoryLimit": "30M" }),
    );
    if let Some(storage) = spec.get_mut("storage").and_then(Value::as_object_mut) {
        for key in ["dataVolume", "pvc", "git", "s3"] {
            storage.remove(key);
        }
    }
    Ok(body)
}

/// Reads the stream until an event for `id` in `phase`; returns every phase seen for `id`.
async fn sse_until(stream: &mut SseStream, id: &str, phase: &str) -> anyhow::Result<Vec<String>> {
    let deadline = tokio::time::Instant::now() + WAIT;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let event = stream
            .next(left)
            .await
            .with_context(|| format!("waiting for {phase} on the event stream; saw {seen:?}"))?;
        if event.event != "workload" {
            continue;
        }
        let data: Value = serde_json::from_str(&event.data)?;
        if data["workloadId"] != id {
            continue;
        }
        let actual = data["actualPhase"].as_str().unwrap_or_default().to_owned();
        if seen.last() != Some(&actual) {
            seen.push(actual.clone());
        }
        if actual == phase {
            return Ok(seen);
        }
    }
}

pub async fn seed_003_training_runs_live_and_completes(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let (t, _profile) = Tephra::start_with_profile(&tb, &ns, SEED_003_PROFILE).await?;
    let result = async {
        let mut events = SseStream::open(&t.url("/api/v1/workloads/events")).await?;
        let first = events.next(Duration::from_secs(5)).await?;
        assert_eq!(first.event, "resync", "a new stream starts with a resync");

        // Seed 003 mounts a host path, which the built-in node protection refuses, naming the
        // field and the policy; the system administrator then allows host paths, explicitly
        // (a system policy that leaves the rule out keeps node protection's).
        let (status, refused) = t.post(TRAININGS, &seed_003()?).await?;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(
            refused["details"][0]["field"], "spec.storage.hostPath",
            "{refused}"
        );
        assert_eq!(
            refused["details"][0]["message"],
            "allows no entries to be added (the system policy)"
        );
        let allow = json!({ "meta": { "scope": "system" }, "policy": { "rules": {
            "storage": { "hostPath": { "canAdd": true } } } } });
        let (status, body) = t.put("/api/v2/policy/trainings", &allow).await?;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body["effective"]["rules"]["storage"]["hostPath"]["canAdd"], true,
            "{body}"
        );
        assert_eq!(
            body["effective"]["rules"]["security"]["hostNetwork"]["canEdit"], false,
            "the rest of node protection stays: {body}"
        );
        crate::storage::seed_003_objects(&t).await?;
        let accepted = t.submit(TRAININGS, &seed_003()?).await?;
        let id = id_of(&accepted)?;
        assert_eq!(accepted["requestedName"], "my-workload-name");
        let name = accepted["name"].as_str().unwrap_or_default();
        assert!(
            name.starts_with("my-workload-name-") && name.len() == 22,
            "{name}"
        );
        assert_eq!(accepted["desiredPhase"], "Running");
        assert_eq!(accepted["actualPhase"], "Creating");
        assert_eq!(accepted["createdBy"], "Dev User");
        assert_eq!(accepted["spec"]["image"], "python:3.8");

        let phases = sse_until(&mut events, &id, "Running").await?;
        assert!(!phases.contains(&"Failed".to_owned()), "{phases:?}");
        // The scheduler marks the PodGroup Running in its next session, after the Job runs.
        let running = t
            .wait_until(TRAININGS, &id, "the PodGroup to run", |b| {
                b["actualPhase"] == "Running" && b["status"]["podGroup"]["phase"] == "Running"
            })
            .await?;
        assert_eq!(running["status"]["jobPhase"], "Running");
        assert_eq!(
            running["status"]["tasks"]["train"]["running"], 1,
            "{running}"
        );
        let pod = &running["status"]["pods"][0];
        assert!(
            pod["node"]
                .as_str()
                .unwrap_or_default()
                .starts_with("gpu-node-"),
            "{pod}"
        );
        assert_eq!(running["status"]["podGroup"]["phase"], "Running");
        assert_eq!(running["status"]["podGroup"]["queue"], t.namespace());

        // The seed asks for a LoadBalancer service on port 8080 and exposes a URL on it:
        // both Services are created beside the Job (no ingress class, so no Ingress).
        let services: Api<k8s_openapi::api::core::v1::Service> =
            Api::namespaced(t.kube.clone(), &t.namespace());
        let owned = services
            .list(&ListParams::default().labels(&format!("tephra.dev/workload-id={id}")))
            .await?;
        let mut types: Vec<String> = owned
            .items
            .iter()
            .filter_map(|s| s.spec.as_ref()?.type_.clone())
            .collect();
        types.sort();
        assert_eq!(
            types,
            ["ClusterIP", "LoadBalancer"],
            "the port's and the URL's"
        );

        t.finish_pods(&id, None, "Succeeded").await?;
        sse_until(&mut events, &id, "Completed").await?;
        let done = t.wait_phase(TRAININGS, &id, "Completed").await?;
        assert_eq!(done["status"]["tasks"]["train"]["succeeded"], 1, "{done}");

        let (status, history) = t.get(&format!("/api/v1/workloads/{id}/history")).await?;
        assert_eq!(status, 200);
        let actions: Vec<&str> = history
            .as_array()
            .context("a list")?
            .iter()
            .filter_map(|e| e["action"].as_str())
            .collect();
        assert_eq!(actions.first(), Some(&"submit"), "{actions:?}");
        assert!(actions.contains(&"phase"), "{actions:?}");

        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        assert_eq!(status, 202);
        t.wait_gone(TRAININGS, &id).await?;
        ensure!(t.jobs_of(&id).await?.is_empty(), "the Job is gone");
        ensure!(
            owned_services_gone(&services, &id).await?,
            "the Service is gone"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

async fn owned_services_gone(
    services: &Api<k8s_openapi::api::core::v1::Service>,
    id: &str,
) -> anyhow::Result<bool> {
    let selector = format!("tephra.dev/workload-id={id}");
    Ok(
        tephra_tests::wait_for("the services to go", WAIT, || async {
            let list = services
                .list(&ListParams::default().labels(&selector))
                .await
                .ok()?;
            list.items.is_empty().then_some(())
        })
        .await
        .is_ok(),
    )
}

pub async fn a_pytorch_training_runs_as_a_gang_and_completes_with_its_master(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let accepted = t.submit(DISTRIBUTED, &pytorch("ddp", 2, 1)).await?;
        let id = id_of(&accepted)?;
        let running = t
            .wait_until(DISTRIBUTED, &id, "every pod running", |b| {
                b["actualPhase"] == "Running"
                    && b["status"]["tasks"]["worker"]["running"] == 2
                    && b["status"]["tasks"]["master"]["running"] == 1
            })
            .await?;
        assert_eq!(running["status"]["podGroup"]["minMember"], 3, "{running}");
        assert_eq!(running["kind"], "distributed");

        let (_, trainings) = t.get(TRAININGS).await?;
        assert_eq!(
            trainings["total"], 0,
            "distributed trainings are listed apart"
        );
        let (_, distributed) = t.get(DISTRIBUTED).await?;
        assert_eq!(distributed["total"], 1);
        assert_eq!(distributed["distributed"][0]["workloadId"], id.as_str());
        let (status, _) = t.get(&format!("{TRAININGS}/{id}")).await?;
        assert_eq!(status, 404, "a distributed id is not a training");

        t.finish_pods(&id, Some("master"), "Succeeded").await?;
        t.wait_phase(DISTRIBUTED, &id, "Completed").await?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn a_gang_that_cannot_fit_is_pending_with_the_schedulers_reason(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        // A pod of 9 GPUs can never run (no node has more than 8): refused at submit, once
        // Tephra has listed the nodes (before that it refuses nothing for its size).
        tephra_tests::wait_for("the node pools", WAIT, || async {
            let (_, pools) = t.get("/api/v1/node-pools").await.ok()?;
            (pools.as_array()?.first()?["largestNodeGpus"] == 8.0).then_some(())
        })
        .await?;
        let (status, body) = t.post(DISTRIBUTED, &pytorch("too-wide", 1, 9)).await?;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["details"][0]["field"], "spec.compute", "{body}");
        assert!(
            body.to_string()
                .contains("asks 9 GPUs per pod; the largest node in pool default has 8"),
            "{body}"
        );
        // Five pods of 8 GPUs each fit a node but not the cluster together (32 GPUs): the
        // scheduler never places the gang, and the workload says what it waits for.
        let accepted = t.submit(DISTRIBUTED, &pytorch("too-many", 4, 8)).await?;
        let id = id_of(&accepted)?;
        let pending = t
            .wait_until(DISTRIBUTED, &id, "the scheduler's reason", |b| {
                b["actualPhase"] == "Pending"
                    && b["phaseMessage"]
                        .as_str()
                        .is_some_and(|m| m.contains("40 nvidia.com/gpu"))
            })
            .await?;
        let message = pending["phaseMessage"].as_str().unwrap_or_default();
        assert!(message.contains("it needs 5 pod(s) at once"), "{message}");
        for pod in t.pods_of(&id).await? {
            assert!(
                pod.spec.and_then(|s| s.node_name).is_none(),
                "no pod of an unplaceable gang is bound"
            );
        }
        let (status, _) = t.delete(&format!("{DISTRIBUTED}/{id}")).await?;
        assert_eq!(status, 202);
        t.wait_gone(DISTRIBUTED, &id).await
    }
    .await;
    t.cleanup().await;
    result
}
