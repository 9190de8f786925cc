//! A NUL byte in any query parameter, path or body field is a 400 naming it, on SQLite and on
//! PostgreSQL (whose text columns cannot hold one: without the check these were 500s), and
//! nothing is stored.

use super::Running;
use serde_json::{Value, json};
use tephra_tests::postgres::TempPostgres;

#[tokio::test]
async fn a_nul_anywhere_is_a_400_naming_it_on_sqlite() {
    let server = Running::start().await;
    attempts(&server).await;
    server.stop().await;
}

#[tokio::test]
async fn a_nul_anywhere_is_a_400_naming_it_on_postgres() {
    let pg = TempPostgres::start().expect("PostgreSQL starts");
    let url = pg.create_database("nul").await.expect("a database");
    let server = Running::start_on(&url).await;
    attempts(&server).await;
    server.stop().await;
}

async fn attempts(server: &Running) {
    for path in [
        "/api/v1/workloads?createdBy=a%00",
        "/api/v1/workloads/trainings?name=x%00y",
        "/api/v1/audit?action=workload.submit%00",
        "/api/v1/org-unit/projects/de%00fault",
    ] {
        let (status, body) = send(server, reqwest::Method::GET, path, None).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body.to_string().contains("NUL character"), "{path}: {body}");
    }
    let before = send(
        server,
        reqwest::Method::GET,
        "/api/v1/org-unit/projects",
        None,
    )
    .await;
    for (path, body, field) in [
        (
            "/api/v1/org-unit/departments",
            json!({ "name": "d", "description": "a\u{0}b" }),
            "description",
        ),
        (
            "/api/v1/org-unit/projects",
            json!({ "name": "p\u{0}", "parentId": "default" }),
            "name",
        ),
        (
            "/api/v2/policy/trainings",
            json!({ "meta": { "scope": "system" },
                    "policy": { "defaults": { "image": "x\u{0}" } } }),
            "policy.defaults.image",
        ),
        (
            "/api/v1/workloads/trainings",
            json!({ "name": "t", "projectId": "default",
                    "spec": { "image": "busybox", "command": "echo \u{0}" } }),
            "spec.command",
        ),
    ] {
        let method = if path.starts_with("/api/v2") {
            reqwest::Method::PUT
        } else {
            reqwest::Method::POST
        };
        let (status, answer) = send(server, method, path, Some(body)).await;
        assert_eq!(status, 400, "{path}: {answer}");
        assert_eq!(answer["details"][0]["field"], field, "{path}: {answer}");
    }
    let after = send(
        server,
        reqwest::Method::GET,
        "/api/v1/org-unit/projects",
        None,
    )
    .await;
    assert_eq!(before, after, "nothing stored");
}

async fn send(
    server: &Running,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = server
        .client
        .request(method, format!("{}{path}", server.base));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.expect("an answer");
    let status = answer.status().as_u16();
    let text = answer.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn a_pod_segment_that_is_not_a_pod_name_is_a_400_before_any_call() {
    let server = Running::start().await;
    let id = uuid::Uuid::new_v4();
    for pod in ["a%3Fb", "a%2Fb", "UPPER", "x..y"] {
        let path = format!("/api/v1/workloads/{id}/pods/{pod}/logs");
        let (status, body) = send(&server, reqwest::Method::GET, &path, None).await;
        assert_eq!(status, 400, "{pod}: {body}");
        assert_eq!(body["details"][0]["field"], "pod", "{pod}: {body}");
    }
    server.stop().await;
}
