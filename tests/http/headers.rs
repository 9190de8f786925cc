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
        let scripts = csp.split("script-src").nth(1).unwrap_or_default();
        let scripts = scripts.split(';').next().unwrap_or_default();
        assert!(
            !scripts.contains("unsafe-inline"),
            "{path}: inline scripts run only with the page's nonce: {csp:?}"
        );
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

/// A page names its nonce in its policy, and every inline script it sends carries that nonce;
/// each render draws another.
#[tokio::test]
async fn a_pages_inline_scripts_carry_the_nonce_its_policy_names() {
    let server = Running::start().await;
    let mut nonces = Vec::new();
    for path in ["/", "/trainings", "/trainings/new", "/trainings"] {
        let answer = server.get(path).await;
        let csp = answer.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        let nonce = csp
            .split("'nonce-")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap_or_else(|| panic!("{path}: the policy names a nonce: {csp}"))
            .to_owned();
        let page = answer.text().await.unwrap();
        let scripts: Vec<&str> = page.split("<script").skip(1).collect();
        assert!(!scripts.is_empty(), "{path} has its hydration scripts");
        for script in scripts {
            let tag = script.split('>').next().unwrap_or_default();
            assert!(
                tag.contains(&format!("nonce=\"{nonce}\"")),
                "{path}: a script without the page's nonce: <script{tag}>"
            );
        }
        nonces.push(nonce);
    }
    nonces.sort();
    nonces.dedup();
    assert_eq!(nonces.len(), 4, "a nonce per render");
    server.stop().await;
}
