//! Scripts: applications and their tokens (`POST /api/v1/token` as Run:ai's SDK calls it), the
//! provider's own access tokens, what a refused token is told, and `fromIdpToken`.

use super::{API_AUDIENCE, CLIENT_ID, Setup, ada, grace};
use anyhow::{Context, ensure};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tephra_tests::oidc::OidcClient;

async fn answer(response: reqwest::Response) -> anyhow::Result<(StatusCode, Value)> {
    let status = response.status();
    let text = response.text().await?;
    Ok((
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    ))
}

async fn bearer_get(url: &str, token: &str) -> anyhow::Result<(StatusCode, Value)> {
    answer(
        tephra_tests::http()
            .get(url)
            .bearer_auth(token)
            .send()
            .await?,
    )
    .await
}

#[tokio::test]
async fn an_application_gets_a_token_acts_with_it_and_revocation_stops_it() -> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let tephra = &setup.tephra;
    let ada = setup.sign_in("ada").await?;
    let created = ada
        .http
        .post(tephra.url("/api/v1/apps"))
        .json(&json!({"name": "nightly", "roles": [
            {"roleId": 4, "scopeType": "project", "scopeId": "default"}]}))
        .send()
        .await?;
    let (status, app) = answer(created).await?;
    ensure!(status == 201, "{status} {app}");
    let secret = app["clientSecret"]
        .as_str()
        .context("the secret, once")?
        .to_owned();
    ensure!(app["roles"] == json!(["Researcher in default"]), "{app}");
    let again: Value = ada
        .http
        .get(tephra.url(&format!("/api/v1/apps/{}", app["id"].as_str().unwrap())))
        .send()
        .await?
        .json()
        .await?;
    ensure!(
        again.get("clientSecret").is_none(),
        "never shown again: {again}"
    );
    let stored = tephra.db.applications().by_name("nightly").await?;
    ensure!(!stored.secret_hash.contains(&secret), "only a hash is kept");

    // Run:ai's SDK sends exactly this the moment its client is constructed.
    let sdk = json!({"grantType": "app_token", "AppId": "nightly", "AppSecret": secret});
    let (status, token) = answer(
        tephra_tests::http()
            .post(tephra.url("/api/v1/token"))
            .json(&sdk)
            .send()
            .await?,
    )
    .await?;
    ensure!(status == 200, "{status} {token}");
    let token = token["accessToken"]
        .as_str()
        .context("accessToken")?
        .to_owned();

    let submitted = tephra_tests::http()
        .post(tephra.url("/api/v1/workloads/trainings"))
        .bearer_auth(&token)
        .json(&json!({"name": "from-cron", "projectId": "default", "spec": {"image": "busybox"}}))
        .send()
        .await?;
    let (status, workload) = answer(submitted).await?;
    ensure!(status == 202, "{status} {workload}");
    ensure!(workload["createdBy"] == "nightly", "{workload}");
    let used = tephra.db.applications().by_name("nightly").await?;
    ensure!(used.last_used_at.is_some(), "last use is recorded");

    // A wrong secret is refused without saying which part was wrong.
    let wrong =
        json!({"grantType": "client_credentials", "clientId": "nightly", "clientSecret": "x"});
    let (status, body) = answer(
        tephra_tests::http()
            .post(tephra.url("/api/v1/token"))
            .json(&wrong)
            .send()
            .await?,
    )
    .await?;
    ensure!(
        status == 401 && body["message"] == "invalid client credentials",
        "{status} {body}"
    );

    let revoked = ada
        .http
        .delete(tephra.url("/api/v1/apps/nightly"))
        .send()
        .await?;
    ensure!(revoked.status() == 200, "{}", revoked.status());
    let (status, body) = bearer_get(&tephra.url("/api/v1/workloads/trainings"), &token).await?;
    ensure!(
        status == 401,
        "a revoked application's token stops working: {status}"
    );
    ensure!(body["code"] == 401, "{body}");
    ensure!(
        body["message"].as_str().unwrap_or("").contains("revoked"),
        "{body}"
    );
    let (status, body) = answer(
        tephra_tests::http()
            .post(tephra.url("/api/v1/token"))
            .json(&sdk)
            .send()
            .await?,
    )
    .await?;
    ensure!(
        status == 401 && body["message"].as_str().unwrap_or("").contains("revoked"),
        "{body}"
    );

    // The audit trail names the application as the actor of its submit.
    let (status, audit) = answer(
        ada.http
            .get(tephra.url("/api/v1/audit?action=workload.submit"))
            .send()
            .await?,
    )
    .await?;
    ensure!(status == 200, "{status} {audit}");
    let entry = &audit["events"][0];
    ensure!(
        entry["actor"] == "nightly" && entry["actorType"] == "application",
        "{audit}"
    );
    let (_, trail) = answer(
        ada.http
            .get(tephra.url("/api/v1/audit?targetType=application"))
            .send()
            .await?,
    )
    .await?;
    let actions: Vec<&str> = trail["events"]
        .as_array()
        .context("events")?
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    ensure!(
        actions == ["application.revoke", "application.create"],
        "{trail}"
    );
    setup.tephra.stop().await
}

