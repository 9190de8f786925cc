//! Every answer carries the browser's security headers: pages, the REST API, errors and the
//! static files alike; HSTS only where the public URL is https (not here, on loopback http).

use super::Running;

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let server = Running::start().await;
    for path in [
        "/",
        "/trainings",
        "/api/v1/org-unit/projects",
        "/api/v1/workloads/trainings/not-an-id",
        "/no-such-page",
        "/healthz",
    ] {
        let answer = server
            .client
            .get(format!("{}{path}", server.base))
            .send()
            .await
            .expect("an answer");
        let headers = answer.headers();
        let get = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        let csp = get("content-security-policy");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp:?}");
        assert!(csp.contains("default-src 'self'"), "{path}: {csp:?}");
        assert_eq!(get("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(get("x-frame-options"), "DENY", "{path}");
        assert_eq!(get("referrer-policy"), "same-origin", "{path}");
        assert!(
            headers.get("strict-transport-security").is_none(),
            "{path}: HSTS over http"
        );
    }
    server.stop().await;
}
