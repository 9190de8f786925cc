//! Sign-in with a real OpenID provider (`oidc-provider` from npm, tests/oidc): the whole
//! authorization-code flow as a browser makes it, over HTTP with a cookie jar, and every way it
//! must refuse. Tokens are forged only where a test must show a bad one is refused, and then with
//! the provider's own key (`/__test/sign`).

mod app_bounds;
mod applications;
mod expiry;
mod exposed;
mod forged;
mod identity;
mod matrix;
mod org_forms;
mod streams;
mod tenant_lists;
mod training_form;
mod waiting;

use anyhow::{Context, bail, ensure};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, LOCATION};
use tephra_tests::in_process::InProcess;
use tephra_tests::oidc::{OidcClient, OidcProvider, OidcUser};

pub const CLIENT_ID: &str = "tephra";
pub const CLIENT_SECRET: &str = "tephra-test-secret";
pub const API_AUDIENCE: &str = "urn:tephra:api";

pub fn ada() -> OidcUser {
    OidcUser {
        login: "ada".into(),
        sub: "ada-0001".into(),
        name: "Ada Lovelace".into(),
        email: "ada@example.org".into(),
        email_verified: true,
        groups: vec!["ml-team".into(), "tephra-admins".into()],
        uid: Some(1000),
        gid: Some(2000),
    }
}

/// Someone known only by login and groups: subject `<login>-sub`, e-mail `<login>@example.org`.
pub fn user(login: &str, groups: &[&str]) -> OidcUser {
    OidcUser {
        login: login.into(),
        sub: format!("{login}-sub"),
        name: format!("User {login}"),
        email: format!("{login}@example.org"),
        email_verified: true,
        groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        uid: None,
        gid: None,
    }
}

pub fn grace() -> OidcUser {
    OidcUser {
        login: "grace".into(),
        sub: "grace-0002".into(),
        name: "Grace Hopper".into(),
        email: "grace@example.org".into(),
        email_verified: true,
        groups: vec!["ml-team".into()],
        uid: None,
        gid: None,
    }
}

/// A provider and a Tephra that signs in with it.
pub struct Setup {
    pub provider: OidcProvider,
    pub tephra: InProcess,
}

impl Setup {
    async fn start() -> anyhow::Result<Self> {
        Self::start_with(&[]).await
    }

    async fn start_with(extra: &[&str]) -> anyhow::Result<Self> {
        Self::start_for(&[ada(), grace()], extra).await
    }

    /// A provider that knows `users`, and Tephra with `extra` settings.
    pub async fn start_for(users: &[OidcUser], extra: &[&str]) -> anyhow::Result<Self> {
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
            users,
            API_AUDIENCE,
        )?;
        let tephra = start_tephra(&base, &provider.issuer, extra).await?;
        Ok(Setup { provider, tephra })
    }

    /// A browser with `login` signed in.
    pub async fn sign_in(&self, login: &str) -> anyhow::Result<Browser> {
        let browser = Browser::default();
        let callback = browser
            .through_provider(&self.tephra, "/auth/login?next=/", login)
            .await?;
        let back = browser.get(&callback).await?;
        ensure!(
            back.status().is_redirection(),
            "the callback answered {}",
            back.status()
        );
        Ok(browser)
    }
}

/// Tephra at `base` (`http://127.0.0.1:PORT`) signing in with `issuer`, once it is ready.
pub async fn start_tephra(base: &str, issuer: &str, extra: &[&str]) -> anyhow::Result<InProcess> {
    let mut args = vec![
        "--public-url",
        base,
        "--oidc-issuer",
        issuer,
        "--oidc-client-id",
        CLIENT_ID,
        "--oidc-client-secret",
        CLIENT_SECRET,
        "--oidc-scopes",
        "profile,email,groups,posix",
        "--oidc-uid-claim",
        "uid",
        "--oidc-gid-claim",
        "gid",
        "--admin-groups",
        "tephra-admins",
    ];
    args.extend_from_slice(extra);
    let tephra = InProcess::start_on(base.trim_start_matches("http://"), &args).await?;
    wait_ready(&tephra).await?;
    Ok(tephra)
}

