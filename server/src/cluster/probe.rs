//! Whether the API server answers, asked on a schedule of its own.

use super::Shared;
use crate::supervise;
use std::time::Duration;

/// How long the probe waits for the API server before calling it unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// Starts the probe, supervised.
pub(super) fn start(client: kube::Client, shared: &Shared, every: Duration) {
    let probe_shared = shared.clone();
    supervise::supervise("cluster probe", shared.health.clone(), move || {
        probe(client.clone(), probe_shared.clone(), every)
    });
}

/// Asks the API server every `every` whether it answers, on its own task so a controller stuck
/// on a silent API server cannot delay the news: `/readyz` and `GET /api/v1/cluster` say so even
/// when there is nothing to do. While it does not answer, the probe asks every second, and its
/// first answer wakes the controller (`Shared::cluster_back`). Only the probe's own failures
/// count for that: an API server that answers the probe but fails the controller's requests
/// (etcd gone) is left to each workload's backoff, not retried in bulk.
async fn probe(client: kube::Client, shared: Shared, every: Duration) {
    let every = every.min(Duration::from_secs(5));
    let mut failed = false;
    loop {
        let error = match tokio::time::timeout(PROBE_TIMEOUT, client.apiserver_version()).await {
            Ok(Ok(_)) => None,
            Ok(Err(e)) => Some(format!("cluster unreachable: {e}")),
            Err(_) => Some(format!(
                "cluster unreachable: the API server did not answer within {} seconds",
                PROBE_TIMEOUT.as_secs()
            )),
        };
        let answers = error.is_none();
        *shared.last_error.lock().unwrap_or_else(|e| e.into_inner()) = error;
        if answers && failed {
            tracing::info!("the API server answers again; retrying what failed meanwhile");
            shared.cluster_back.notify_one();
        }
        failed = !answers;
        tokio::time::sleep(next_look(answers, every)).await;
    }
}

/// How long until the next look: `every` while the API server answers, a second while not.
fn next_look(answers: bool, every: Duration) -> Duration {
    if answers {
        every
    } else {
        every.min(Duration::from_secs(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_api_server_is_asked_every_second() {
        let every = Duration::from_secs(5);
        assert_eq!(next_look(true, every), every);
        assert_eq!(next_look(false, every), Duration::from_secs(1));
        assert_eq!(
            next_look(false, Duration::from_millis(200)),
            Duration::from_millis(200)
        );
    }
}