#[tokio::test]
async fn expired_and_foreign_tokens_are_refused_saying_why() -> anyhow::Result<()> {
    let setup = Setup::start_with(&["--oidc-audience", API_AUDIENCE]).await?;
    let tephra = &setup.tephra;
    let url = tephra.url("/api/v1/org-unit/projects");

    // An application token past its expiry, signed with this installation's own key.
    let key = tephra
        .db
        .settings()
        .get_or_create(server::auth::tokens::SETTING, String::new)
        .await?;
    let tokens = server::auth::tokens::AppTokens::new(&key)?;
    let old = tokens.issue("nightly", chrono::Utc::now().timestamp() - 7200);
    let (status, body) = bearer_get(&url, &old).await?;
    ensure!(status == 401, "{status}");
    ensure!(
        body["message"].as_str().unwrap_or("").contains("expired"),
        "{body}"
    );

    // The provider's access tokens: expired, for another audience, from another issuer.
    let now = chrono::Utc::now().timestamp();
    let claims = |edit: &dyn Fn(&mut Value)| {
        let mut c = json!({"iss": setup.provider.issuer, "sub": "ci-runner", "aud": API_AUDIENCE,
                           "iat": now, "exp": now + 300, "client_id": "ci"});
        edit(&mut c);
        c
    };
    let cases: [(&str, Value); 4] = [
        ("expired", claims(&|c| c["exp"] = json!(now - 60))),
        (
            "audience",
            claims(&|c| c["aud"] = json!("urn:someone-else")),
        ),
        (
            "wrong issuer",
            claims(&|c| c["iss"] = json!("https://evil.example")),
        ),
        ("signature", claims(&|_| {})),
    ];
    for (why, claims) in cases {
        let mut token = setup.provider.sign(json!({}), claims).await?;
        if why == "signature" {
            token.push('A');
        }
        let (status, body) = bearer_get(&url, &token).await?;
        ensure!(status == 401, "{why}: {status} {body}");
        let message = body["message"].as_str().unwrap_or("");
        ensure!(message.contains(why), "{why}: {message}");
    }
    for (header, why) in [
        (None, "not signed in"),
        (Some("Basic abc"), "Bearer <token>"),
    ] {
        let mut request = tephra_tests::http().get(&url);
        if let Some(header) = header {
            request = request.header("authorization", header);
        }
        let (status, body) = answer(request.send().await?).await?;
        ensure!(status == 401, "{status}");
        ensure!(
            body["message"].as_str().unwrap_or("").contains(why),
            "{body}"
        );
    }
    setup.tephra.stop().await
}

