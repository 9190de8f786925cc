//! Rate limits: past the token endpoint's limit an address gets 429 with `Retry-After` and the
//! request does nothing; another address is still served. Addresses come from `X-Forwarded-For`
//! here (`--trust-forwarded-for`), as behind the chart's ingress: the test's own connections are
//! loopback, which is not limited.

use super::Running;

#[tokio::test]
async fn past_the_limit_an_address_gets_429_with_retry_after() {
    let data = tempfile::tempdir().unwrap();
    let server = Running::start_with(
        data,
        &[
            "--rate-limit-token",
            "3",
            "--rate-limit-sign-in",
            "2",
            "--trust-forwarded-for",
        ],
    )
    .await;
    // Each request names another client id: only the address is counted here.
    let count = std::sync::atomic::AtomicUsize::new(0);
    let token = |from: &'static str| {
        let app = format!(
            "nobody{}",
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        server
            .client
            .post(format!("{}/api/v1/token", server.base))
            .header("x-forwarded-for", from)
            .json(&serde_json::json!({ "grantType": "app_token", "AppId": app, "AppSecret": "x" }))
            .send()
    };
    for _ in 0..3 {
        let answer = token("198.51.100.7").await.unwrap();
        assert_eq!(
            answer.status(),
            401,
            "an unknown application, within the limit"
        );
    }
    let refused = token("198.51.100.7").await.unwrap();
    assert_eq!(refused.status(), 429);
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let body: serde_json::Value = refused.json().await.unwrap();
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("too many requests"),
        "{body}"
    );
    assert_eq!(
        token("203.0.113.9").await.unwrap().status(),
        401,
        "another address"
    );
    // Reads are not limited, and loopback callers are not counted.
    for _ in 0..5 {
        assert_eq!(server.get("/api/v1/org-unit/projects").await.status(), 200);
    }
    server.stop().await;
}

/// One client id, or one principal's writes, are counted together whatever address they come
/// from: spreading a guesser over many addresses gains nothing.
#[tokio::test]
async fn a_principal_is_counted_across_addresses() {
    let data = tempfile::tempdir().unwrap();
    let server = Running::start_with(
        data,
        &[
            "--rate-limit-token",
            "3",
            "--rate-limit-writes",
            "2",
            "--trust-forwarded-for",
        ],
    )
    .await;
    let token = |from: String, app: &'static str| {
        server
            .client
            .post(format!("{}/api/v1/token", server.base))
            .header("x-forwarded-for", from)
            .json(&serde_json::json!({ "grantType": "app_token", "AppId": app, "AppSecret": "x" }))
            .send()
    };
    for i in 0..3 {
        let answer = token(format!("198.51.100.{i}"), "target").await.unwrap();
        assert_eq!(answer.status(), 401, "within the client id's limit");
    }
    let refused = token("198.51.100.99".into(), "target").await.unwrap();
    assert_eq!(refused.status(), 429, "a fresh address, the same client id");
    assert!(refused.headers().contains_key("retry-after"));
    let body: serde_json::Value = refused.json().await.unwrap();
    assert!(
        body["message"].as_str().unwrap().contains("\"target\""),
        "{body}"
    );
    assert_eq!(
        token("198.51.100.98".into(), "other")
            .await
            .unwrap()
            .status(),
        401,
        "another client id"
    );

    // The development user's writes, from two addresses: counted as one principal.
    let write = |from: &'static str| {
        server
            .client
            .post(format!("{}/api/v1/org-unit/departments", server.base))
            .header("x-forwarded-for", from)
            .json(&serde_json::json!({ "name": format!("d{}", from.len()) }))
            .send()
    };
    assert_ne!(write("203.0.113.1").await.unwrap().status(), 429);
    assert_ne!(write("203.0.113.22").await.unwrap().status(), 429);
    let refused = write("203.0.113.133").await.unwrap();
    assert_eq!(refused.status(), 429, "the third write of one principal");
    assert_eq!(
        server.get("/api/v1/org-unit/departments").await.status(),
        200
    );
    server.stop().await;
}
