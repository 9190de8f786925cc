//! Headless Chromium driven through chromedriver (both from Debian), one browser per test.

use crate::process::Guarded;
use anyhow::Context;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use std::process::{Command, Stdio};
use std::time::Duration;

pub struct Browser {
    pub client: Client,
    _driver: Guarded,
    profile: tempfile::TempDir,
}

impl Browser {
    pub async fn start() -> anyhow::Result<Self> {
        Self::start_with(&[]).await
    }

    /// A browser whose system prefers dark colours (`prefers-color-scheme: dark`).
    pub async fn start_dark() -> anyhow::Result<Self> {
        Self::start_with(&["--force-dark-mode"]).await
    }

    pub async fn start_with(extra_args: &[&str]) -> anyhow::Result<Self> {
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
        let mut args = vec![
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
        args.extend(extra_args.iter().map(|a| (*a).to_owned()));
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
            profile,
        })
    }

    /// Ends the browser session; the driver stops when the guard drops.
    pub async fn close(self) -> anyhow::Result<()> {
        self.client.clone().close().await?;
        Ok(())
    }
}

impl Drop for Browser {
    /// A test that failed before `close` leaves the session open, and chromedriver, stopped,
    /// leaves its Chromium running: find that Chromium by its own profile directory and end it.
    fn drop(&mut self) {
        crate::process::kill_all_with(&self.profile.path().display().to_string());
    }
}

impl Browser {
    /// Opens `url` and waits until the WebAssembly app has hydrated it.
    pub async fn open(&self, url: &str) -> anyhow::Result<()> {
        self.client.goto(url).await?;
        self.hydrated().await
    }

    pub async fn hydrated(&self) -> anyhow::Result<()> {
        let c = &self.client;
        // Generous: CI runs the browser tests in parallel on 2 cores, each with its own Chromium
        // and release server, and a 30 s wait once timed out there (issue 13's fresh-clone run).
        let waited = crate::wait_for("the page to hydrate", Duration::from_secs(90), || async {
            c.find(Locator::Css("body[data-hydrated=true]"))
                .await
                .ok()
                .map(|_| ())
        })
        .await;
        match waited {
            Ok(()) => Ok(()),
            // A page that never hydrates has failed in one of a few ways (the bundle never
            // arrived, it arrived and panicked, the server stalled): say which.
            Err(e) => Err(e.context(self.load_report().await)),
        }
    }

    /// Where the page's loading stands: the document's state and every resource with its
    /// duration and size (a missing or unfinished wasm fetch shows here).
    async fn load_report(&self) -> String {
        let script = "return document.readyState + ' ' + location.pathname + '; resources: ' + \
            performance.getEntriesByType('resource').map(r => r.name.replace(location.origin, '') \
            + ' ' + Math.round(r.duration) + 'ms ' + r.transferSize + 'B').join(', ')";
        match self.client.execute(script, vec![]).await {
            Ok(value) => value.as_str().unwrap_or_default().to_owned(),
            Err(e) => format!("the page did not answer: {e}"),
        }
    }

    /// Replaces the text of the input with this id, as typing would.
    /// Waits until the new-training form is drawn as it stands: no pause in typing is pending
    /// and no answer from the server is awaited (`data-form-busy` on `<body>`). A page without
    /// the form is always settled.
    pub async fn settled(&self) -> anyhow::Result<()> {
        let c = &self.client;
        crate::wait_for("the form to settle", Duration::from_secs(30), || async {
            c.find(Locator::Css("body:not([data-form-busy])"))
                .await
                .ok()
                .map(|_| ())
        })
        .await
    }

    pub async fn fill(&self, id: &str, text: &str) -> anyhow::Result<()> {
        self.settled().await?;
        let input = self
            .client
            .find(Locator::Id(id))
            .await
            .with_context(|| format!("no input #{id}"))?;
        input.clear().await?;
        input.send_keys(text).await?;
        Ok(())
    }

    /// Picks the option with this value in the select with this id.
    pub async fn select(&self, id: &str, value: &str) -> anyhow::Result<()> {
        self.settled().await?;
        let select = self
            .client
            .find(Locator::Id(id))
            .await
            .with_context(|| format!("no select #{id}"))?;
        select.select_by_value(value).await?;
        Ok(())
    }

    pub async fn click(&self, css: &str) -> anyhow::Result<()> {
        self.settled().await?;
        let element = self
            .client
            .find(Locator::Css(css))
            .await
            .with_context(|| format!("nothing matches {css}"))?;
        element.click().await?;
        Ok(())
    }

    /// The text of the first element matching `css`, once there is one.
    pub async fn text_of(&self, css: &str, timeout: Duration) -> anyhow::Result<String> {
        let c = &self.client;
        crate::wait_for(&format!("an element {css}"), timeout, || async {
            let e = c.find(Locator::Css(css)).await.ok()?;
            e.text().await.ok()
        })
        .await
    }

    /// Waits until an element matching `css` has text containing `expected`.
    pub async fn wait_text(
        &self,
        css: &str,
        expected: &str,
        timeout: Duration,
    ) -> anyhow::Result<String> {
        let c = &self.client;
        crate::wait_for(&format!("{css} to say {expected:?}"), timeout, || async {
            let e = c.find(Locator::Css(css)).await.ok()?;
            let text = e.text().await.ok()?;
            text.contains(expected).then_some(text)
        })
        .await
    }

    /// Waits until an element matches `css`.
    pub async fn wait_for(&self, css: &str, timeout: Duration) -> anyhow::Result<()> {
        let c = &self.client;
        crate::wait_for(&format!("an element {css}"), timeout, || async {
            c.find(Locator::Css(css)).await.ok().map(|_| ())
        })
        .await
    }

    /// Marks the open page, so [`Browser::reloaded`] tells whether it was loaded again since.
    pub async fn mark_page(&self) -> anyhow::Result<()> {
        self.client
            .execute("window.__tephraNoReload = true", vec![])
            .await?;
        Ok(())
    }

    /// Whether the page was loaded again since [`Browser::mark_page`].
    pub async fn reloaded(&self) -> anyhow::Result<bool> {
        let marked = self
            .client
            .execute("return window.__tephraNoReload === true", vec![])
            .await?;
        Ok(marked != serde_json::Value::Bool(true))
    }

    /// Waits until no element matches `css`.
    pub async fn wait_gone(&self, css: &str, timeout: Duration) -> anyhow::Result<()> {
        let c = &self.client;
        crate::wait_for(&format!("no element {css}"), timeout, || async {
            c.find_all(Locator::Css(css))
                .await
                .ok()
                .filter(|found| found.is_empty())
                .map(|_| ())
        })
        .await
    }

    /// Saves a screenshot under the test artifacts as `<name>.png`.
    pub async fn screenshot(&self, name: &str) -> anyhow::Result<()> {
        let png = self.client.screenshot().await?;
        let path = crate::workspace::artifacts_dir("screenshots").join(format!("{name}.png"));
        std::fs::write(&path, png)?;
        eprintln!("screenshot: {}", path.display());
        Ok(())
    }
}
