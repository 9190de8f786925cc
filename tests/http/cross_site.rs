//! Other web pages cannot act through the user's browser (issue 13): a cross-site POST is refused
//! on the REST API and on the no-JavaScript form, whatever its content type, and nothing is
//! stored; with the development login, a request addressed to another host name (DNS rebinding)
//! is refused even for reading.

use super::Running;

const TRAINING: &str = r#"{"name": "from-elsewhere", "projectId": "default",
    "spec": {"image": "busybox"}}"#;

#[tokio::test]
async fn a_cross_site_post_is_refused_and_stores_nothing() {
    let server = Running::start().await;
    let client = Running::no_redirects();
    let api = format!("{}/api/v1/workloads/trainings", server.base);
    let form = format!("{}/api/fn/submit_training_form", server.base);
    let drawn = format!("{}/api/fn/training_form", server.base);
    let attempts = [
        // What a page on evil.example makes the browser send: a "simple" request, no preflight.
        (
            &api,
            "text/plain",
            TRAINING,
            vec![("origin", "https://evil.example")],
        ),
        (
            &api,
            "text/plain",
            TRAINING,
            vec![("sec-fetch-site", "cross-site")],
        ),
        (
            &form,
            "application/x-www-form-urlencoded",
            "draft%5Bname%5D=evil&draft%5Bproject%5D=default&draft%5Bimage%5D=busybox",
            vec![
                ("origin", "https://evil.example"),
                ("sec-fetch-site", "cross-site"),
            ],
        ),
        // The form as its page posts it, asking for a submit.
        (
            &drawn,
            "application/x-www-form-urlencoded",
            "draft%5Bdocument%5D=%7B%22name%22%3A%22evil%22%2C%22projectId%22%3A%22default%22%2C%22spec%22%3A%7B%22image%22%3A%22busybox%22%7D%7D&draft%5B~submit%5D=on",
            vec![("sec-fetch-site", "cross-site")],
        ),
    ];
    for (url, content_type, body, headers) in attempts {
        let mut request = client
            .post(url.as_str())
            .header("content-type", content_type)
            .body(body);
        for (name, value) in &headers {
            request = request.header(*name, *value);
        }
        let answer = request.send().await.unwrap();
        assert_eq!(answer.status(), 403, "{url} with {headers:?}");
        let body: serde_json::Value = answer.json().await.unwrap();
        assert!(
            body["message"].as_str().unwrap().contains("cross-site"),
            "{body}"
        );
    }
    let stored = server
        .db
        .workloads()
        .list(&Default::default())
        .await
        .unwrap();
    assert!(stored.is_empty(), "nothing was stored: {}", stored.len());

    // The same request from Tephra's own page goes through.
    let own = client
        .post(api.as_str())
        .header("content-type", "application/json")
        .header("origin", server.base.as_str())
        .header("sec-fetch-site", "same-origin")
        .body(TRAINING)
        .send()
        .await
        .unwrap();
    assert_eq!(own.status(), 202, "{}", own.text().await.unwrap());
    server.stop().await;
}

#[tokio::test]
async fn the_development_login_answers_loopback_names_only() {
    let server = Running::start().await;
    let rebound = server
        .client
        .get(format!("{}/api/v1/workloads/trainings", server.base))
        .header("host", "evil.example:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);
    let body = rebound.text().await.unwrap();
    assert!(body.contains("evil.example"), "{body}");
    let page = server
        .client
        .get(format!("{}/trainings", server.base))
        .header("host", "localhost")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    server.stop().await;
}

#[tokio::test]
async fn bodies_past_the_limit_are_refused_on_server_functions_too() {
    let server = Running::start().await;
    let huge = "x".repeat(server::http::MAX_BODY_BYTES + 1);
    let answer = server
        .client
        .post(format!("{}/api/fn/preview_training", server.base))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 413);
    server.stop().await;
}
