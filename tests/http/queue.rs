//! Where a waiting training stands, as the API, the list and the detail page say it. No cluster
//! runs here, so every accepted training stays waiting and the order is Tephra's model of the
//! scheduler's: priority within a project, the project furthest below its quota across them.

use super::Running;
use reqwest::Method;
use serde_json::{Value, json};

async fn submit(server: &Running, project: &str, name: &str, priority: &str) -> String {
    let body = json!({ "name": name, "projectId": project,
                       "spec": { "image": "busybox", "priorityClass": priority,
                                 "compute": { "gpuDevicesRequest": 1 } } });
    let res = server
        .send(Method::POST, "/api/v1/workloads/trainings", &body)
        .await;
    assert_eq!(res.status(), 202, "{}", res.text().await.unwrap());
    let created: Value = res.json().await.unwrap();
    created["workloadId"].as_str().unwrap().to_owned()
}

async fn quota(server: &Running, project: &str, deserved: u32) {
    let body = json!({ "name": project, "resources": [
        { "nodePool": { "name": "default" }, "gpu": { "deserved": deserved } }
    ] });
    let res = server
        .send(
            Method::PUT,
            &format!("/api/v1/org-unit/projects/{project}"),
            &body,
        )
        .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
}

async fn json(server: &Running, path: &str) -> Value {
    let res = server.get(path).await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

#[tokio::test]
async fn a_waiting_training_knows_its_place_and_what_is_ahead() {
    let server = Running::start().await;
    server
        .db
        .projects()
        .create(&server::db::projects::NewProject::named("beta"), None)
        .await
        .unwrap();
    quota(&server, "default", 1).await;
    quota(&server, "beta", 4).await;
    let d1 = submit(&server, "default", "d1", "train").await;
    let d2 = submit(&server, "default", "d2", "build").await;
    submit(&server, "beta", "b1", "train").await;
    let b2 = submit(&server, "beta", "b2", "train").await;

    let list = json(&server, "/api/v1/workloads/trainings").await;
    let place = |name: &str| -> Value {
        list["trainings"]
            .as_array()
            .or(list["workloads"].as_array())
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap()["queuePosition"]
            .clone()
    };
    // Build outranks train within a project, though d1 is older.
    assert_eq!(place("d2")["inProject"], 1, "{list}");
    assert_eq!(place("d1")["inProject"], 2, "{list}");
    assert_eq!(place("d1")["projectWaiting"], 2, "{list}");
    // After d2 takes default's one deserved GPU, beta (0 of 4) goes first: d1 is last of four.
    assert_eq!(place("d1")["inPools"], 4, "{list}");
    assert_eq!(place("b2")["inPools"], 3, "{list}");
    assert_eq!(place("b2")["poolsWaiting"], 4, "{list}");

    // Run:ai's shape and one workload's answer carry it too, with the count ahead.
    let runai = json(&server, "/api/v1/workloads").await;
    let d1_runai = runai["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "d1")
        .unwrap();
    assert_eq!(d1_runai["ahead"], 3, "{runai}");
    let one = json(&server, &format!("/api/v1/workloads/trainings/{d1}")).await;
    assert_eq!(one["queuePosition"]["inPools"], 4, "{one}");
    assert_eq!(one["ahead"], 3, "{one}");

    // The list page shows the place in the row; the detail names what is ahead.
    let page = server.get("/trainings").await.text().await.unwrap();
    assert!(page.contains("2nd in default"), "the list shows d1's place");
    assert!(page.contains("next in default"), "and d2's");
    let detail = server
        .get(&format!("/trainings/{d1}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        detail.contains("2nd of 2 waiting in project default"),
        "{detail}"
    );
    assert!(detail.contains("4th of 4 waiting for the same nodes"));
    for ahead in [&d2, &b2] {
        assert!(
            detail.contains(&format!("/trainings/{ahead}")),
            "names {ahead}"
        );
    }

    // Once one starts (here: it is suspended), those behind move up.
    let suspend = format!("/api/v1/workloads/trainings/{d2}/suspend");
    let res = server.send(Method::POST, &suspend, &json!({})).await;
    assert_eq!(res.status(), 202);
    let one = json(&server, &format!("/api/v1/workloads/trainings/{d1}")).await;
    assert_eq!(one["queuePosition"]["inProject"], 1, "{one}");
    let stopped = json(&server, &format!("/api/v1/workloads/trainings/{d2}")).await;
    assert!(stopped.get("queuePosition").is_none(), "{stopped}");

    // With a limit of 2 GPUs and d1 holding 1, a request of 2 is queued behind d1, and the fit
    // answer says so: not refused.
    let limited = json!({ "name": "default", "resources": [
        { "nodePool": { "name": "default" }, "gpu": { "deserved": 1, "limit": 2 } }
    ] });
    let res = server
        .send(Method::PUT, "/api/v1/org-unit/projects/default", &limited)
        .await;
    assert_eq!(res.status(), 200);
    let request = json!({ "name": "two", "projectId": "default",
                          "spec": { "image": "busybox", "compute": { "gpuDevicesRequest": 2 } } });
    let fit: Value = server
        .send(Method::POST, "/api/v1/workloads/trainings/fit", &request)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fit["verdict"], "queued", "{fit}");
    assert_eq!(fit["queuedBehind"], 1, "{fit}");
    assert!(
        fit["message"]
            .as_str()
            .unwrap()
            .starts_with("queued behind 1 waiting workload of project \"default\": project"),
        "{fit}"
    );
    server.stop().await;
}
