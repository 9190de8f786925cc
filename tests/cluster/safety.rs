//! The API under what goes wrong: bad input refused with the documented status and nothing
//! changed, a server killed between accepting and creating, a cluster that cannot be reached,
//! and Jobs no workload owns.

use crate::api::{DISTRIBUTED, TRAININGS, Tephra, WAIT, id_of, launch, prefix_for, training};
use anyhow::{Context, ensure};
use kube::api::{DynamicObject, ListParams, PostParams};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

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
