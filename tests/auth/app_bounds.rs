//! What bounds an application: its creator's grants now, its secret's expiry and rotation, and an
//! explicit confirmation before it may be a system administrator.

use super::{Browser, Setup};
use anyhow::{Context, ensure};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tephra_tests::in_process::InProcess;

async fn send(request: reqwest::RequestBuilder) -> anyhow::Result<(StatusCode, Value)> {
    let response = request.send().await?;
    let status = response.status();
    let text = response.text().await?;
    Ok((
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    ))
}

/// `browser` creates application `body`; its secret.
async fn create(tephra: &InProcess, browser: &Browser, body: Value) -> anyhow::Result<String> {
    let (status, app) = send(browser.http.post(tephra.url("/api/v1/apps")).json(&body)).await?;
    ensure!(status == 201, "{status} {app}");
    Ok(app["clientSecret"].as_str().context("a secret")?.to_owned())
}

/// The answer to `POST /api/v1/token` for `name` and `secret`.
async fn token(
    tephra: &InProcess,
    name: &str,
    secret: &str,
) -> anyhow::Result<(StatusCode, Value)> {
    let body = json!({"grantType": "client_credentials", "clientId": name, "clientSecret": secret});
    send(
        tephra_tests::http()
            .post(tephra.url("/api/v1/token"))
            .json(&body),
    )
    .await
}

async fn access_token(tephra: &InProcess, name: &str, secret: &str) -> anyhow::Result<String> {
    let (status, body) = token(tephra, name, secret).await?;
    ensure!(status == 200, "{status} {body}");
    Ok(body["accessToken"].as_str().context("a token")?.to_owned())
}

async fn submit(
    tephra: &InProcess,
    token: &str,
    name: &str,
) -> anyhow::Result<(StatusCode, Value)> {
    let body = json!({"name": name, "projectId": "default", "spec": {"image": "busybox"}});
    let request = tephra_tests::http()
        .post(tephra.url("/api/v1/workloads/trainings"))
        .bearer_auth(token)
        .json(&body);
    send(request).await
}

/// Grace, a researcher in `default` through her group (not by name), and Ada, who added the
/// rule that says so; the rule as stored.
async fn grace_in_default_by_group(setup: &Setup) -> anyhow::Result<(Browser, Browser, Value)> {
    let (ada, grace) = (setup.sign_in("ada").await?, setup.sign_in("grace").await?);
    let rule = json!({"subjectType": "group", "subjectId": "ml-team", "roleId": 4,
                      "scopeType": "project", "scopeId": "default"});
    let rules = setup.tephra.url("/api/v1/authorization/access-rules");
    let (status, rule) = send(ada.http.post(&rules).json(&rule)).await?;
    ensure!(status == 201, "{status} {rule}");
    Ok((ada, grace, rule))
}

/// How many workloads are stored.
async fn stored(tephra: &InProcess) -> anyhow::Result<i64> {
    let filter = server::db::workloads::WorkloadFilter::default();
    Ok(tephra.db.workloads().count(&filter).await?)
}

#[tokio::test]
async fn an_application_loses_what_its_creator_loses() -> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let tephra = &setup.tephra;
    let (ada, grace, rule) = grace_in_default_by_group(&setup).await?;
    let rules = tephra.url("/api/v1/authorization/access-rules");
    let secret = create(
        tephra,
        &grace,
        json!({"name": "grace-bot", "roles": [
        {"roleId": 4, "scopeType": "project", "scopeId": "default"}]}),
    )
    .await?;
    let token = access_token(tephra, "grace-bot", &secret).await?;
    let (status, body) = submit(tephra, &token, "while-allowed").await?;
    ensure!(status == 202, "{status} {body}");

    let (status, _) = send(ada.http.delete(format!("{rules}/{}", rule["id"]))).await?;
    ensure!(status == 204, "{status}");
    let (status, body) = submit(tephra, &token, "after-removal").await?;
    // Holding nothing there now, it is told no such project is to be seen.
    ensure!(
        status == 400 && body.to_string().contains("no project you can see"),
        "the application keeps its own rule but its creator lost theirs: {status} {body}"
    );
    let stored = stored(tephra).await?;
    ensure!(stored == 1, "nothing more was stored: {stored}");
    setup.tephra.stop().await
}

