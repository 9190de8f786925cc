//! Tephra started inside the test process on a free loopback port, with no cluster and a fresh
//! data directory: quicker than the release binary, and it needs no built site for API tests.

use anyhow::Context;
use clap::Parser;
use server::Application;
use server::config::{Cli, Command};
use std::time::Duration;
use tokio::sync::oneshot;

pub struct InProcess {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    pub db: server::db::Database,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
    _data: tempfile::TempDir,
}

impl InProcess {
    /// Starts `tephra serve` with `extra` flags (e.g. `--database-url`) on 127.0.0.1:0.
    pub async fn start(extra: &[&str]) -> anyhow::Result<Self> {
        Self::start_on("127.0.0.1:0", extra).await
    }

    /// Starts `tephra serve` listening on `addr` (a port chosen beforehand, when the public URL
    /// must name it).
    pub async fn start_on(addr: &str, extra: &[&str]) -> anyhow::Result<Self> {
        let data = tempfile::Builder::new().prefix("tephra-data-").tempdir()?;
        let dir = data.path().to_str().context("temporary paths are UTF-8")?;
        let args = ["tephra", "serve", "--addr", addr, "--data-dir", dir];
        let cli = Cli::try_parse_from(args.iter().chain(extra))?;
        let Command::Serve(args) = cli.into_command() else {
            anyhow::bail!("`tephra serve` parses as the serve command");
        };
        let app = Application::build(&args).await?;
        let base = format!("http://{}", app.local_addr());
        let db = app.database().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(app.run_until(async {
            let _ = stopped.await;
        }));
        Ok(InProcess {
            base,
            db,
            stop: Some(stop),
            task,
            _data: data,
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Stops the server and waits for it to finish its open requests.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(30), &mut self.task)
            .await
            .context("the server did not stop within 30 seconds")??
    }
}
