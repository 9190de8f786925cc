//! Whether the API server answers, asked on a schedule of its own.

use super::Shared;
use crate::supervise;

/// How long the probe waits for the API server before calling it unreachable.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// Starts the probe, supervised.
pub(super) fn start(client: kube::Client, shared: &Shared, every: std::time::Duration) {
    let probe_shared = shared.clone();
    supervise::supervise("cluster probe", shared.health.clone(), move || {
        probe(client.clone(), probe_shared.clone(), every)
    });
}

/// Asks the API server every `every` whether it answers, on its own task so a controller stuck
/// on a silent API server cannot delay the news: `/readyz` and `GET /api/v1/cluster` say so even
/// when there is nothing to do.
async fn probe(client: kube::Client, shared: Shared, every: std::time::Duration) {
    let mut tick = tokio::time::interval(every.min(std::time::Duration::from_secs(5)));
    loop {
        tick.tick().await;
        let error = match tokio::time::timeout(PROBE_TIMEOUT, client.apiserver_version()).await {
            Ok(Ok(_)) => None,
            Ok(Err(e)) => Some(format!("cluster unreachable: {e}")),
            Err(_) => Some(format!(
                "cluster unreachable: the API server did not answer within {} seconds",
                PROBE_TIMEOUT.as_secs()
            )),
        };
        *shared.last_error.lock().unwrap_or_else(|e| e.into_inner()) = error;
    }
}
