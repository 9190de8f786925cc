//! The trainings API end to end: the release `tephra` binary against the testbed, driven over
//! HTTP as a script for the Run:ai API would drive it, with the cluster inspected directly.
//! Each test runs its own server with its own namespace prefix, so projects never collide.

use anyhow::{Context, bail, ensure};
use k8s_openapi::api::core::v1::{Namespace, PersistentVolumeClaim, Pod};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::sse::SseStream;
use tephra_tests::tephra::{Launch, TephraServer};
use tephra_tests::testbed::{Testbed, job_resource, queue_resource};

pub(crate) const WAIT: Duration = Duration::from_secs(90);
pub(crate) const TRAININGS: &str = "/api/v1/workloads/trainings";
pub(crate) const DISTRIBUTED: &str = "/api/v1/workloads/distributed";
const OUTCOME: &str = "testbed.tephra.dev/outcome";

/// A running Tephra server for one test, and the cluster it drives.
pub(crate) struct Tephra {
    pub(crate) server: TephraServer,
    pub(crate) http: reqwest::Client,
    pub(crate) kube: kube::Client,
    /// Namespace and queue prefix of this server's projects.
    pub(crate) prefix: String,
}

/// The prefix for a test's projects: short, unique, derived from the test's namespace.
pub(crate) fn prefix_for(ns: &str) -> String {
    // Under the chart's prefix (`tephra-`): its admission policies allow Tephra's account
    // nothing outside it.
    format!("tephra-t{}-", ns.rsplit('-').next().unwrap_or("x"))
}

/// Tephra as the Helm chart installs it: as the chart's service account (`kubeconfig` is its,
/// from [`crate::tephra_kubeconfig`]), with its leader Lease in the release namespace. So every
/// test here also proves the chart's RBAC is enough; the test's own client stays the admin's.
pub(crate) fn launch(kubeconfig: &std::path::Path, prefix: &str) -> Launch {
    Launch::default()
        .arg(format!("--kubeconfig={}", kubeconfig.display()))
        .arg(format!("--lease-namespace={}", crate::account().namespace))
        .arg(format!("--service-account={}", crate::account().name))
        .arg(format!("--project-role={}", crate::account().project_role))
        .arg(format!("--namespace-prefix={prefix}"))
        .arg("--resync-seconds=2")
}

impl Tephra {
    pub(crate) async fn start(tb: &Testbed, ns: &str) -> anyhow::Result<Self> {
        let prefix = prefix_for(ns);
        Self::start_with(tb, launch(crate::tephra_kubeconfig(), &prefix), prefix).await
    }

    pub(crate) async fn start_with(
        tb: &Testbed,
        launch: Launch,
        prefix: String,
    ) -> anyhow::Result<Self> {
        let server = launch.start()?;
        Ok(Tephra {
            server,
            http: tephra_tests::http(),
            kube: tb.client().await?,
            prefix,
        })
    }

