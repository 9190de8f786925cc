//! The sign-in flow and every way it must refuse: a page without a session goes to the provider
//! and comes back, the session id changes at sign-in, a tampered state, a foreign nonce, a
//! replayed code, a return target off Tephra and a cross-origin post are refused, the API says
//! why it answers 401, an unreachable provider leaves Tephra running and not ready, and sessions
//! outlive a restart on PostgreSQL.

use super::{Browser, Setup, location, me, param, replace_param, start_tephra};
use anyhow::{Context, bail, ensure};
use tephra_tests::in_process::InProcess;

#[tokio::test]
async fn a_page_without_a_session_signs_in_at_the_provider_and_comes_back() -> anyhow::Result<()> {
    let Setup { provider, tephra } = Setup::start().await?;
    let browser = Browser::default();

    let first = browser.get(&tephra.url("/trainings?phase=Running")).await?;
    ensure!(first.status().is_redirection(), "{}", first.status());
    let to_login = location(&first)?;
    ensure!(to_login.starts_with("/auth/login?next="), "{to_login}");

    let callback = browser
        .through_provider(&tephra, "/trainings?phase=Running", "ada")
        .await?;
    ensure!(
        callback.contains("code=") && callback.contains("state="),
        "{callback}"
    );
    let back = browser.get(&callback).await?;
    ensure!(
        back.status().is_redirection(),
        "callback answered {}",
        back.status()
    );
    ensure!(
        location(&back)? == "/trainings?phase=Running",
        "{}",
        location(&back)?
    );

    let page = browser.get(&tephra.url("/trainings?phase=Running")).await?;
    ensure!(page.status() == 200, "{}", page.status());
    let html = page.text().await?;
    ensure!(html.contains("Ada Lovelace"), "the header names the user");
    ensure!(html.contains("System administrator"), "and their role");
    ensure!(
        !html.contains("dev-login-banner"),
        "no development login banner"
    );

    let principal = me(&browser, &tephra).await?;
    ensure!(principal["subject"] == "ada-0001", "{principal}");
    ensure!(principal["groups"] == serde_json::json!(["ml-team", "tephra-admins"]));
    ensure!(principal["admin"] == true);
    ensure!(principal["dev_login"] == false, "{principal}");

    // Keyed by issuer and subject.
    let users = tephra.db.users().list().await?;
    ensure!(
        users
            .iter()
            .any(|u| u.issuer == provider.issuer && u.subject == "ada-0001"),
        "{users:?}"
    );
    let audit = tephra.db.audit().recent(10).await?;
    ensure!(
        audit.iter().any(|e| e.action == "auth.sign_in"),
        "{audit:?}"
    );

    // Sign-out ends the session here and sends the browser to the provider's end-session page.
    let out = browser
        .http
        .post(tephra.url("/auth/logout"))
        .header("origin", tephra.base.as_str())
        .send()
        .await?;
    ensure!(out.status().is_redirection(), "{}", out.status());
    let provider_logout = location(&out)?;
    ensure!(
        provider_logout.starts_with(&provider.issuer)
            && provider_logout.contains("client_id=")
            && !provider_logout.contains("id_token_hint"),
        "{provider_logout}"
    );
    let after = browser.get(&tephra.url("/trainings")).await?;
    ensure!(
        after.status().is_redirection(),
        "signed out: {}",
        after.status()
    );
    tephra.stop().await
}

