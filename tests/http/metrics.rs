//! `/metrics` as Prometheus scrapes it, and the request id every answer names.

use super::Running;

#[tokio::test]
async fn metrics_count_requests_by_route_and_read_workloads_streams_and_the_pool() {
    let server = Running::start().await;
    server.submit("counted").await;
    let missing = server.get("/api/v1/workloads/trainings/no-such-id").await;
    assert_eq!(missing.status(), 404);
    // An open event stream, held while the metrics are read.
    let stream = server.get("/api/v1/workloads/events").await;
    assert_eq!(stream.status(), 200);

    let res = server.get("/metrics").await;
    assert_eq!(res.status(), 200);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    let text = res.text().await.unwrap();
    for series in [
        r#"tephra_http_requests_total{method="POST",route="/api/v1/workloads/trainings",status="202"} 1"#,
        r#"tephra_http_requests_total{method="GET",route="/api/v1/workloads/trainings/{id}",status="404"} 1"#,
        r#"tephra_http_request_duration_seconds_count{method="POST",route="/api/v1/workloads/trainings"} 1"#,
        r#"tephra_sse_clients 1"#,
        r#"tephra_cluster_configured 0"#,
        r#"tephra_cluster_reachable 0"#,
    ] {
        assert!(text.contains(series), "{series} in:\n{text}");
    }
    // Stored, waiting for a cluster: one workload of the default project in its phase.
    let workloads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("tephra_workloads{project=\"default\""))
        .collect();
    assert!(
        workloads.len() == 1 && workloads[0].ends_with(" 1"),
        "{workloads:?}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("tephra_db_pool_connections{state=\"max\"}")),
        "{text}"
    );
    // The path itself never becomes a label: the route's pattern does.
    assert!(!text.contains("no-such-id"), "{text}");
    drop(stream);
    server.stop().await;
}

#[tokio::test]
async fn every_answer_names_its_request_id_and_keeps_the_clients() {
    let server = Running::start().await;
    let res = server.get("/healthz").await;
    let id = res.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    let res = server
        .client
        .get(format!("{}/healthz", server.base))
        .header("x-request-id", "from-the-client-42")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "from-the-client-42");
    server.stop().await;
}
