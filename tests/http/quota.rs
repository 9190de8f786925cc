//! Over quota, as a user sees it before and after submitting: the fit answer says the training
//! would run over quota (and a non-preemptible one is refused), and the training's page (its
//! server function) shows the project's GPUs in use against its quota and limit.

use super::Running;
use serde_json::{Value, json};

#[tokio::test]
async fn a_training_over_quota_is_told_so_before_and_after_submit() {
    let server = Running::start().await;
    let res = server
        .client
        .put(format!("{}/api/v1/org-unit/projects/default", server.base))
        .json(&json!({ "name": "default", "resources": [
            { "nodePool": { "name": "default" }, "gpu": { "deserved": 1, "limit": 4 } }
        ] }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());

    let request = json!({ "name": "big", "projectId": "default",
                          "spec": { "image": "busybox", "compute": { "gpuDevicesRequest": 2 } } });
    let fit: Value = server
        .client
        .post(format!("{}/api/v1/workloads/trainings/fit", server.base))
        .json(&request)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(fit["verdict"], "overQuota", "{fit}");

    // The same training made non-preemptible may not run over quota: refused, naming the numbers.
    let mut steady = request.clone();
    steady["spec"]["preemptibility"] = json!("non-preemptible");
    let res = server
        .client
        .post(format!("{}/api/v1/workloads/trainings", server.base))
        .json(&steady)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let refused: Value = res.json().await.unwrap();
    assert_eq!(refused["details"][0]["field"], "spec.compute", "{refused}");
    assert!(
        refused["details"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with(
                "is non-preemptible, so it may run only within project \"default\"'s quota"
            ),
        "{refused}"
    );
    assert!(
        fit["message"]
            .as_str()
            .unwrap_or_default()
            .contains("over project \"default\"'s quota"),
        "{fit}"
    );

    let res = server
        .client
        .post(format!("{}/api/v1/workloads/trainings", server.base))
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let created: Value = res.json().await.unwrap();
    let detail: tephra_core::model::workload::WorkloadDetail = server
        .client
        .post(format!("{}/api/fn/get_workload", server.base))
        .header("accept", "application/json")
        .json(&json!({ "id": created["workloadId"] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let standing = detail.standing.expect("a stored project has a standing");
    assert_eq!(
        standing.project.describe("Project"),
        "Project \"default\": 0 GPU(s) in use, 2 more asked by workloads waiting to start; \
         quota 1, limit 4",
        "without a cluster nothing starts, and what waits is not counted as in use"
    );
    assert_eq!(standing.department.name, "default");
    server.stop().await;
}
