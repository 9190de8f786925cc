//! A real OpenID provider per test: the npm package `oidc-provider` (installed by `scripts/setup`)
//! run by `node tests/oidc/provider.cjs` on a free loopback port, with the clients and users the
//! test names. It is stopped when the guard is dropped, and it also exits by itself when its stdin
//! closes, so a test process that dies without unwinding never leaves one behind.
//!
//! What the provider offers (interaction pages, scopes, `/__test/sign`) is described in
//! `tests/oidc/README.md`. Like PostgreSQL, a missing provider fails the test with instructions
//! rather than skipping it.

use crate::process::Guarded;
use anyhow::{Context, bail};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// How long the provider may take to print its issuer (Node starts in well under a second).
const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// A user who can sign in by typing `login` on the provider's login page (no password).
#[derive(Clone, Debug)]
pub struct OidcUser {
    pub login: String,
    pub sub: String,
    pub name: String,
    pub email: String,
    /// Released as `email_verified`: `false` for an address the provider never checked.
    pub email_verified: bool,
    /// Released as the `groups` claim under the `groups` scope.
    pub groups: Vec<String>,
    /// Released as the `uid` and `gid` claims under the `posix` scope (left out when `None`).
    pub uid: Option<u32>,
    pub gid: Option<u32>,
}

/// A registered client. It authenticates at the token endpoint with `client_secret_basic`.
#[derive(Clone, Debug)]
pub struct OidcClient {
    pub client_id: String,
    pub client_secret: String,
    pub redirect_uris: Vec<String>,
    pub post_logout_redirect_uris: Vec<String>,
    /// Also allows the `client_credentials` grant (machine tokens for the API).
    pub client_credentials: bool,
}

pub struct OidcProvider {
    /// `http://127.0.0.1:<port>`; discovery is at `<issuer>/.well-known/openid-configuration`.
    pub issuer: String,
    /// The `aud` of the provider's JWT access tokens, and the `resource` to ask for them with.
    pub access_token_audience: String,
    process: Guarded,
    /// Held open for the provider's lifetime: EOF tells it to exit.
    stdin: Option<ChildStdin>,
    _dir: tempfile::TempDir,
}

