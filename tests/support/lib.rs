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
///
/// Taken below the kernel's ephemeral range, where the ports of outgoing connections and of
/// listeners on port 0 come from: a port from that range could be taken by a client socket
/// between this check and its use (CI once failed a test with "Address already in use"). One
/// process never hands out the same port twice, and processes start at different places.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 10_000;
    static HANDED_OUT: AtomicU32 = AtomicU32::new(0);
    let below = ephemeral_range_start()
        .map_or(32_768, u32::from)
        .max(FIRST + 1);
    let span = below - FIRST;
    let start = std::process::id().wrapping_mul(7_919) % span;
    for _ in 0..span {
        let n = HANDED_OUT.fetch_add(1, Ordering::Relaxed);
        let port = u16::try_from(FIRST + (start + n) % span).expect("below the ephemeral range");
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port on the loopback interface below {below}")
}

/// The first port of the kernel's ephemeral range (`net.ipv4.ip_local_port_range`).
fn ephemeral_range_start() -> Option<u16> {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
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

#[cfg(test)]
mod tests {
    #[test]
    fn free_ports_are_below_the_ephemeral_range_and_never_handed_out_twice() {
        let below = super::ephemeral_range_start().unwrap_or(32_768);
        let ports: std::collections::BTreeSet<u16> = (0..50).map(|_| super::free_port()).collect();
        assert_eq!(ports.len(), 50, "{ports:?}");
        assert!(
            ports.iter().all(|&p| (10_000..below).contains(&p)),
            "{ports:?}"
        );
    }
}