    /// A server whose cluster profile is `profile` (YAML). The file is returned so the test keeps
    /// it as long as the server runs.
    pub(crate) async fn start_with_profile(
        tb: &Testbed,
        ns: &str,
        profile: &str,
    ) -> anyhow::Result<(Self, tempfile::NamedTempFile)> {
        let file = tempfile::Builder::new()
            .prefix("profile-")
            .suffix(".yaml")
            .tempfile()?;
        std::fs::write(file.path(), profile)?;
        let prefix = prefix_for(ns);
        let launch = launch(crate::tephra_kubeconfig(), &prefix)
            .arg(format!("--cluster-profile={}", file.path().display()));
        Ok((Self::start_with(tb, launch, prefix).await?, file))
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base_url())
    }

    /// A page's HTML, as the dashboard serves it (200 only).
    pub(crate) async fn page(&self, path: &str) -> anyhow::Result<String> {
        let response = self.http.get(self.url(path)).send().await?;
        anyhow::ensure!(response.status() == 200, "{path}: {}", response.status());
        Ok(response.text().await?)
    }

    pub(crate) fn namespace(&self) -> String {
        format!("{}default", self.prefix)
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<String>,
    ) -> anyhow::Result<(u16, Value)> {
        let mut request = self.http.request(method.clone(), self.url(path));
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body);
        }
        let response = request
            .send()
            .await
            .with_context(|| format!("{method} {path}"))?;
        let status = response.status().as_u16();
        let text = response.text().await?;
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok((status, value))
    }

    pub(crate) async fn post(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        self.send(reqwest::Method::POST, path, Some(body.to_string()))
            .await
    }

    pub(crate) async fn put(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        self.send(reqwest::Method::PUT, path, Some(body.to_string()))
            .await
    }

    pub(crate) async fn patch(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        self.send(reqwest::Method::PATCH, path, Some(body.to_string()))
            .await
    }

    pub(crate) async fn get(&self, path: &str) -> anyhow::Result<(u16, Value)> {
        self.send(reqwest::Method::GET, path, None).await
    }

    pub(crate) async fn delete(&self, path: &str) -> anyhow::Result<(u16, Value)> {
        self.send(reqwest::Method::DELETE, path, None).await
    }

    /// Submits and returns the 202 body.
    pub(crate) async fn submit(&self, kind: &str, body: &Value) -> anyhow::Result<Value> {
        let (status, answer) = self.post(kind, body).await?;
        ensure!(status == 202, "POST {kind} answered {status}: {answer}");
        Ok(answer)
    }

    /// Polls the workload until `accept` holds, with the last answer in the error.
    pub(crate) async fn wait_until(
        &self,
        kind: &str,
        id: &str,
        what: &str,
        accept: impl Fn(&Value) -> bool,
    ) -> anyhow::Result<Value> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let (status, body) = self.get(&format!("{kind}/{id}")).await?;
            if status == 200 && accept(&body) {
                return Ok(body);
            }
            let last = json!({ "status": status, "actualPhase": body["actualPhase"], "phaseMessage": body["phaseMessage"], "jobPhase": body["status"]["jobPhase"] });
            if tokio::time::Instant::now() > deadline {
                bail!(
                    "timed out after {WAIT:?} waiting for {what}; last: {last}\n{}",
                    self.server.warnings()
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub(crate) async fn wait_phase(
        &self,
        kind: &str,
        id: &str,
        phase: &str,
    ) -> anyhow::Result<Value> {
        self.wait_until(kind, id, &format!("{id} to be {phase}"), |b| {
            b["actualPhase"] == phase
        })
        .await
    }

    /// Waits until GET answers 404: the workload and everything it made are gone.
    pub(crate) async fn wait_gone(&self, kind: &str, id: &str) -> anyhow::Result<()> {
        let gone = tephra_tests::wait_for("the workload to be deleted", WAIT, || async {
            let (status, _) = self.get(&format!("{kind}/{id}")).await.ok()?;
            (status == 404).then_some(())
        });
        match gone.await {
            Ok(()) => Ok(()),
            Err(e) => bail!(
                "{e:#}\n{}\n{}",
                self.what_is_left(kind, id).await,
                self.server.warnings()
            ),
        }
    }

    /// What a workload that is not gone still says, and what is left of it in its namespace:
    /// its pods and the claims there, with what holds each back.
    async fn what_is_left(&self, kind: &str, id: &str) -> String {
        let said = match self.get(&format!("{kind}/{id}")).await {
            Ok((status, body)) => format!(
                "{status} {} {}: {}",
                body["desiredPhase"], body["actualPhase"], body["phaseMessage"]
            ),
            Err(e) => format!("{e:#}"),
        };
        let held = |meta: &kube::api::ObjectMeta| {
            format!(
                "{} (deleting: {}, finalizers {:?})",
                meta.name.as_deref().unwrap_or_default(),
                meta.deletion_timestamp.is_some(),
                meta.finalizers.as_deref().unwrap_or_default()
            )
        };
        let pods: Vec<String> = self
            .pods_of(id)
            .await
            .unwrap_or_default()
            .iter()
            .map(|p| held(&p.metadata))
            .collect();
        let claims: Vec<String> =
            Api::<PersistentVolumeClaim>::namespaced(self.kube.clone(), &self.namespace())
                .list(&ListParams::default())
                .await
                .map(|l| l.items.iter().map(|c| held(&c.metadata)).collect())
                .unwrap_or_default();
        format!("the workload: {said}\nits pods: {pods:?}\nclaims in its namespace: {claims:?}")
    }

    pub(crate) fn jobs(&self) -> Api<DynamicObject> {
        Api::namespaced_with(self.kube.clone(), &self.namespace(), &job_resource())
    }

    /// A workload's pods, in whichever project namespace they run.
    pub(crate) async fn pods_of(&self, id: &str) -> anyhow::Result<Vec<Pod>> {
        Ok(Api::<Pod>::all(self.kube.clone())
            .list(&ListParams::default().labels(&format!("tephra.dev/workload-id={id}")))
            .await?
            .items)
    }

    pub(crate) async fn jobs_of(&self, id: &str) -> anyhow::Result<Vec<DynamicObject>> {
        Ok(self
            .jobs()
            .list(&ListParams::default().labels(&format!("tephra.dev/workload-id={id}")))
            .await?
            .items)
    }

    /// Ends every pod of the workload (or of one task) with `outcome`.
    pub(crate) async fn finish_pods(
        &self,
        id: &str,
        task: Option<&str>,
        outcome: &str,
    ) -> anyhow::Result<()> {
        let patch = json!({ "metadata": { "annotations": { OUTCOME: outcome } } });
        for pod in self.pods_of(id).await? {
            let pod_task = pod
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("volcano.sh/task-spec"));
            if task.is_some_and(|t| pod_task.map(String::as_str) != Some(t)) {
                continue;
            }
            let name = pod.metadata.name.clone().context("pods have names")?;
            let namespace = pod
                .metadata
                .namespace
                .clone()
                .context("pods have namespaces")?;
            Api::<Pod>::namespaced(self.kube.clone(), &namespace)
                .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                .await?;
        }
        Ok(())
    }

    /// Stops the server, then removes its projects' namespaces and its queues from the shared
    /// testbed: every queue with its prefix, projects' before departments'. The server goes
    /// first so its reconciler cannot put a project's queue back after its department's queue is
    /// gone (a queue whose parent is missing stops Volcano scheduling for everyone).
    pub(crate) async fn cleanup(&self) {
        stop(self.server.process.id()).await;
        // Every project's namespace, the default's and those a test made.
        let namespaces = Api::<Namespace>::all(self.kube.clone());
        let mut ours = vec![self.namespace()];
        if let Ok(list) = namespaces.list(&ListParams::default()).await {
            ours.extend(list.items.into_iter().filter_map(|n| n.metadata.name));
        }
        ours.retain(|name| name.starts_with(&self.prefix));
        ours.sort_unstable();
        ours.dedup();
        for name in ours {
            let _ = namespaces.delete(&name, &DeleteParams::default()).await;
        }
        let queues: Api<DynamicObject> = Api::all_with(self.kube.clone(), &queue_resource());
        let mut ours: Vec<String> = queues
            .list(&ListParams::default())
            .await
            .map(|list| {
                list.items
                    .into_iter()
                    .filter_map(|q| q.metadata.name)
                    .collect()
            })
            .unwrap_or_default();
        ours.retain(|name| name.starts_with(&self.prefix));
        ours.sort_by_key(|name| name.ends_with(".department"));
        for name in ours {
            let _ = queues.delete(&name, &DeleteParams::default()).await;
        }
    }
}