/// `/readyz` turns ready once the provider has been discovered.
async fn wait_ready(tephra: &InProcess) -> anyhow::Result<()> {
    let url = tephra.url("/readyz");
    tephra_tests::wait_for("readiness", std::time::Duration::from_secs(20), || async {
        let answer = reqwest::get(&url).await.ok()?;
        (answer.status() == StatusCode::OK).then_some(())
    })
    .await
}

/// A browser: a cookie jar, no automatic redirects, and pages asked for as HTML.
pub struct Browser {
    pub http: reqwest::Client,
}

impl Default for Browser {
    fn default() -> Self {
        Browser {
            http: tephra_tests::http_builder()
                .cookie_store(true)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a client"),
        }
    }
}

impl Browser {
    pub async fn get(&self, url: &str) -> anyhow::Result<reqwest::Response> {
        Ok(self
            .http
            .get(url)
            .header(ACCEPT, "text/html,application/xhtml+xml")
            .send()
            .await?)
    }

    /// Follows redirects from `url` until one leads to a URL starting with `stop` (not fetched),
    /// or a page answers without redirecting; returns that URL or the final response's URL.
    pub async fn follow(&self, url: &str, stop: &str) -> anyhow::Result<String> {
        let mut url = url.to_owned();
        for _ in 0..10 {
            if url.starts_with(stop) {
                return Ok(url);
            }
            let answer = self.get(&url).await?;
            if !answer.status().is_redirection() {
                return Ok(url);
            }
            let next = location(&answer)?;
            url = absolute(&url, &next);
        }
        bail!("more than 10 redirects from {url}")
    }

    /// On the provider's login page at `interaction`, signs in as `login`; returns where the
    /// provider sends the browser back (Tephra's callback URL, not fetched).
    pub async fn sign_in_at_provider(
        &self,
        interaction: &str,
        login: &str,
        callback_prefix: &str,
    ) -> anyhow::Result<String> {
        let form = self.get(interaction).await?;
        ensure!(
            form.status() == 200,
            "the login page answered {}",
            form.status()
        );
        let answer = self
            .http
            .post(format!("{interaction}/login"))
            .form(&[("login", login)])
            .send()
            .await?;
        ensure!(
            answer.status().is_redirection(),
            "signing in answered {}: {}",
            answer.status(),
            answer.text().await?
        );
        let next = absolute(interaction, &location(&answer)?);
        self.follow(&next, callback_prefix).await
    }

    /// The whole sign-in from a page of Tephra: returns the callback URL the provider sent back.
    pub async fn through_provider(
        &self,
        tephra: &InProcess,
        start: &str,
        login: &str,
    ) -> anyhow::Result<String> {
        let interaction = self
            .follow(&tephra.url(start), "http://127.0.0.1:never")
            .await?;
        ensure!(
            interaction.contains("/interaction/"),
            "expected the provider's login page, got {interaction}"
        );
        self.sign_in_at_provider(&interaction, login, &tephra.url("/auth/callback"))
            .await
    }
}

pub fn location(answer: &reqwest::Response) -> anyhow::Result<String> {
    Ok(answer
        .headers()
        .get(LOCATION)
        .context("a redirect without Location")?
        .to_str()?
        .to_owned())
}

/// `next` resolved against `base` (redirects may be relative).
pub fn absolute(base: &str, next: &str) -> String {
    if next.starts_with("http://") || next.starts_with("https://") {
        return next.to_owned();
    }
    let origin_end = base
        .find("://")
        .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j))
        .unwrap_or(base.len());
    format!("{}{next}", &base[..origin_end])
}

async fn me(browser: &Browser, tephra: &InProcess) -> anyhow::Result<serde_json::Value> {
    let answer = browser
        .http
        .post(tephra.url("/api/fn/get_me"))
        .header("origin", tephra.base.as_str())
        .header(ACCEPT, "application/json")
        .send()
        .await?;
    let status = answer.status();
    let body: serde_json::Value = answer.json().await.unwrap_or_default();
    ensure!(status == 200, "get_me answered {status}: {body}");
    Ok(body)
}

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

pub fn param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| v.to_owned())
    })
}

pub fn replace_param(url: &str, name: &str, value: &str) -> String {
    let Some((base, query)) = url.split_once('?') else {
        return url.to_owned();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if k == name => format!("{k}={value}"),
            _ => pair.to_owned(),
        })
        .collect();
    format!("{base}?{}", pairs.join("&"))
}
