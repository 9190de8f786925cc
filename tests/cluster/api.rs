//! The trainings API end to end, the harness: the release `tephra` binary against the testbed,
//! driven over HTTP as a script for the Run:ai API would drive it, with the cluster inspected
//! directly. Each test runs its own server with its own namespace prefix, so projects never
//! collide. The API's own stories are in `runs`, `ownership` and `safety`; the other modules use
//! this harness too.

use anyhow::{Context, bail, ensure};
use k8s_openapi::api::core::v1::{Namespace, PersistentVolumeClaim, Pod};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use std::time::Duration;
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

    pub(crate) async fn send(
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

pub(crate) fn id_of(answer: &Value) -> anyhow::Result<String> {
    Ok(answer["workloadId"]
        .as_str()
        .context("the answer has a workloadId")?
        .to_owned())
}