/// Sends SIGTERM and waits (up to 10 s) until the process has exited.
async fn stop(pid: u32) {
    tephra_tests::process::signal_term(pid);
    for _ in 0..100 {
        let state = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        if state.is_empty() || state.contains("State:\tZ") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A one-pod training; with `gpus` 0 it asks for a little CPU only.
pub(crate) fn training(name: &str, gpus: u32) -> Value {
    let mut compute = json!({ "cpuCoreRequest": 0.1, "cpuMemoryRequest": "100M" });
    if gpus > 0 {
        compute["gpuDevicesRequest"] = json!(gpus);
    }
    json!({
        "name": name, "projectId": "default",
        "spec": { "image": "pytorch/pytorch:2.4.0", "command": "python train.py", "compute": compute }
    })
}

pub(crate) fn pytorch(name: &str, workers: u32, gpus: u32) -> Value {
    json!({
        "name": name, "projectId": "default",
        "spec": { "image": "pytorch/pytorch:2.4.0", "command": "torchrun train.py",
                  "distributedFramework": "PyTorch", "numWorkers": workers,
                  "compute": { "gpuDevicesRequest": gpus } }
    })
}

/// What seed 003 needs of a cluster profile beyond the defaults: its NFS export and its
/// LoadBalancer port, which node protection refuses unless the platform team offers them.
pub(crate) const SEED_003_PROFILE: &str = "nfsExports:\n  - server: my.nfs.com\n    pathPrefix: /container/\nserviceTypes: [LoadBalancer]\n";

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

pub(crate) fn id_of(answer: &Value) -> anyhow::Result<String> {
    Ok(answer["workloadId"]
        .as_str()
        .context("the answer has a workloadId")?
        .to_owned())
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

pub async fn bad_input_gets_the_documented_status_and_changes_nothing(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let id = id_of(&t.submit(TRAININGS, &training("kept", 0)).await?)?;
        let (_, before) = t.get(&format!("{TRAININGS}/{id}")).await?;

        let raw = |body: &'static str| t.send(reqwest::Method::POST, TRAININGS, Some(body.into()));
        let (status, body) = raw("{\"name\": ").await?;
        assert_eq!((status, body["code"].clone()), (400, json!(400)), "{body}");
        assert!(body["message"].as_str().unwrap_or_default().contains("not valid JSON"), "{body}");

        let fields = |body: &Value| -> Vec<String> {
            body["details"]
                .as_array()
                .map(|d| d.iter().filter_map(|e| e["field"].as_str().map(str::to_owned)).collect())
                .unwrap_or_default()
        };
        let mut unknown = training("x", 0);
        unknown["spec"]["colour"] = json!("red");
        let (status, body) = t.post(TRAININGS, &unknown).await?;
        assert_eq!(status, 400);
        assert_eq!(fields(&body), ["spec.colour"], "{body}");

        let invalid = json!({ "name": "Bad_Name", "projectId": "default",
            "spec": { "image": "x", "compute": { "gpuRequestType": "portion", "gpuPortionRequest": 1.5 },
                      "tolerations": [{ "key": "k", "operator": "Exists", "value": "v" }] } });
        let (status, body) = t.post(TRAININGS, &invalid).await?;
        assert_eq!(status, 400);
        assert_eq!(
            fields(&body),
            ["name", "spec.tolerations[0].value", "spec.compute.gpuPortionRequest"],
            "{body}"
        );

        let mut elsewhere = training("x", 0);
        elsewhere["projectId"] = json!("no-such-project");
        let (status, body) = t.post(TRAININGS, &elsewhere).await?;
        assert_eq!((status, fields(&body)), (400, vec!["projectId".to_owned()]), "{body}");
        let mut other_cluster = training("x", 0);
        other_cluster["clusterId"] = json!("71f69d83-ba66-4822-adf5-55ce55efd210");
        let (status, body) = t.post(TRAININGS, &other_cluster).await?;
        assert_eq!((status, fields(&body)), (400, vec!["clusterId".to_owned()]), "{body}");
        let (status, body) = t.post(TRAININGS, &training("kept", 0)).await?;
        assert_eq!(status, 409, "the name is taken: {body}");
        let (status, body) = t.post(DISTRIBUTED, &training("x", 0)).await?;
        assert_eq!(status, 400, "a training is not a distributed request: {body}");

        for path in [
            format!("{TRAININGS}/{}", uuid::Uuid::new_v4()),
            format!("{TRAININGS}/not-an-id"),
            format!("{DISTRIBUTED}/{id}"),
        ] {
            let (status, body) = t.get(&path).await?;
            assert_eq!((status, body["code"].clone()), (404, json!(404)), "{path}: {body}");
        }
        let (status, _) = t
            .post(&format!("{TRAININGS}/{}/suspend", uuid::Uuid::new_v4()), &json!({}))
            .await?;
        assert_eq!(status, 404);
        let (status, body) = t.post(&format!("{TRAININGS}/{id}/resume"), &json!({})).await?;
        assert_eq!(status, 409, "resume what runs: {body}");

        for (query, field) in [
            ("phase=running", Some("phase")),
            ("limit=0", Some("limit")),
            ("limit=501", Some("limit")),
            ("offset=-1", Some("offset")),
            ("sortBy=colour", Some("sortBy")),
            ("sortOrder=up", Some("sortOrder")),
            ("colour=red", None),
        ] {
            let (status, body) = t.get(&format!("{TRAININGS}?{query}")).await?;
            assert_eq!(status, 400, "{query}: {body}");
            if let Some(field) = field {
                assert_eq!(fields(&body), [field], "{query}: {body}");
            }
        }

        let (_, after) = t.get(&format!("{TRAININGS}/{id}")).await?;
        assert_eq!(after["desiredPhase"], before["desiredPhase"]);
        assert_eq!(after["spec"], before["spec"]);
        let (_, list) = t.get(TRAININGS).await?;
        assert_eq!(list["total"], 1, "nothing else was stored: {list}");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn killed_between_accepting_and_creating_no_request_gets_two_jobs(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let prefix = prefix_for(&ns);
    let data = tempfile::Builder::new()
        .prefix("tephra-restart-")
        .tempdir()?;
    let launch = launch(crate::tephra_kubeconfig(), &prefix).data_dir(data.path());
    let mut accepted = Vec::new();
    for round in 0..20 {
        let mut t = Tephra::start_with(&tb, launch.clone(), prefix.clone()).await?;
        for i in 0..5 {
            let mut body = training(&format!("r{round}-{i}"), 0);
            body["useGivenNameAsPrefix"] = json!(true);
            accepted.push(id_of(&t.submit(TRAININGS, &body).await?)?);
        }
        // No goodbye: whatever the reconciler was doing stops mid-way.
        t.server.process.kill();
    }
    let t = Tephra::start_with(&tb, launch, prefix).await?;
    let result = async {
        let jobs_by_workload = tephra_tests::wait_for("a Job for every request", WAIT, || async {
            let jobs = t.jobs().list(&ListParams::default()).await.ok()?;
            let mut by_workload: BTreeMap<String, usize> = BTreeMap::new();
            for job in &jobs.items {
                let id = job
                    .metadata
                    .labels
                    .as_ref()?
                    .get("tephra.dev/workload-id")?;
                *by_workload.entry(id.clone()).or_default() += 1;
            }
            accepted
                .iter()
                .all(|id| by_workload.contains_key(id))
                .then_some(by_workload)
        })
        .await?;
        assert_eq!(
            jobs_by_workload.len(),
            accepted.len(),
            "no Job without a request"
        );
        for (id, count) in &jobs_by_workload {
            assert_eq!(*count, 1, "workload {id} has {count} Jobs");
        }
        let (_, list) = t.get(&format!("{TRAININGS}?limit=1")).await?;
        assert_eq!(list["total"], 100);
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// A TCP relay in front of the API server that can be cut and restored, to make the cluster
/// unreachable without stopping the testbed other tests share.
struct Relay {
    port: u16,
    upstream: String,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Relay {
    fn new(upstream: String) -> Self {
        Relay {
            port: tephra_tests::free_port(),
            upstream,
            task: None,
        }
    }

    async fn up(&mut self) -> anyhow::Result<()> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port)).await?;
        let upstream = self.upstream.clone();
        self.task = Some(tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((mut inbound, _)) = listener.accept().await {
                let upstream = upstream.clone();
                connections.spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        }));
        Ok(())
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

pub async fn requests_are_accepted_while_the_cluster_is_unreachable(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let original = std::fs::read_to_string(crate::tephra_kubeconfig())?;
    let server = regex::Regex::new(r"https://127\.0\.0\.1:(\d+)")?;
    let port = server
        .captures(&original)
        .and_then(|c| c.get(1))
        .context("the kubeconfig names a loopback server")?
        .as_str()
        .to_owned();
    let mut relay = Relay::new(format!("127.0.0.1:{port}"));
    let relayed = tempfile::Builder::new().prefix("kubeconfig-").tempfile()?;
    std::fs::write(
        relayed.path(),
        server
            .replace_all(
                &original,
                format!("https://127.0.0.1:{}", relay.port).as_str(),
            )
            .as_bytes(),
    )?;
    let prefix = prefix_for(&ns);
    // The relay is down: nothing listens on its port.
    let t = Tephra::start_with(&tb, launch(relayed.path(), &prefix), prefix).await?;
    let result = async {
        let accepted = t.submit(TRAININGS, &training("patient", 1)).await?;
        let id = id_of(&accepted)?;
        assert_eq!(accepted["actualPhase"], "Creating");
        let waiting = t
            .wait_until(TRAININGS, &id, "the unreachable cluster to be named", |b| {
                b["phaseMessage"]
                    .as_str()
                    .is_some_and(|m| m.contains("cluster unreachable"))
            })
            .await?;
        assert_eq!(waiting["actualPhase"], "Creating", "{waiting}");
        let (_, cluster) = t.get("/api/v1/cluster").await?;
        assert!(cluster["lastError"].is_string(), "{cluster}");

        relay.up().await?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        ensure!(
            t.jobs_of(&id).await?.len() == 1,
            "exactly one Job once the cluster is back"
        );
        Ok(())
    }
    .await;
    // The test's own client talks to the API server directly, not through the relay.
    t.cleanup().await;
    result
}

pub async fn jobs_without_a_workload_are_reported_not_deleted(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        // Tephra made the project's namespace for its first workload.
        let id = id_of(&t.submit(TRAININGS, &training("owned", 0)).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let stranger = uuid::Uuid::new_v4().to_string();
        let job: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": { "name": "left-behind", "namespace": t.namespace(),
                          "labels": { "app.kubernetes.io/managed-by": "tephra",
                                      "tephra.dev/workload-id": stranger } },
            "spec": { "schedulerName": "volcano", "queue": t.namespace(), "minAvailable": 1,
                      "tasks": [{ "name": "w", "replicas": 1, "template": { "spec": {
                          "restartPolicy": "Never",
                          "containers": [{ "name": "w", "image": "busybox" }] } } }] }
        }))?;
        t.jobs().create(&PostParams::default(), &job).await?;
        let cluster = tephra_tests::wait_for("the orphan to be reported", WAIT, || async {
            let (_, cluster) = t.get("/api/v1/cluster").await.ok()?;
            let reported = cluster["orphans"]
                .as_array()?
                .iter()
                .any(|o| o["workloadId"] == stranger.as_str());
            reported.then_some(cluster)
        })
        .await?;
        assert_eq!(cluster["orphans"][0]["namespace"], t.namespace().as_str());
        // Other projects' Jobs are no researcher's business: they learn only that the cluster
        // answers.
        let researcher = crate::security::token(&t, "reader", 4, "project", "default").await?;
        let theirs: Value = t
            .http
            .get(t.url("/api/v1/cluster"))
            .bearer_auth(&researcher)
            .send()
            .await?
            .json()
            .await?;
        ensure!(
            theirs["orphans"] == json!([]) && theirs["id"] == cluster["id"],
            "a researcher sees no orphans: {theirs}"
        );
        // Several passes later it is still there.
        tokio::time::sleep(Duration::from_secs(5)).await;
        t.jobs()
            .get("left-behind")
            .await
            .context("the orphan was left alone")?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
