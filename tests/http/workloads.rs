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

/// Generic jobs have their own collection: listed as `Generic` with every replica's image, a
/// paused one stored suspended, and bad rules refused by field with nothing stored.
#[tokio::test]
async fn generic_jobs_are_their_own_collection_and_a_paused_one_waits() {
    let server = Running::start().await;
    let generic = |name: &str, extra: Value| {
        let mut spec = json!({ "replicaSpecs": [
            { "type": "ps", "spec": { "image": "ps-image" } },
            { "type": "worker", "replicas": 2,
              "spec": { "image": "worker-image", "compute": { "gpuDevicesRequest": 2 } } }] });
        spec.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({ "name": name, "projectId": "default", "spec": spec })
    };
    let paused = post(
        &server,
        "/api/v1/workloads/generic",
        generic(
            "paused",
            json!({ "runMode": { "pause": { "enabled": true } } }),
        ),
    )
    .await;
    assert_eq!(
        (&paused["desiredPhase"], &paused["actualPhase"]),
        (&json!("Stopped"), &json!("Stopped")),
        "{paused}"
    );
    let id = paused["workloadId"].as_str().unwrap();
    assert_eq!(paused["gpus"], 4.0, "two workers of 2 GPUs each: {paused}");

    let (status, all) = get(&server, "/api/v1/workloads").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["workloads"][0]["type"], "Generic");
    assert_eq!(
        all["workloads"][0]["images"],
        json!(["ps-image", "worker-image"])
    );
    let (status, list) = get(&server, "/api/v1/workloads/generic").await;
    assert_eq!((status, list["total"].as_i64()), (200, Some(1)), "{list}");
    let (status, _) = get(&server, &format!("/api/v1/workloads/trainings/{id}")).await;
    assert_eq!(status, 404);

    let res = server
        .client
        .post(format!("{}/api/v1/workloads/generic", server.base))
        .json(&generic(
            "bad",
            json!({ "failureRules": [{ "worker": [0, 2] }, { "chief": [0] }] }),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    let paths: Vec<&str> = body["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "spec.failureRules[0].worker[1]",
            "spec.failureRules[1].chief"
        ],
        "{body}"
    );
    let (_, list) = get(&server, "/api/v1/workloads/generic").await;
    assert_eq!(list["total"], 1, "nothing more was stored");
}

/// The list pages in the database's order across its 500-row pages: the page asked for, the
/// offset of the next, with Run:ai's filters applied on the way.
#[tokio::test]
async fn a_long_list_pages_in_the_database_order() {
    let server = Running::start().await;
    for i in 0..505 {
        let body = json!({ "name": format!("w-{i:03}"), "projectId": "default",
                           "spec": { "image": "busybox" } });
        post(&server, "/api/v1/workloads/trainings", body).await;
    }
    let (status, newest) = get(&server, "/api/v1/workloads?limit=3").await;
    assert_eq!(status, 200, "{newest}");
    assert_eq!(names(&newest), ["w-504", "w-503", "w-502"]);
    assert_eq!(newest["next"], 3);
    let (_, last) = get(&server, "/api/v1/workloads?offset=500&limit=10").await;
    assert_eq!(names(&last), ["w-004", "w-003", "w-002", "w-001", "w-000"]);
    assert_eq!(last["next"], Value::Null);
    let (_, across) = get(
        &server,
        "/api/v1/workloads?sortBy=createdAt&sortOrder=asc&offset=499&limit=3",
    )
    .await;
    assert_eq!(names(&across), ["w-499", "w-500", "w-501"]);
    assert_eq!(across["next"], 502);
    let (_, filtered) = get(&server, "/api/v1/workloads?filterBy=name%3D%40-00&limit=4").await;
    assert_eq!(names(&filtered), ["w-009", "w-008", "w-007", "w-006"]);
    assert_eq!(filtered["next"], 4);
    let (_, by_name) = get(&server, "/api/v1/workloads?sortBy=name&offset=503").await;
    assert_eq!(names(&by_name), ["w-503", "w-504"]);
    assert_eq!(by_name["next"], Value::Null);
    server.stop().await;
}

