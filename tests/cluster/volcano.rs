//! The testbed's Volcano stories (in `gangs` and `commands`), and the few helpers they share:
//! dynamic access to Volcano's resources and waiting for a condition with the last observed state
//! in the error.

use anyhow::{Context, bail};
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::time::Duration;
use tephra_tests::testbed::{Testbed, job_resource, resource};

mod commands;
mod gangs;
pub(crate) use commands::{
    a_failed_pod_restarts_the_job_and_counts_a_retry, a_queue_capability_caps_what_runs,
    abort_and_resume_commands_stop_and_restart_the_job,
    foreground_delete_removes_pods_and_the_podgroup,
};
pub(crate) use gangs::{
    a_gang_larger_than_the_cluster_never_binds_a_pod,
    a_gang_that_cannot_fit_binds_nothing_while_a_small_job_runs,
    completing_the_master_completes_the_torchrun_job, seed_000_pytorch_job_runs_as_a_gang,
};

const OUTCOME: &str = "testbed.tephra.dev/outcome";
const WAIT: Duration = Duration::from_secs(90);

struct Cluster {
    client: kube::Client,
    ns: String,
}

impl Cluster {
    async fn new(tb: &Testbed, ns: String) -> anyhow::Result<Self> {
        Ok(Cluster {
            client: tb.client().await?,
            ns,
        })
    }

    fn jobs(&self) -> Api<DynamicObject> {
        Api::namespaced_with(self.client.clone(), &self.ns, &job_resource())
    }

    fn podgroups(&self) -> Api<DynamicObject> {
        Api::namespaced_with(
            self.client.clone(),
            &self.ns,
            &resource("scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups"),
        )
    }

    fn queues(&self) -> Api<DynamicObject> {
        Api::all_with(
            self.client.clone(),
            &resource("scheduling.volcano.sh", "v1beta1", "Queue", "queues"),
        )
    }

    fn commands(&self) -> Api<DynamicObject> {
        Api::namespaced_with(
            self.client.clone(),
            &self.ns,
            &resource("bus.volcano.sh", "v1alpha1", "Command", "commands"),
        )
    }

    fn pods(&self) -> Api<Pod> {
        Api::namespaced(self.client.clone(), &self.ns)
    }

    /// A queue named after the namespace (queues are cluster-wide), open, with an optional capability.
    async fn queue(&self, capability: Option<Value>) -> anyhow::Result<String> {
        let name = format!("q-{}", self.ns);
        let mut spec = json!({ "weight": 1, "reclaimable": true });
        if let Some(capability) = capability {
            spec["capability"] = capability;
        }
        let queue: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": { "name": name }, "spec": spec
        }))?;
        self.queues().create(&PostParams::default(), &queue).await?;
        wait("the queue to open", || async {
            let q = self.queues().get(&name).await.ok()?;
            (q.data["status"]["state"] == "Open").then_some(())
        })
        .await?;
        Ok(name)
    }

    async fn create_job(&self, mut job: Value) -> anyhow::Result<String> {
        job["metadata"]["namespace"] = json!(self.ns);
        let name = job["metadata"]["name"]
            .as_str()
            .context("the job has a name")?
            .to_owned();
        let job: DynamicObject = serde_json::from_value(job)?;
        self.jobs()
            .create(&PostParams::default(), &job)
            .await
            .context("creating the job")?;
        Ok(name)
    }

    /// A job of `workers` one-GPU pods in a fresh queue, once it runs.
    async fn running_job(&self, name: &str, workers: i32) -> anyhow::Result<String> {
        let queue = self.queue(None).await?;
        let name = self
            .create_job(job(
                name,
                &queue,
                workers,
                vec![task("worker", workers, 1, json!({}))],
            ))
            .await?;
        self.wait_job_phase(&name, "Running").await?;
        Ok(name)
    }

    async fn job_phase(&self, name: &str) -> Option<String> {
        let job = self.jobs().get(name).await.ok()?;
        job.data["status"]["state"]["phase"]
            .as_str()
            .map(str::to_owned)
    }

    async fn wait_job_phase(&self, name: &str, phase: &str) -> anyhow::Result<DynamicObject> {
        let deadline = tokio::time::Instant::now() + WAIT;
        let mut last = Value::Null;
        loop {
            if let Ok(job) = self.jobs().get(name).await {
                if job.data["status"]["state"]["phase"] == phase {
                    return Ok(job);
                }
                last = job.data["status"].clone();
            }
            if tokio::time::Instant::now() > deadline {
                bail!(
                    "timed out after {WAIT:?} waiting for job {name} to be {phase}; last status: {last}"
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn job_pods(&self, job: &str) -> anyhow::Result<Vec<Pod>> {
        let list = self
            .pods()
            .list(&ListParams::default().labels(&format!("volcano.sh/job-name={job}")))
            .await?;
        Ok(list.items)
    }

    async fn podgroup_of(&self, job: &str) -> Option<DynamicObject> {
        let list = self.podgroups().list(&ListParams::default()).await.ok()?;
        list.items.into_iter().find(|pg| {
            pg.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.kind == "Job" && o.name == job)
        })
    }

    async fn annotate_pod(&self, pod: &str, key: &str, value: &str) -> anyhow::Result<()> {
        let patch = json!({ "metadata": { "annotations": { key: value } } });
        self.pods()
            .patch(pod, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }

    async fn command(&self, job: &str, action: &str) -> anyhow::Result<()> {
        let target = self.jobs().get(job).await?;
        let command: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
            "metadata": { "generateName": format!("{job}-{}-", action.to_lowercase()), "namespace": self.ns },
            "action": action,
            "target": {
                "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                "name": job, "uid": target.metadata.uid,
            }
        }))?;
        self.commands()
            .create(&PostParams::default(), &command)
            .await?;
        Ok(())
    }
}

