//! The release `tephra` binary and its site, started as a user would start it.

use crate::process::Guarded;
use crate::workspace;
use anyhow::{Context, bail};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// How many of the server's last warnings and errors a test keeps to explain its failure.
const KEPT_WARNINGS: usize = 40;

/// A running release server with its own data directory.
pub struct TephraServer {
    pub addr: SocketAddr,
    /// From spawning the process to the "ready" log line.
    pub started_in: Duration,
    pub process: Guarded,
    warnings: Arc<Mutex<VecDeque<String>>>,
    _data: Option<tempfile::TempDir>,
}

impl TephraServer {
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The server's last warnings and errors, one log line each: what a test that timed out
    /// waiting for the server says about why.
    pub fn warnings(&self) -> String {
        let kept = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
        if kept.is_empty() {
            "the server logged no warning or error".to_owned()
        } else {
            let lines: Vec<&str> = kept.iter().map(String::as_str).collect();
            format!(
                "the server's last warnings and errors:\n{}",
                lines.join("\n")
            )
        }
    }
}

/// Whether a JSON log line is a warning or an error.
fn is_warning(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()
        .and_then(|event| {
            event
                .get("level")?
                .as_str()
                .map(|l| l == "WARN" || l == "ERROR")
        })
        .unwrap_or(false)
}

/// The release server: `TEPHRA_BIN` when set, else the static (musl) build's
/// `<target dir>/x86_64-unknown-linux-musl/release/tephra` (scripts/env.sh `build_release`): the
/// binary the container image ships.
pub fn release_binary() -> anyhow::Result<PathBuf> {
    let bin = match std::env::var_os("TEPHRA_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => workspace::target_dir().join("x86_64-unknown-linux-musl/release/tephra"),
    };
    if !bin.exists() {
        bail!(
            "{} is missing: build it with `cargo leptos build --release --split` (scripts/test does)",
            bin.display()
        );
    }
    Ok(bin)
}

/// The built site, checked for its WASM bundle: `TEPHRA_SITE_ROOT` when set, else
/// `<workspace>/target/site`.
pub fn site_root() -> anyhow::Result<PathBuf> {
    let site = site_dir();
    if !site.join("pkg/tephra.wasm").exists() {
        bail!(
            "{} has no WASM bundle: build it with `cargo leptos build --release --split` (scripts/test does)",
            site.display()
        );
    }
    Ok(site)
}

fn site_dir() -> PathBuf {
    match std::env::var_os("TEPHRA_SITE_ROOT") {
        Some(dir) => PathBuf::from(dir),
        None => workspace::root().join("target/site"),
    }
}

/// Starts the release server on a free port with a fresh SQLite database, and waits for the log
/// line that says it is ready.
pub fn start_release() -> anyhow::Result<TephraServer> {
    Launch::default().start()
}

/// How to start the release server: extra flags and variables, and a data directory that
/// outlives the process (to restart it on the same database).
#[derive(Debug, Clone, Default)]
pub struct Launch {
    args: Vec<String>,
    env: Vec<(String, String)>,
    data_dir: Option<PathBuf>,
    api_only: bool,
    /// `IP:PORT` to listen on; a free port by default.
    addr: Option<String>,
    /// The site to serve instead of the built one (e.g. a copy with a file missing).
    site_root: Option<PathBuf>,
}

impl Launch {
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn env(mut self, key: &str, value: impl Into<String>) -> Self {
        self.env.push((key.to_owned(), value.into()));
        self
    }

    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// Listens on `addr` (a port chosen beforehand, when the public URL must name it).
    pub fn addr(mut self, addr: impl Into<String>) -> Self {
        self.addr = Some(addr.into());
        self
    }

    /// Serves the site at `dir` (a copy of [`site_root`], changed by the test).
    pub fn site_root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.site_root = Some(dir.into());
        self
    }

    /// Starts without a WASM bundle (pages will not hydrate, the API is whole), for programs
    /// that only call the API and should not need `cargo leptos build`.
    pub fn api_only(mut self) -> Self {
        self.api_only = true;
        self
    }

    pub fn start(&self) -> anyhow::Result<TephraServer> {
        let (data, dir) = match &self.data_dir {
            Some(dir) => (None, dir.clone()),
            None => {
                let tmp = tempfile::Builder::new().prefix("tephra-data-").tempdir()?;
                let dir = tmp.path().to_path_buf();
                (Some(tmp), dir)
            }
        };
        let site = match &self.site_root {
            Some(dir) => dir.clone(),
            None if self.api_only => site_dir(),
            None => site_root()?,
        };
        let started = Instant::now();
        let mut command = Command::new(release_binary()?);
        command
            .args(["serve", "--log-format", "json", "--addr"])
            .arg(self.addr.as_deref().unwrap_or("127.0.0.1:0"))
            .arg("--data-dir")
            .arg(&dir)
            .arg("--site-root")
            .arg(site)
            .args(&self.args)
            .env_remove("TEPHRA_DATABASE_URL")
            .env_remove("KUBECONFIG")
            .env_remove("TEPHRA_KUBECONFIG");
        for (key, value) in &self.env {
            command.env(key, value);
        }
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot start the release server")?;
        let stderr = child.stderr.take().context("stderr is piped")?;
        let process = Guarded::new("tephra", child);

        // Read the log on a thread: it keeps draining after startup, so the server never blocks
        // on a full pipe.
        let (tx, rx) = mpsc::channel::<String>();
        let warnings = Arc::new(Mutex::new(VecDeque::new()));
        let kept = Arc::clone(&warnings);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if std::env::var_os("TEPHRA_TEST_SERVER_LOG").is_some() {
                    eprintln!("[tephra] {line}");
                }
                if is_warning(&line) {
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    if kept.len() == KEPT_WARNINGS {
                        kept.pop_front();
                    }
                    kept.push_back(line.clone());
                }
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    if let Some(addr) = ready_addr(&line) {
                        return Ok(TephraServer {
                            addr,
                            started_in: started.elapsed(),
                            process,
                            warnings,
                            _data: data,
                        });
                    }
                    seen.push(line);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        bail!(
            "the server did not become ready; its log:\n{}",
            seen.join("\n")
        )
    }
}

fn ready_addr(line: &str) -> Option<SocketAddr> {
    let event: serde_json::Value = serde_json::from_str(line).ok()?;
    if event.get("message")?.as_str()? != "tephra is ready" {
        return None;
    }
    event.get("addr")?.as_str()?.parse().ok()
}
