//! A project's scheduling rules over Run:ai's org-unit API: set on create, read back from the
//! project and the list, refused out of range naming the field with nothing stored, and removed
//! by a `PUT` that leaves them out.

use super::Running;
use serde_json::{Value, json};

const FIELD: &str = "schedulingRules.trainingJobMaxIdleDurationSeconds";

async fn send(server: &Running, method: &str, path: &str, body: Value) -> (u16, Value) {
    let url = format!("{}/api/v1/org-unit/projects{path}", server.base);
    let request = match method {
        "POST" => server.client.post(url),
        _ => server.client.put(url),
    };
    let res = request.json(&body).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn idle_seconds(server: &Running, project: &str) -> Value {
    let res = server
        .get(&format!("/api/v1/org-unit/projects/{project}"))
        .await;
    assert_eq!(res.status(), 200);
    let project: Value = res.json().await.unwrap();
    project["schedulingRules"]["trainingJobMaxIdleDurationSeconds"].clone()
}

#[tokio::test]
async fn a_projects_idle_timeout_is_set_read_back_checked_and_cleared() {
    let server = Running::start().await;
    let rules = |seconds: u64| json!({ "trainingJobMaxIdleDurationSeconds": seconds });
    let (status, created) = send(
        &server,
        "POST",
        "",
        json!({ "name": "idle", "schedulingRules": rules(1800) }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["schedulingRules"], rules(1800), "{created}");
    assert_eq!(idle_seconds(&server, "idle").await, 1800);
    let list: Value = server
        .get("/api/v1/org-unit/projects")
        .await
        .json()
        .await
        .unwrap();
    let listed = list["projects"].as_array().unwrap();
    let default = listed.iter().find(|p| p["name"] == "default").unwrap();
    assert_eq!(default["schedulingRules"], Value::Null, "{default}");
    let idle = listed.iter().find(|p| p["name"] == "idle").unwrap();
    assert_eq!(idle["schedulingRules"], rules(1800), "{idle}");
    let watched = server.db.projects().with_idle_rule().await.unwrap();
    assert_eq!(watched.len(), 1);
    assert_eq!(watched[0].name, "idle");

    // Out of range, on create and on update: 400 naming the field and the range.
    for seconds in [59, 2_592_001] {
        let (status, refused) = send(
            &server,
            "POST",
            "",
            json!({ "name": "bad", "schedulingRules": rules(seconds) }),
        )
        .await;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(refused["details"][0]["field"], FIELD, "{refused}");
        let message = refused["details"][0]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("from 60 to 2592000 seconds"), "{refused}");
        let (status, refused) = send(
            &server,
            "PUT",
            "/idle",
            json!({ "name": "idle", "schedulingRules": rules(seconds) }),
        )
        .await;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(refused["details"][0]["field"], FIELD, "{refused}");
    }
    // A rule Tephra does not have is refused, not silently dropped.
    let (status, refused) = send(
        &server,
        "PUT",
        "/idle",
        json!({ "name": "idle", "schedulingRules": { "trainingJobTimeLimitSeconds": 60 } }),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        server.get("/api/v1/org-unit/projects/bad").await.status(),
        404,
        "nothing was stored"
    );
    assert_eq!(idle_seconds(&server, "idle").await, 1800, "nor changed");

    let (status, changed) = send(
        &server,
        "PUT",
        "/idle",
        json!({ "name": "idle", "schedulingRules": rules(60) }),
    )
    .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(idle_seconds(&server, "idle").await, 60);
    // A PUT replaces the project's fields: leaving the rules out removes them.
    let (status, cleared) = send(&server, "PUT", "/idle", json!({ "name": "idle" })).await;
    assert_eq!(status, 200, "{cleared}");
    assert_eq!(cleared["schedulingRules"], Value::Null, "{cleared}");
    assert!(
        server
            .db
            .projects()
            .with_idle_rule()
            .await
            .unwrap()
            .is_empty()
    );
    server.stop().await;
}

/// The organisation page's project form, posted as a browser posts it: minutes typed, seconds
/// stored; a timeout out of range changes nothing.
#[tokio::test]
async fn the_project_form_sets_the_idle_timeout_in_minutes() {
    let server = Running::start().await;
    let page = server.get("/organisation").await.text().await.unwrap();
    assert!(page.contains("name=\"idle_minutes\""), "the form posts it");
    assert!(page.contains("Trainings whose GPUs stay idle this long are suspended"));
    let post = |minutes: &str| {
        let pairs = [
            ("name", "form"),
            ("department", "default"),
            ("quota[pool]", "default"),
            ("quota[gpu_quota]", ""),
            ("quota[gpu_limit]", ""),
            ("quota[over_quota_weight]", ""),
            ("idle_minutes", minutes),
        ];
        server
            .client
            .post(format!("{}/api/fn/save_project", server.base))
            .header("accept", "application/json")
            .form(&pairs)
            .send()
    };
    let res = post("30").await.unwrap();
    assert!(res.status().is_success(), "{}", res.text().await.unwrap());
    assert_eq!(idle_seconds(&server, "form").await, 1800);
    let res = post("0").await.unwrap();
    assert!(!res.status().is_success());
    let refused = res.text().await.unwrap();
    assert!(refused.contains("idle_minutes"), "{refused}");
    assert_eq!(idle_seconds(&server, "form").await, 1800);
    server.stop().await;
}
