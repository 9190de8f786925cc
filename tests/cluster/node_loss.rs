//! A node deleted under a running training, on the testbed: kube-controller-manager's pod garbage
//! collector fails and deletes the node's pods 40 to 60 s later, Volcano restarts the gang on the
//! nodes left, and the training says which pod lost which node until it runs again; its history
//! keeps the reason. The node is given back whatever happens: the other tests share it.

use crate::api::{DISTRIBUTED, Tephra, id_of, pytorch};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{DeleteParams, ObjectMeta, PostParams};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

/// The pod garbage collector waits 40 s, and looks every 20 s; Volcano then restarts the gang.
const LOST: Duration = Duration::from_secs(150);

pub async fn a_training_whose_node_is_deleted_says_so_and_runs_again(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let nodes: Api<Node> = Api::all(t.kube.clone());
    let started = async {
        let id = id_of(&t.submit(DISTRIBUTED, &pytorch("node-lost", 1, 1)).await?)?;
        t.wait_phase(DISTRIBUTED, &id, "Running").await?;
        let pods = t.pods_of(&id).await?;
        let worker = pods
            .iter()
            .find(|p| {
                p.metadata
                    .name
                    .as_deref()
                    .is_some_and(|n| n.contains("worker"))
            })
            .context("the worker pod")?;
        let pod = worker.metadata.name.clone().unwrap_or_default();
        let node = worker
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .context("the worker's node")?;
        anyhow::Ok((id, pod, nodes.get(&node).await?))
    }
    .await;
    let (id, pod, node) = match started {
        Ok(started) => started,
        Err(e) => {
            t.cleanup().await;
            return Err(e);
        }
    };
    let name = node.metadata.name.clone().unwrap_or_default();
    let result = async {
        nodes.delete(&name, &DeleteParams::default()).await?;
        let said = tephra_tests::wait_for("the node's loss named", LOST, || async {
            let (_, body) = t.get(&format!("{DISTRIBUTED}/{id}")).await.ok()?;
            reason(&body).contains("lost its node").then_some(body)
        })
        .await?;
        let expected = format!(
            "pod {pod} lost its node: node {name} was removed from the cluster (PodGC: node no \
             longer exists)"
        );
        ensure!(reason(&said).starts_with(&expected), "{said}");
        // The gang restarts on the nodes left, and has nothing more to explain.
        let running = t
            .wait_until(DISTRIBUTED, &id, "the gang running again", |b| {
                b["actualPhase"] == "Running" && !reason(b).contains("lost its node")
            })
            .await?;
        ensure!(
            running["status"]["retryCount"].as_i64() >= Some(1),
            "Volcano restarted the Job: {running}"
        );
        let (_, history) = t.get(&format!("/api/v1/workloads/{id}/history")).await?;
        let kept = history.as_array().context("a history")?.iter().any(|e| {
            e["action"] == "phase"
                && e["detail"]["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with(&expected))
        });
        ensure!(kept, "the history keeps why it restarted: {history}");
        Ok(())
    }
    .await;
    let restored = give_back(&nodes, node).await;
    t.cleanup().await;
    result.and(restored)
}

fn reason(body: &Value) -> &str {
    body["phaseMessage"].as_str().unwrap_or_default()
}

/// Creates the node again as it was (KWOK takes it up again by its annotation), and waits until
/// it is Ready.
async fn give_back(nodes: &Api<Node>, node: Node) -> anyhow::Result<()> {
    let name = node.metadata.name.clone().unwrap_or_default();
    let again = Node {
        metadata: ObjectMeta {
            name: node.metadata.name,
            labels: node.metadata.labels,
            annotations: node.metadata.annotations,
            ..ObjectMeta::default()
        },
        spec: node.spec,
        status: node.status,
    };
    tephra_tests::wait_for(
        "the node created again",
        Duration::from_secs(60),
        || async {
            match nodes.create(&PostParams::default(), &again).await {
                Ok(_) => Some(()),
                Err(kube::Error::Api(e)) if e.code == 409 => Some(()),
                Err(_) => None,
            }
        },
    )
    .await?;
    tephra_tests::wait_for("the node Ready", Duration::from_secs(60), || async {
        let node = nodes.get(&name).await.ok()?;
        let ready = node
            .status?
            .conditions?
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True");
        ready.then_some(())
    })
    .await
}