#[tokio::test]
async fn the_providers_own_access_token_is_accepted_for_the_configured_audience()
-> anyhow::Result<()> {
    let port = tephra_tests::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let robot = OidcClient {
        client_id: "ci-robot".into(),
        client_secret: "robot-secret".into(),
        // Never used (no sign-in), but the provider wants one registered.
        redirect_uris: vec!["http://127.0.0.1:9/unused".into()],
        post_logout_redirect_uris: vec![],
        client_credentials: true,
    };
    let tephra_client = OidcClient {
        client_id: CLIENT_ID.into(),
        client_secret: super::CLIENT_SECRET.into(),
        redirect_uris: vec![format!("{base}/auth/callback")],
        post_logout_redirect_uris: vec![],
        client_credentials: false,
    };
    let provider = tephra_tests::oidc::OidcProvider::start(
        &[tephra_client, robot.clone()],
        &[ada()],
        API_AUDIENCE,
    )?;
    let tephra = super::start_tephra(
        &base,
        &provider.issuer,
        &["--oidc-audience", API_AUDIENCE, "--admin-users", "ci-robot"],
    )
    .await?;
    let token = provider.client_credentials_token(&robot).await?;
    let (status, projects) = bearer_get(&tephra.url("/api/v1/org-unit/projects"), &token).await?;
    ensure!(status == 200, "{status} {projects}");
    ensure!(
        projects["projects"][0]["name"] == "default",
        "an administrator: {projects}"
    );
    let users = tephra.db.users().list().await?;
    ensure!(
        users
            .iter()
            .any(|u| u.issuer == provider.issuer && u.subject == "ci-robot"),
        "keyed by issuer and subject: {users:?}"
    );
    tephra.stop().await
}

#[tokio::test]
async fn from_idp_token_runs_with_the_uid_and_gid_the_provider_gave() -> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let tephra = &setup.tephra;
    let body = |name: &str| {
        json!({"name": name, "projectId": "default",
               "spec": {"image": "busybox", "security": {"uidGidSource": "fromIdpToken"}}})
    };
    // Ada's token carries uid 1000 and gid 2000.
    let ada = setup.sign_in("ada").await?;
    let (status, workload) = answer(
        ada.http
            .post(tephra.url("/api/v1/workloads/trainings"))
            .json(&body("as-ada"))
            .send()
            .await?,
    )
    .await?;
    ensure!(status == 202, "{status} {workload}");
    let detail: Value = ada
        .http
        .post(tephra.url("/api/fn/get_workload"))
        .json(&json!({"id": workload["workloadId"]}))
        .send()
        .await?
        .json()
        .await?;
    let yaml = detail["renderedYaml"]["Ok"]
        .as_str()
        .with_context(|| format!("rendered YAML in {detail}"))?;
    ensure!(
        yaml.contains("runAsUser: 1000") && yaml.contains("runAsGroup: 2000"),
        "{yaml}"
    );

    // Grace's has none: refused at submit, naming the field.
    tephra
        .db
        .projects()
        .by_name("default")
        .await
        .context("the default project")?;
    let grace_browser = setup.sign_in(&grace().login).await?;
    let rule = ada
        .http
        .post(tephra.url("/api/v1/authorization/access-rules"))
        .json(
            &json!({"subjectType": "user", "subjectId": "grace@example.org", "roleId": 4,
                      "scopeType": "project", "scopeId": "default"}),
        )
        .send()
        .await?;
    ensure!(rule.status() == 201, "{}", rule.status());
    let (status, refused) = answer(
        grace_browser
            .http
            .post(tephra.url("/api/v1/workloads/trainings"))
            .json(&body("as-grace"))
            .send()
            .await?,
    )
    .await?;
    ensure!(status == 400, "{status} {refused}");
    ensure!(refused.to_string().contains("fromIdpToken"), "{refused}");
    setup.tephra.stop().await
}