/// Polls `check` every 200 ms until it yields a value, for at most [`WAIT`].
async fn wait<T, F, Fut>(what: &str, mut check: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(value) = check().await {
            return Ok(value);
        }
        if tokio::time::Instant::now() > deadline {
            bail!("timed out after {WAIT:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

pub async fn cleanup(client: &kube::Client, ns: &str) {
    if let Err(e) = Api::<Namespace>::all(client.clone())
        .delete(ns, &DeleteParams::default())
        .await
    {
        eprintln!("cannot delete the test's namespace {ns}: {e}");
    }
    let queues: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &resource("scheduling.volcano.sh", "v1beta1", "Queue", "queues"),
    );
    let _ = queues
        .delete(&format!("q-{ns}"), &DeleteParams::default())
        .await;
}

/// A task template: one container asking for `gpus` GPUs, with optional pod annotations.
fn task(name: &str, replicas: i32, gpus: u32, annotations: Value) -> Value {
    json!({
        "name": name,
        "replicas": replicas,
        "template": {
            "metadata": { "annotations": annotations },
            "spec": {
                "schedulerName": "volcano",
                "restartPolicy": "Never",
                "containers": [{
                    "name": name,
                    "image": "pytorch/pytorch:2.4.0",
                    "resources": {
                        "requests": { "cpu": "1", "memory": "1Gi", "nvidia.com/gpu": gpus.to_string() },
                        "limits": { "cpu": "1", "memory": "1Gi", "nvidia.com/gpu": gpus.to_string() }
                    }
                }]
            }
        }
    })
}

fn job(name: &str, queue: &str, min_available: i32, tasks: Vec<Value>) -> Value {
    json!({
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": { "name": name },
        "spec": { "schedulerName": "volcano", "queue": queue, "minAvailable": min_available, "maxRetry": 3, "tasks": tasks }
    })
}

fn seed(name: &str) -> anyhow::Result<Value> {
    let path = tephra_tests::workspace::root()
        .join("core/tests/fixtures")
        .join(name);
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

async fn assert_no_pod_bound(c: &Cluster, job: &str) -> anyhow::Result<()> {
    let bound = c
        .job_pods(job)
        .await?
        .iter()
        .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_some())
        .count();
    anyhow::ensure!(
        bound == 0,
        "all or nothing: {bound} pods of {job} are bound"
    );
    anyhow::ensure!(
        c.job_phase(job).await.as_deref() != Some("Running"),
        "{job} is Running"
    );
    Ok(())
}
