//! The controller's work queue: requests to look at a workload (from the watches, pokes, the
//! periodic pass and requeues) go through kube-runtime's [`scheduler`], which delays them to
//! their time and merges the ones for the same workload; at most `concurrency` run at once, and
//! never two for the same workload (a request for a busy workload waits in the scheduler until
//! its reconcile ends). kube-runtime's own runner does the same but is not public.

use futures::stream::FuturesUnordered;
use futures::{Stream, StreamExt};
use kube::runtime::scheduler::{ScheduleRequest, scheduler};
use std::collections::HashSet;
use std::future::Future;
use std::hash::Hash;
use tokio_util::sync::CancellationToken;

/// Runs `work` for every request that comes due, until `stop` is cancelled (or the requests
/// end); then waits for the reconciles under way to finish and returns.
pub async fn run<T, R, F, Fut>(requests: R, concurrency: usize, stop: CancellationToken, work: F)
where
    T: Eq + Hash + Clone + Unpin,
    R: Stream<Item = ScheduleRequest<T>>,
    F: Fn(T) -> Fut,
    Fut: Future<Output = ()>,
{
    let mut due = std::pin::pin!(scheduler(requests));
    let mut running = FuturesUnordered::new();
    let mut busy: HashSet<T> = HashSet::new();
    loop {
        let room = running.len() < concurrency.max(1);
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            Some(done) = running.next(), if !running.is_empty() => {
                busy.remove(&done);
            }
            next = async { due.as_mut().hold_unless(|t| !busy.contains(t)).next().await }, if room => {
                let Some(message) = next else { break };
                busy.insert(message.clone());
                let run = work(message.clone());
                running.push(async move {
                    run.await;
                    message
                });
            }
        }
    }
    // Drain: what was started finishes (each reconcile is bounded by its own timeout).
    while running.next().await.is_some() {}
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
