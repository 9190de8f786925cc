//! What the end-to-end tests start for real: PostgreSQL clusters, the release `tephra` binary (or
//! the server in-process), and Chromium through chromedriver. Everything listens on 127.0.0.1 and
//! is stopped when its guard is dropped, including when a test panics.

pub mod axe;
pub mod bench;
pub mod browser;
pub mod chart;
pub mod counting;
pub mod crd_schema;
pub mod in_process;
pub mod index_load;
pub mod oidc;
pub mod postgres;
pub mod process;
pub mod service_account;
pub mod sse;
pub mod sse_load;
pub mod tephra;
pub mod testbed;
pub mod workspace;

/// Polls `check` until it returns `Some`, or fails with `what` after `timeout`.
pub async fn wait_for<T, F, Fut>(
    what: &str,
    timeout: std::time::Duration,
    mut check: F,
) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return Ok(value);
        }
        if tokio::time::Instant::now() >= deadline {
            anyhow::bail!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A TCP port that was free a moment ago, for programs that must be told their port up front.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("the loopback interface accepts listeners")
}

/// How long a test waits for one HTTP answer before it fails: a server that stops answering
/// fails its test instead of holding the whole suite until CI's limit.
pub const HTTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// An HTTP client for tests, with [`HTTP_TIMEOUT`] on every request.
pub fn http() -> reqwest::Client {
    http_builder().build().expect("the test HTTP client builds")
}

/// A builder for a test HTTP client, with [`HTTP_TIMEOUT`] already set.
pub fn http_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().timeout(HTTP_TIMEOUT)
}
