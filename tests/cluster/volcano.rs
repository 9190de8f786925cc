//! The tests, and the few helpers they share: dynamic access to Volcano's resources and waiting
//! for a condition with the last observed state in the error.

use anyhow::{Context, bail};
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{
    Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, PropagationPolicy,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::{Testbed, job_resource, resource};

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
