//! Exposed URLs behind Tephra's forward auth, over HTTP with real sign-ins: the handshake
//! (`/auth/exposed?rd=`) and the check the ingress makes before every request
//! (`/auth/exposed/check`). No ingress controller runs here: the test sends the headers
//! ingress-nginx would (`X-Original-URL`, the browser's `Cookie`).

use super::{Browser, CLIENT_ID, CLIENT_SECRET, Setup, ada, location, start_tephra, user};
use anyhow::{Context, ensure};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tephra_core::domain::exposed::{GRANT_SECONDS, Pass, PassKey, Purpose, url_host};
use tephra_tests::oidc::{OidcClient, OidcProvider};
use uuid::Uuid;

const APPS: &str = "apps.example.test";

/// A provider, and a Tephra whose profile serves exposed URLs under [`APPS`] with forward auth.
async fn start() -> anyhow::Result<Setup> {
    let people = [ada(), user("pat", &[]), user("nia", &[])];
    let port = tephra_tests::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let provider = OidcProvider::start(
        &[OidcClient {
            client_id: CLIENT_ID.into(),
            client_secret: CLIENT_SECRET.into(),
            redirect_uris: vec![format!("{base}/auth/callback")],
            post_logout_redirect_uris: vec![format!("{base}/")],
            client_credentials: false,
        }],
        &people,
        super::API_AUDIENCE,
    )?;
    let dir = tempfile::tempdir()?;
    let profile = dir.path().join("profile.json");
    let body = json!({ "ingressClass": "nginx", "ingressHost": APPS,
                       "forwardAuth": { "url": base } });
    std::fs::write(&profile, body.to_string())?;
    let path = profile.to_str().context("temporary paths are UTF-8")?;
    let tephra = start_tephra(&base, &provider.issuer, &["--cluster-profile", path]).await?;
    Ok(Setup { provider, tephra })
}

/// What the ingress sends Tephra about a request to `url`, with the browser's `cookie`.
async fn check(setup: &Setup, url: &str, cookie: Option<&str>) -> anyhow::Result<(u16, String)> {
    let mut request = tephra_tests::http()
        .get(setup.tephra.url("/auth/exposed/check"))
        .header("x-original-url", url);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let answer = request.send().await?;
    let set = answer
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    Ok((answer.status().as_u16(), set))
}

async fn handshake(browser: &Browser, setup: &Setup, rd: &str) -> anyhow::Result<(u16, String)> {
    let query = encoded(rd);
    let answer = browser
        .get(&setup.tephra.url(&format!("/auth/exposed?rd={query}")))
        .await?;
    let to = location(&answer).unwrap_or_default();
    Ok((answer.status().as_u16(), to))
}

