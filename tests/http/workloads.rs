//! Run:ai's list of every workload (`GET /api/v1/workloads`, `GET /api/v1/workloads/{id}`): how
//! Run:ai's SDK lists trainings, with its filters joined by commas in one `filterBy`.

use super::Running;
use serde_json::{Value, json};

async fn post(server: &Running, path: &str, body: Value) -> Value {
    let res = server
        .client
        .post(format!("{}{path}", server.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    res.json().await.unwrap()
}

async fn get(server: &Running, path: &str) -> (u16, Value) {
    let res = server.get(path).await;
    (res.status().as_u16(), res.json().await.unwrap())
}

fn names(list: &Value) -> Vec<&str> {
    list["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn every_kind_is_listed_in_run_ais_workload_shape() {
    let server = Running::start().await;
    let training = |name: &str| {
        json!({ "name": name, "projectId": "default",
                "spec": { "image": "busybox", "category": "Train" } })
    };
    let first = post(&server, "/api/v1/workloads/trainings", training("resnet")).await;
    post(&server, "/api/v1/workloads/trainings", training("bert")).await;
    post(
        &server,
        "/api/v1/workloads/distributed",
        json!({ "name": "ddp", "projectId": "default", "spec": {
            "image": "pytorch/pytorch", "distributedFramework": "PyTorch", "numWorkers": 2 } }),
    )
    .await;

    let (status, all) = get(&server, "/api/v1/workloads?sortBy=name").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(names(&all), ["bert", "ddp", "resnet"]);
    assert_eq!(all["next"], Value::Null);
    let ddp = &all["workloads"][1];
    assert_eq!(ddp["type"], "Distributed");
    assert_eq!(ddp["distributedFramework"], "PyTorch");
    assert_eq!(ddp["projectName"], "default");
    assert_eq!(ddp["images"], json!(["pytorch/pytorch"]));

    // The SDK joins its filters with commas.
    let (_, trainings) = get(
        &server,
        "/api/v1/workloads?filterBy=type%3D%3DTraining%2Cname%3D%5Eres",
    )
    .await;
    assert_eq!(names(&trainings), ["resnet"]);
    let (_, page) = get(&server, "/api/v1/workloads?sortBy=name&limit=2").await;
    assert_eq!(names(&page), ["bert", "ddp"]);
    assert_eq!(page["next"], 2);
    let (_, found) = get(&server, "/api/v1/workloads?search=BER").await;
    assert_eq!(names(&found), ["bert"]);
    let (_, deleted) = get(&server, "/api/v1/workloads?deleted=true").await;
    assert_eq!(names(&deleted), Vec::<&str>::new());

    let id = first["workloadId"].as_str().unwrap();
    let (status, one) = get(&server, &format!("/api/v1/workloads/{id}")).await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["id"], id);
    assert_eq!(one["type"], "Training");
    assert_eq!(one["category"], "Train");
    assert_eq!(one["phase"], "Creating");
    let (status, _) = get(
        &server,
        "/api/v1/workloads/00000000-0000-0000-0000-000000000000",
    )
    .await;
    assert_eq!(status, 404);
    let (status, bad) = get(&server, "/api/v1/workloads?filterBy=owner%3D%3Dme").await;
    assert_eq!(status, 400);
    assert!(
        bad["message"]
            .as_str()
            .unwrap()
            .contains("\"owner\" is not a field"),
        "{bad}"
    );
    server.stop().await;
}