/// Paging by `nextCursor`: each page starts after the last row of the one before, in the same
/// order, with the filters kept; a cursor for another order, or text that is none, is refused
/// naming `after`. Run:ai's list answers a filtered, ordered page from the database at any offset.
#[tokio::test]
async fn a_list_pages_by_cursor_and_refuses_a_foreign_one() {
    let server = Running::start().await;
    for name in ["delta", "alpha", "echo", "bravo", "charlie"] {
        let body = json!({ "name": name, "projectId": "default", "spec": { "image": "busybox" } });
        post(&server, "/api/v1/workloads/trainings", body).await;
    }
    let base = "/api/v1/workloads/trainings?projectId=default&sortBy=name&sortOrder=asc&limit=2";
    let mut walked = Vec::new();
    let mut path = base.to_owned();
    loop {
        let (status, page) = get(&server, &path).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["total"], 5, "{page}");
        let trainings = page["trainings"].as_array().unwrap();
        walked.extend(
            trainings
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(cursor) => {
                assert!(page["next"].is_null() || !path.contains("after"), "{page}");
                path = format!("{base}&after={cursor}");
            }
            None => break,
        }
    }
    assert_eq!(walked, ["alpha", "bravo", "charlie", "delta", "echo"]);

    let (_, first) = get(&server, base).await;
    let cursor = first["nextCursor"].as_str().unwrap();
    for (path, says) in [
        (
            format!("{base}&after=nonsense"),
            "after: is not a nextCursor",
        ),
        (
            format!("/api/v1/workloads/trainings?sortBy=name&sortOrder=desc&after={cursor}"),
            "after: was given for another sortBy or sortOrder",
        ),
    ] {
        let (status, body) = get(&server, &path).await;
        assert_eq!(status, 400, "{body}");
        assert!(body["message"].as_str().unwrap().contains(says), "{body}");
    }

    let (status, deep) = get(
        &server,
        "/api/v1/workloads?filterBy=projectName%3D%3Ddefault%2Ctype%3D%3DTraining&sortBy=name&offset=3&limit=1",
    )
    .await;
    assert_eq!(status, 200, "{deep}");
    assert_eq!(names(&deep), ["delta"]);
    assert_eq!(deep["next"], 4);
    for filter in [
        "projectName%3D%3Dnowhere",
        "phase%3D%3DDreaming",
        "type%3D%3DNotebook",
    ] {
        let (status, none) = get(&server, &format!("/api/v1/workloads?filterBy={filter}")).await;
        assert_eq!(status, 200, "{filter}: {none}");
        assert_eq!(names(&none), Vec::<&str>::new(), "{filter}");
    }
    server.stop().await;
}

/// Without a cluster every training waits (Creating), so each one's pending time grows from its
/// submit: Run:ai's field counts it, and sorting by it puts the longest wait first.
#[tokio::test]
async fn the_pending_time_counts_the_wait_and_sorts_the_list() {
    let server = Running::start().await;
    let body = |name: &str| json!({ "name": name, "projectId": "default", "spec": { "image": "busybox" } });
    let first = post(
        &server,
        "/api/v1/workloads/trainings",
        body("waited-longer"),
    )
    .await;
    // Long enough that the two waits differ by whole seconds, as the field counts them.
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    post(&server, "/api/v1/workloads/trainings", body("waited-less")).await;
    let (status, list) = get(
        &server,
        "/api/v1/workloads?sortBy=totalPendingTimeSeconds&sortOrder=desc",
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(names(&list), ["waited-longer", "waited-less"]);
    let waits: Vec<u64> = list["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["totalPendingTimeSeconds"].as_u64().unwrap())
        .collect();
    assert!(waits[0] >= waits[1] + 2, "{waits:?}");
    let id = first["workloadId"].as_str().unwrap();
    let (_, one) = get(&server, &format!("/api/v1/workloads/trainings/{id}")).await;
    assert!(
        one["totalPendingTimeSeconds"].as_u64().unwrap() >= 2,
        "{one}"
    );
    // Its page says what it waited for, rendered on the server.
    let page = server
        .get(&format!("/trainings/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Waited to run: ") && page.contains(" for its Job to be created."),
        "the page says how long it waited"
    );
    server.stop().await;
}