impl OidcProvider {
    /// Starts a provider for these clients and users. Its JWT access tokens are for
    /// `access_token_audience`, which must be an absolute URI (e.g. `urn:tephra:api`) because it
    /// doubles as the RFC 8707 resource indicator.
    pub fn start(
        clients: &[OidcClient],
        users: &[OidcUser],
        access_token_audience: &str,
    ) -> anyhow::Result<Self> {
        let node_modules = node_modules_dir();
        if !node_modules.join("oidc-provider/package.json").exists() {
            bail!(
                "the npm package oidc-provider is not installed in {} (run scripts/setup, or set \
                 TEPHRA_NODE_MODULES to the node_modules directory that has it)",
                node_modules.display()
            );
        }
        let script = crate::workspace::root().join("tests/oidc/provider.cjs");

        let dir = tempfile::Builder::new().prefix("tephra-oidc-").tempdir()?;
        let config = dir.path().join("config.json");
        std::fs::write(
            &config,
            serde_json::to_vec_pretty(&config_json(clients, users, access_token_audience))?,
        )?;

        let mut child = Command::new("node")
            .arg(&script)
            .arg(&config)
            .env("NODE_PATH", &node_modules)
            .env("TEPHRA_NODE_MODULES", &node_modules)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context(
                "cannot run `node` for the OpenID provider (Node.js 20 must be on PATH; \
                 scripts/setup installs the npm packages)",
            )?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut process = Guarded::new("oidc-provider", child);

        // The provider only writes to stderr when something is wrong: keep it for the startup
        // error message and pass it on to the test's output.
        let stderr_text = Arc::new(Mutex::new(String::new()));
        let stderr_thread = {
            let stderr_text = Arc::clone(&stderr_text);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    eprintln!("oidc-provider: {line}");
                    let mut text = stderr_text.lock().expect("stderr buffer");
                    text.push_str(&line);
                    text.push('\n');
                }
            })
        };

        // The first stdout line is the readiness signal; reading it on a thread gives a timeout.
        let (ready_tx, ready_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = ready_tx.send(lines.next());
            // Keep draining so the provider can never block on a full pipe.
            for _ in lines {}
        });

        let failure = match ready_rx.recv_timeout(READY_TIMEOUT) {
            Ok(Some(Ok(line))) => match issuer_from(&line) {
                Ok(issuer) => {
                    return Ok(OidcProvider {
                        issuer,
                        access_token_audience: access_token_audience.to_string(),
                        process,
                        stdin,
                        _dir: dir,
                    });
                }
                Err(err) => format!("{err:#}"),
            },
            Ok(Some(Err(err))) => format!("cannot read its stdout: {err}"),
            Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                "it exited before it was ready".to_string()
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                format!("it did not print its issuer within {READY_TIMEOUT:?}")
            }
        };
        process.kill();
        let _ = stderr_thread.join();
        let captured = stderr_text.lock().expect("stderr buffer").clone();
        bail!(
            "the OpenID provider ({}) failed to start: {failure}\nits stderr:\n{captured}\
             (if node or oidc-provider is missing, run scripts/setup)",
            script.display()
        )
    }

    /// Signs a JWT with the provider's own key via its test-only `/__test/sign` endpoint, for
    /// forging expired, wrong-audience or tampered tokens. `header` overrides the default header
    /// `{"alg":"RS256","typ":"at+jwt","kid":<the provider's kid>}` (a `null` member removes it;
    /// `"alg":"none"` gives an unsigned token); `claims` is the payload, used as given.
    pub async fn sign(&self, header: Value, claims: Value) -> anyhow::Result<String> {
        let response = crate::http()
            .post(format!("{}/__test/sign", self.issuer))
            .json(&json!({ "header": header, "claims": claims }))
            .send()
            .await
            .context("cannot reach the OpenID provider's /__test/sign")?;
        let status = response.status();
        let body: Value = response.json().await?;
        if !status.is_success() {
            bail!("/__test/sign answered {status}: {body}");
        }
        body["jwt"]
            .as_str()
            .map(str::to_string)
            .with_context(|| format!("/__test/sign answered without a jwt: {body}"))
    }

    /// Rotates the provider's signing key through its test-only `/__test/rotate`: a new key with
    /// a new `kid` is published beside the old one and [`Self::sign`] signs with it from now on.
    /// Returns the new `kid`.
    pub async fn rotate_key(&self) -> anyhow::Result<String> {
        let response = crate::http()
            .post(format!("{}/__test/rotate", self.issuer))
            .send()
            .await
            .context("cannot reach the OpenID provider's /__test/rotate")?;
        let status = response.status();
        let body: Value = response.json().await?;
        if !status.is_success() {
            bail!("/__test/rotate answered {status}: {body}");
        }
        body["kid"]
            .as_str()
            .map(str::to_string)
            .with_context(|| format!("/__test/rotate answered without a kid: {body}"))
    }

    /// A provider-issued JWT access token for the API audience, from the `client_credentials`
    /// grant (the client must have `client_credentials: true`).
    pub async fn client_credentials_token(&self, client: &OidcClient) -> anyhow::Result<String> {
        let response = crate::http()
            .post(format!("{}/token", self.issuer))
            .basic_auth(&client.client_id, Some(&client.client_secret))
            .form(&[
                ("grant_type", "client_credentials"),
                ("resource", self.access_token_audience.as_str()),
            ])
            .send()
            .await
            .context("cannot reach the OpenID provider's token endpoint")?;
        let status = response.status();
        let body: Value = response.json().await?;
        if !status.is_success() {
            bail!("the token endpoint answered {status}: {body}");
        }
        body["access_token"]
            .as_str()
            .map(str::to_string)
            .with_context(|| format!("the token endpoint answered without an access_token: {body}"))
    }
}

impl Drop for OidcProvider {
    fn drop(&mut self) {
        // The provider keeps nothing worth a graceful shutdown: close its stdin, kill and reap it.
        drop(self.stdin.take());
        self.process.kill();
    }
}

/// Where `scripts/setup` installs npm packages: `TEPHRA_NODE_MODULES`, else
/// `$TEPHRA_CACHE/node/node_modules`, else `~/.cache/tephra/node/node_modules`.
fn node_modules_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TEPHRA_NODE_MODULES") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("TEPHRA_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/tephra")
        });
    cache.join("node/node_modules")
}

/// The configuration file `provider.cjs` reads (its format is in tests/oidc/README.md).
fn config_json(clients: &[OidcClient], users: &[OidcUser], audience: &str) -> Value {
    let clients: Vec<Value> = clients
        .iter()
        .map(|c| {
            let mut grant_types = vec!["authorization_code"];
            if c.client_credentials {
                grant_types.push("client_credentials");
            }
            json!({
                "client_id": c.client_id,
                "client_secret": c.client_secret,
                "redirect_uris": c.redirect_uris,
                "post_logout_redirect_uris": c.post_logout_redirect_uris,
                "grant_types": grant_types,
            })
        })
        .collect();
    let users: Vec<Value> = users
        .iter()
        .map(|u| {
            json!({
                "login": u.login,
                "sub": u.sub,
                "name": u.name,
                "email": u.email,
                "emailVerified": u.email_verified,
                "groups": u.groups,
                "uid": u.uid,
                "gid": u.gid,
            })
        })
        .collect();
    json!({
        "port": 0,
        "clients": clients,
        "users": users,
        "accessTokenAudience": audience,
    })
}

/// Parses the ready line, `{"issuer":"http://127.0.0.1:<port>"}`.
fn issuer_from(line: &str) -> anyhow::Result<String> {
    let value: Value = serde_json::from_str(line)
        .with_context(|| format!("its first line is not the ready line: {line:?}"))?;
    value["issuer"]
        .as_str()
        .map(str::to_string)
        .with_context(|| format!("its ready line has no issuer: {line:?}"))
}