#[tokio::test]
async fn an_application_loses_its_creators_groups_once_no_session_could_vouch_for_them()
-> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let tephra = &setup.tephra;
    let (_, grace, _) = grace_in_default_by_group(&setup).await?;
    let body = json!({"name": "grace-cron", "roles": [
        {"roleId": 4, "scopeType": "project", "scopeId": "default"}]});
    let secret = create(tephra, &grace, body).await?;
    let token = access_token(tephra, "grace-cron", &secret).await?;
    let (status, body) = submit(tephra, &token, "while-vouched").await?;
    ensure!(status == 202, "{status} {body}");

    // Grace has not signed in for longer than a session lasts (12 hours by default): her
    // groups may have changed at the provider since, so her application acts without them.
    let server::db::Database::Sqlite(server::db::SqliteDb { pool, .. }) = &tephra.db else {
        anyhow::bail!("the sign-in tests run on SQLite")
    };
    sqlx::query("UPDATE users SET last_seen_at = $1 WHERE subject = 'grace-0002'")
        .bind(chrono::Utc::now() - chrono::Duration::hours(13))
        .execute(pool)
        .await?;
    let (status, body) = submit(tephra, &token, "after-a-session").await?;
    // It holds nothing in the project now, so to it the project is not there.
    ensure!(
        status == 400 && body.to_string().contains("no project you can see"),
        "the creator's groups from 13 hours ago still counted: {status} {body}"
    );
    // Signing in again vouches for them anew.
    setup.sign_in("grace").await?;
    let (status, body) = submit(tephra, &token, "vouched-again").await?;
    ensure!(status == 202, "{status} {body}");
    let stored = stored(tephra).await?;
    ensure!(stored == 2, "the refused submit stored nothing: {stored}");
    setup.tephra.stop().await
}

#[tokio::test]
async fn secrets_expire_and_rotate_and_a_system_administrator_needs_confirming()
-> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let tephra = &setup.tephra;
    let ada = setup.sign_in("ada").await?;
    let apps = tephra.url("/api/v1/apps");

    let (status, body) = send(ada.http.post(&apps).json(&json!({
        "name": "too-long", "expiresAt": "2099-01-01T00:00:00Z"})))
    .await?;
    ensure!(
        status == 400 && body["details"][0]["field"] == "expiresAt",
        "{status} {body}"
    );
    let admin_role = json!([{"roleId": 1, "scopeType": "system"}]);
    let (status, body) = send(ada.http.post(&apps).json(&json!({
        "name": "root-bot", "roles": admin_role})))
    .await?;
    ensure!(
        status == 400 && body["details"][0]["field"] == "roles[0].roleId",
        "{status} {body}"
    );
    ensure!(tephra.db.applications().by_name("root-bot").await.is_err());
    create(
        tephra,
        &ada,
        json!({"name": "root-bot", "roles": admin_role,
                                "confirmSystemAdministrator": true}),
    )
    .await?;
    let audit = tephra.db.audit().recent(20).await?;
    let made = audit
        .iter()
        .find(|e| e.action == "application.create")
        .context("audited")?;
    ensure!(made.detail["systemAdministrator"] == true, "{made:?}");

    let secret = create(tephra, &ada, json!({"name": "nightly"})).await?;
    let (_, view) = send(ada.http.get(format!("{apps}/nightly"))).await?;
    let expires =
        chrono::DateTime::parse_from_rfc3339(view["expiresAt"].as_str().context("expiresAt")?)?;
    let days = (expires.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_days();
    ensure!((89..=90).contains(&days), "90 days by default: {view}");
    let old_token = access_token(tephra, "nightly", &secret).await?;
    // Tokens carry whole seconds: one from the same second as the rotation would still pass.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;

    let (status, rotated) = send(ada.http.post(format!("{apps}/nightly/secret"))).await?;
    ensure!(status == 200, "{status} {rotated}");
    let new_secret = rotated["clientSecret"].as_str().context("a new secret")?;
    ensure!(new_secret != secret);
    let (status, body) = send(
        tephra_tests::http()
            .get(tephra.url("/api/v1/workloads/trainings"))
            .bearer_auth(&old_token),
    )
    .await?;
    ensure!(
        status == 401 && body["message"].as_str().unwrap_or("").contains("rotated"),
        "{status} {body}"
    );
    ensure!(
        token(tephra, "nightly", &secret).await?.0 == 401,
        "the old secret"
    );
    let new_token = access_token(tephra, "nightly", new_secret).await?;

    // Past its expiry, neither the secret nor its tokens work.
    let server::db::Database::Sqlite(server::db::SqliteDb { pool, .. }) = &tephra.db else {
        anyhow::bail!("the sign-in tests run on SQLite")
    };
    sqlx::query("UPDATE applications SET expires_at = $1 WHERE name = 'nightly'")
        .bind(chrono::Utc::now() - chrono::Duration::minutes(1))
        .execute(pool)
        .await?;
    let (status, body) = token(tephra, "nightly", new_secret).await?;
    ensure!(
        status == 401 && body["message"].as_str().unwrap_or("").contains("expired"),
        "{status} {body}"
    );
    let (status, _) = send(
        tephra_tests::http()
            .get(tephra.url("/api/v1/workloads/trainings"))
            .bearer_auth(&new_token),
    )
    .await?;
    ensure!(status == 401, "{status}");
    let (_, view) = send(ada.http.get(format!("{apps}/nightly"))).await?;
    ensure!(view["expired"] == true, "{view}");
    setup.tephra.stop().await
}