#[tokio::test]
async fn the_session_id_changes_at_sign_in() -> anyhow::Result<()> {
    let Setup {
        provider: _provider,
        tephra,
    } = Setup::start().await?;
    let server::db::Database::Sqlite(server::db::SqliteDb { pool, .. }) = &tephra.db else {
        bail!("the in-process server runs on SQLite");
    };
    let rows = || sqlx::query_scalar::<_, String>("SELECT id FROM tephra_sessions").fetch_all(pool);
    // Anyone may ask for sign-in pages: that writes nothing (the sign-in waits in a cookie).
    for _ in 0..200 {
        let login = tephra_tests::http()
            .get(tephra.url("/auth/login?next=/"))
            .send()
            .await?;
        ensure!(
            session_cookie(&login).is_none(),
            "no session before sign-in"
        );
    }
    ensure!(
        rows().await?.is_empty(),
        "anonymous sign-in pages wrote sessions"
    );
    let browser = Browser::default();
    let callback = browser
        .through_provider(&tephra, "/auth/login?next=/", "grace")
        .await?;
    let back = browser.get(&callback).await?;
    ensure!(back.status().is_redirection(), "{}", back.status());
    let after = session_cookie(&back).context("sign-in sets the session cookie")?;
    // The table keeps a hash of the id: the cookie's value is nowhere in it.
    let ids = rows().await?;
    ensure!(ids.len() == 1, "one session row: {ids:?}");
    ensure!(!ids.contains(&after), "the cookie value is stored as it is");
    // An id that names no session is worth nothing.
    let planted = tephra_tests::http()
        .post(tephra.url("/api/fn/get_me"))
        .header("cookie", format!("tephra_session={}", ids[0]))
        .send()
        .await?;
    ensure!(planted.status() == 401, "{}", planted.status());
    tephra.stop().await
}

/// The `tephra_session` cookie a response sets, and its attributes are right.
fn session_cookie(answer: &reqwest::Response) -> Option<String> {
    answer
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("tephra_session="))
        .map(|c| {
            assert!(c.contains("HttpOnly"), "{c}");
            assert!(c.contains("SameSite=Lax"), "{c}");
            assert!(!c.contains("Secure"), "http public URL: not Secure ({c})");
            c["tephra_session=".len()..]
                .split(';')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
}

#[tokio::test]
async fn a_tampered_state_is_refused() -> anyhow::Result<()> {
    let Setup {
        provider: _provider,
        tephra,
    } = Setup::start().await?;
    let browser = Browser::default();
    let callback = browser
        .through_provider(&tephra, "/auth/login?next=/", "ada")
        .await?;
    let tampered = replace_param(&callback, "state", "forged-state");
    let answer = browser.get(&tampered).await?;
    ensure!(answer.status() == 400, "{}", answer.status());
    ensure!(answer.text().await?.contains("state"));
    let failures = tephra.db.audit().recent(10).await?;
    ensure!(failures.iter().any(|e| e.action == "auth.sign_in_failed"));
    tephra.stop().await
}

/// Anyone may open the callback URL: one that no sign-in of this browser started is refused
/// with the same page, and writes nothing to the audit trail (each opening would add a row).
#[tokio::test]
async fn a_callback_no_sign_in_started_writes_nothing_to_the_trail() -> anyhow::Result<()> {
    let Setup {
        provider: _provider,
        tephra,
    } = Setup::start().await?;
    let before = tephra.db.audit().recent(10).await?.len();
    let browser = Browser::default();
    for error in ["access_denied", "login_required"] {
        let answer = browser
            .get(&format!("{}/auth/callback?error={error}", tephra.base))
            .await?;
        ensure!(answer.status() == 401, "{}", answer.status());
    }
    let after = tephra.db.audit().recent(10).await?;
    ensure!(after.len() == before, "{after:?}");
    tephra.stop().await
}

#[tokio::test]
async fn a_nonce_other_than_the_one_sent_is_refused() -> anyhow::Result<()> {
    let Setup {
        provider: _provider,
        tephra,
    } = Setup::start().await?;
    let browser = Browser::default();
    let login = browser.get(&tephra.url("/auth/login?next=/")).await?;
    let authorize = replace_param(&location(&login)?, "nonce", "someone-elses-nonce");
    let interaction = browser.follow(&authorize, "http://127.0.0.1:never").await?;
    let callback = browser
        .sign_in_at_provider(&interaction, "ada", &tephra.url("/auth/callback"))
        .await?;
    let answer = browser.get(&callback).await?;
    ensure!(answer.status() == 401, "{}", answer.status());
    ensure!(answer.text().await?.to_lowercase().contains("nonce"));
    tephra.stop().await
}

#[tokio::test]
async fn a_replayed_authorization_code_is_refused() -> anyhow::Result<()> {
    let Setup {
        provider: _provider,
        tephra,
    } = Setup::start().await?;
    let browser = Browser::default();
    let callback = browser
        .through_provider(&tephra, "/auth/login?next=/", "ada")
        .await?;
    ensure!(browser.get(&callback).await?.status().is_redirection());
    // The same answer again: its sign-in is finished.
    let again = browser.get(&callback).await?;
    ensure!(again.status() == 400, "{}", again.status());
    // Even under a fresh sign-in's state, the code was spent (and its PKCE verifier is not this one).
    let login = browser.get(&tephra.url("/auth/login?next=/")).await?;
    let state = param(&location(&login)?, "state").context("state")?;
    let replay = replace_param(&callback, "state", &state);
    let answer = browser.get(&replay).await?;
    ensure!(answer.status() == 401, "{}", answer.status());
    tephra.stop().await
}

#[tokio::test]
async fn only_paths_on_tephra_are_return_targets() -> anyhow::Result<()> {
    let Setup {
        provider: _provider,
        tephra,
    } = Setup::start().await?;
    let browser = Browser::default();
    let callback = browser
        .through_provider(
            &tephra,
            "/auth/login?next=https://evil.example/steal",
            "ada",
        )
        .await?;
    let back = browser.get(&callback).await?;
    ensure!(location(&back)? == "/", "{}", location(&back)?);
    tephra.stop().await
}

#[tokio::test]
async fn a_cross_origin_post_with_the_session_cookie_is_refused() -> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let browser = setup.sign_in("ada").await?;
    let tephra = setup.tephra;
    let body = r#"{"name": "csrf", "projectId": "default", "spec": {"image": "busybox"}}"#;
    let cross = browser
        .http
        .post(tephra.url("/api/v1/workloads/trainings"))
        .header("origin", "https://evil.example")
        .header("content-type", "text/plain")
        .body(body)
        .send()
        .await?;
    ensure!(cross.status() == 403, "{}", cross.status());
    let own = browser
        .http
        .post(tephra.url("/api/v1/workloads/trainings"))
        .header("origin", tephra.base.as_str())
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await?;
    ensure!(
        own.status() == 202,
        "{}: {}",
        own.status(),
        own.text().await?
    );
    tephra.stop().await
}

