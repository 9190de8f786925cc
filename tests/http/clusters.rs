//! Run:ai scripts read the cluster's id from `GET /api/v1/clusters` (or a project's `clusterId`)
//! and send it back with every workload: the id is a UUID, kept across restarts, and requests
//! with it, without it, or with it in capitals are accepted.

use super::Running;
use clap::Parser;
use serde_json::{Value, json};

async fn clusters(server: &Running) -> Vec<Value> {
    let res = server.get("/api/v1/clusters").await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

async fn submit(server: &Running, body: Value) -> (u16, Value) {
    let res = server
        .client
        .post(format!("{}/api/v1/workloads/trainings", server.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

fn training(name: &str) -> Value {
    json!({ "name": name, "projectId": "default", "spec": { "image": "busybox" } })
}

#[tokio::test]
async fn scripts_find_the_cluster_and_send_its_id_back() {
    let server = Running::start().await;
    let listed = clusters(&server).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    let cluster = &listed[0];
    let uuid = cluster["uuid"].as_str().unwrap().to_owned();
    assert!(uuid::Uuid::parse_str(&uuid).is_ok(), "{cluster}");
    assert_eq!(cluster["name"], "default");
    assert_eq!(cluster["tenantId"], 1);
    assert!(
        cluster["createdAt"].as_str().unwrap().ends_with('Z'),
        "{cluster}"
    );
    let states = [
        "Connected",
        "Disconnected",
        "ServiceIssues",
        "WaitingToConnect",
    ];
    assert!(
        states.contains(&cluster["status"]["state"].as_str().unwrap()),
        "{cluster}"
    );

    let project: Value = server
        .get("/api/v1/org-unit/projects/default")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(project["clusterId"], uuid.as_str(), "{project}");
    let one = server.get(&format!("/api/v1/clusters/{uuid}")).await;
    assert_eq!(one.status(), 200);
    let other = server
        .get("/api/v1/clusters/71f69d83-ba66-4822-adf5-55ce55efd210")
        .await;
    assert_eq!(other.status(), 404);

    let mut with_id = training("with-id");
    with_id["clusterId"] = json!(uuid.to_uppercase());
    let (status, body) = submit(&server, with_id).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["clusterId"], uuid.as_str(), "{body}");
    let (status, body) = submit(&server, training("without-id")).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["clusterId"], uuid.as_str(), "{body}");
    let mut elsewhere = training("elsewhere");
    elsewhere["clusterId"] = json!("71f69d83-ba66-4822-adf5-55ce55efd210");
    let (status, body) = submit(&server, elsewhere).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["details"][0]["field"], "clusterId", "{body}");

    let server = server.restart().await;
    let again = clusters(&server).await;
    assert_eq!(again[0]["uuid"], uuid.as_str(), "the id is kept");
    assert_eq!(again[0]["createdAt"], cluster["createdAt"]);
    server.stop().await;
}

#[test]
fn the_cluster_id_flag_must_be_a_uuid() {
    let parsed =
        server::config::Cli::try_parse_from(["tephra", "serve", "--cluster-id", "default"]);
    let error = parsed.expect_err("refused").to_string();
    assert!(error.contains("must be a UUID"), "{error}");
    let parsed = server::config::Cli::try_parse_from([
        "tephra",
        "serve",
        "--cluster-id",
        "71F69D83-BA66-4822-ADF5-55CE55EFD210",
    ]);
    assert!(parsed.is_ok());
}