fn encoded(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

async fn post(browser: &Browser, setup: &Setup, path: &str, body: Value) -> anyhow::Result<Value> {
    let answer = browser
        .http
        .post(setup.tephra.url(path))
        .header("accept", "application/json")
        .json(&body)
        .send()
        .await?;
    let status = answer.status();
    let body: Value = answer.json().await.unwrap_or_default();
    ensure!(status.is_success(), "POST {path}: {status} {body}");
    Ok(body)
}

/// The user a person signed in as.
async fn user_id(setup: &Setup, email: &str) -> anyhow::Result<Uuid> {
    let users = setup.tephra.db.users().list().await?;
    let found = users.iter().find(|u| u.email.as_deref() == Some(email));
    Ok(found.context("the user signed in")?.id)
}

#[tokio::test]
async fn only_members_allowed_by_the_url_get_through_the_ingress() -> anyhow::Result<()> {
    let setup = start().await?;
    let db = &setup.tephra.db;
    let alpha = db
        .projects()
        .create(&server::db::projects::NewProject::named("alpha"), None)
        .await?;
    let (admin, pat, nia) = (
        setup.sign_in("ada").await?,
        setup.sign_in("pat").await?,
        setup.sign_in("nia").await?,
    );
    let rule = json!({"subjectType": "user", "subjectId": "pat@example.org", "roleId": 4,
                      "scopeType": "project", "scopeId": "alpha"});
    let rule = post(&admin, &setup, "/api/v1/authorization/access-rules", rule).await?;
    let training = json!({"name": "notebook", "projectId": "alpha", "spec": {
        "image": "jupyter/base-notebook", "exposedUrls": [
            {"container": 8888},
            {"container": 6006, "authorizedUsers": ["ada@example.org"]}]}});
    post(&admin, &setup, "/api/v1/workloads/trainings", training).await?;
    let open = url_host(APPS, &alpha.namespace, "notebook", 8888);
    let listed = url_host(APPS, &alpha.namespace, "notebook", 6006);
    let lab = format!("https://{open}/lab?x=1");

    // Nobody signed in: the ingress is told 401 (and sends the browser to the handshake).
    assert_eq!(check(&setup, &lab, None).await?.0, 401);
    let anonymous = Browser::default();
    let (status, to) = handshake(&anonymous, &setup, &lab).await?;
    ensure!(
        (300..400).contains(&status) && to.starts_with("/auth/login?next=/auth/exposed"),
        "{status} {to}"
    );

    // A member: a grant for this host in the URL, which the check turns into the host's cookie.
    let (status, back) = handshake(&pat, &setup, &lab).await?;
    ensure!((300..400).contains(&status), "{status}");
    let prefix = format!("https://{open}/lab?x=1&tephra-grant=");
    ensure!(back.starts_with(&prefix), "{back}");
    let (status, set) = check(&setup, &back, None).await?;
    ensure!(status == 200, "{status}");
    for attribute in [
        "__Host-tephra-exposed=",
        "Secure",
        "HttpOnly",
        "SameSite=Lax",
    ] {
        ensure!(set.contains(attribute), "{set}");
    }
    ensure!(!set.contains("Domain"), "host-only: {set}");
    let cookie = set.split(';').next().context("a cookie")?.to_owned();
    assert_eq!(
        check(&setup, &lab, Some(&cookie)).await?,
        (200, String::new())
    );
    // The cookie and the grant are for this host alone.
    let other = format!("https://{listed}/");
    assert_eq!(check(&setup, &other, Some(&cookie)).await?.0, 401);
    let grant = &back[prefix.len()..];
    assert_eq!(
        check(&setup, &format!("{other}?tephra-grant={grant}"), None)
            .await?
            .0,
        401
    );

    // Forged, tampered and expired passes are 401s.
    let key = db
        .settings()
        .get_or_create("exposed-url-key", String::new)
        .await?;
    let key = PassKey::from_hex(&key).context("the stored key")?;
    let pat_id = user_id(&setup, "pat@example.org").await?;
    let now = chrono::Utc::now().timestamp();
    let pass = |user, host: &str, expires| Pass {
        host: host.to_owned(),
        user,
        groups: Vec::new(),
        expires,
    };
    let expired = key.seal(Purpose::Grant, &pass(pat_id, &open, now - 1));
    let forged = PassKey::from_hex(&"17".repeat(32))
        .context("a key")?
        .seal(Purpose::Grant, &pass(pat_id, &open, now + GRANT_SECONDS));
    let tampered = format!("{}x", &grant[..grant.len() - 1]);
    for bad in [expired, forged, tampered] {
        let url = format!("https://{open}/?tephra-grant={bad}");
        assert_eq!(check(&setup, &url, None).await?.0, 401, "{bad}");
    }
    let cookie_as_grant = cookie.trim_start_matches("__Host-tephra-exposed=");
    let url = format!("https://{open}/?tephra-grant={cookie_as_grant}");
    assert_eq!(
        check(&setup, &url, None).await?.0,
        401,
        "a cookie is no grant"
    );

    // Signed in but no member: refused at the handshake, and a valid pass does not help.
    assert_eq!(handshake(&nia, &setup, &lab).await?.0, 403);
    let nia_id = user_id(&setup, "nia@example.org").await?;
    let nia_grant = key.seal(Purpose::Grant, &pass(nia_id, &open, now + GRANT_SECONDS));
    let url = format!("https://{open}/?tephra-grant={nia_grant}");
    assert_eq!(check(&setup, &url, None).await?.0, 403);

    // authorizedUsers leaves the member out: 403; the listed user gets through.
    assert_eq!(handshake(&pat, &setup, &other).await?.0, 403);
    let pat_grant = key.seal(Purpose::Grant, &pass(pat_id, &listed, now + GRANT_SECONDS));
    let url = format!("https://{listed}/?tephra-grant={pat_grant}");
    assert_eq!(check(&setup, &url, None).await?.0, 403);
    let (status, back) = handshake(&admin, &setup, &other).await?;
    ensure!((300..400).contains(&status), "{status}");
    assert_eq!(check(&setup, &back, None).await?.0, 200);

    // rd must be an exposed URL of this installation: never a redirect elsewhere.
    for rd in [
        "https://evil.example/".to_owned(),
        format!("http://{open}/"),
        format!("https://{open}.evil.example/"),
        format!(
            "https://{}/",
            url_host(APPS, &alpha.namespace, "nothing", 8888)
        ),
        format!(
            "https://{}/",
            url_host(APPS, "tephra-beta", "notebook", 8888)
        ),
    ] {
        assert_eq!(handshake(&pat, &setup, &rd).await?.0, 400, "{rd}");
    }
    let bare = pat.get(&setup.tephra.url("/auth/exposed")).await?;
    assert_eq!(bare.status(), StatusCode::BAD_REQUEST);

    // Membership is checked on every request: without the rule the cookie stops working.
    let id = rule["id"].as_i64().context("the rule's id")?;
    let path = format!("/api/v1/authorization/access-rules/{id}");
    let gone = admin.http.delete(setup.tephra.url(&path)).send().await?;
    ensure!(gone.status().is_success(), "{}", gone.status());
    assert_eq!(check(&setup, &lab, Some(&cookie)).await?.0, 403);
    Ok(())
}