#[tokio::test]
async fn api_requests_without_a_session_get_401_saying_why() -> anyhow::Result<()> {
    let Setup {
        provider: _provider,
        tephra,
    } = Setup::start().await?;
    let answer = reqwest::get(tephra.url("/api/v1/workloads/trainings?projectId=default")).await?;
    ensure!(answer.status() == 401, "{}", answer.status());
    let body: serde_json::Value = answer.json().await?;
    ensure!(body["code"] == 401, "{body}");
    ensure!(
        body["message"].as_str().unwrap_or("").contains("sign in"),
        "{body}"
    );
    tephra.stop().await
}

#[tokio::test]
async fn an_unreachable_provider_leaves_tephra_running_and_not_ready() -> anyhow::Result<()> {
    let port = tephra_tests::free_port();
    let dead = format!("http://127.0.0.1:{}", tephra_tests::free_port());
    let base = format!("http://127.0.0.1:{port}");
    let tephra = InProcess::start_on(
        &format!("127.0.0.1:{port}"),
        &[
            "--public-url",
            &base,
            "--oidc-issuer",
            &dead,
            "--oidc-client-id",
            "t",
        ],
    )
    .await?;
    let answer = reqwest::get(tephra.url("/readyz")).await?;
    ensure!(answer.status() == 503, "{}", answer.status());
    let body: serde_json::Value = answer.json().await?;
    let reason = body["reason"].as_str().unwrap_or("");
    ensure!(
        reason.contains("identity provider") && !reason.contains(&dead),
        "says what is down, not where it is: {body}"
    );
    ensure!(reqwest::get(tephra.url("/healthz")).await?.status() == 200);
    tephra.stop().await
}

#[tokio::test]
async fn sessions_survive_a_restart_on_postgresql() -> anyhow::Result<()> {
    let pg = tephra_tests::postgres::TempPostgres::start()?;
    let url = pg.url();
    let setup = Setup::start_with(&["--database-url", &url]).await?;
    let browser = setup.sign_in("ada").await?;
    me(&browser, &setup.tephra).await?;
    let base = setup.tephra.base.clone();
    setup.tephra.stop().await?;
    let again = start_tephra(&base, &setup.provider.issuer, &["--database-url", &url]).await?;
    let principal = me(&browser, &again).await?;
    ensure!(principal["subject"] == "ada-0001", "{principal}");
    again.stop().await
}
