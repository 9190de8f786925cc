//! Headless Chromium driven through chromedriver (both from Debian), one browser per test.

use crate::process::Guarded;
use anyhow::Context;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use std::process::{Command, Stdio};
use std::time::Duration;

pub struct Browser {
    pub client: Client,
    _driver: Guarded,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub async fn start() -> anyhow::Result<Self> {
        let port = crate::free_port();
        let driver = Command::new(
            std::env::var("TEPHRA_CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into()),
        )
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start chromedriver (install chromium-driver, or run scripts/setup)")?;
        let driver = Guarded::new("chromedriver", driver);
        let url = format!("http://127.0.0.1:{port}");
        crate::wait_for(
            "chromedriver to listen",
            Duration::from_secs(20),
            || async {
                std::net::TcpStream::connect(("127.0.0.1", port))
                    .ok()
                    .map(|_| ())
            },
        )
        .await?;

        let profile = tempfile::Builder::new()
            .prefix("tephra-chromium-")
            .tempdir()?;
        let binary =
            std::env::var("TEPHRA_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--window-size=1280,900".to_owned(),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".to_owned(),
            serde_json::json!({ "binary": binary, "args": args }),
        );
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&url)
            .await
            .context("cannot open a Chromium session through chromedriver")?;
        Ok(Browser {
            client,
            _driver: driver,
            _profile: profile,
        })
    }

    /// Ends the browser session; the driver stops when the guard drops.
    pub async fn close(self) -> anyhow::Result<()> {
        self.client.close().await?;
        Ok(())
    }
}
