//! Sign-in with a real OpenID provider (`oidc-provider` from npm, tests/oidc): the whole
//! authorization-code flow as a browser makes it, over HTTP with a cookie jar, and every way it
//! must refuse. Tokens are forged only where a test must show a bad one is refused, and then with
//! the provider's own key (`/__test/sign`). This file holds the harness (the provider, Tephra in
//! the process, a browser with a cookie jar); the flow's own stories are in `sign_in`.

mod app_bounds;
mod applications;
mod expiry;
mod exposed;
mod forged;
mod identity;
mod matrix;
mod org_forms;
mod sign_in;
mod streams;
mod tenant_lists;
mod training_form;
mod waiting;
mod world;

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
