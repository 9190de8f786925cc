//! The controller's work queue: requests to look at a workload (from the watches, pokes, the
//! periodic pass and requeues) are merged per workload; at most `concurrency` run at once, and
//! never two for the same workload (a request for a busy workload waits until its reconcile
//! ends). kube-runtime's own runner does the same but is not public.
//!
//! A request for later (a requeue, a backoff) waits in kube-runtime's [`scheduler`]. A request
//! due now does not: the scheduler's timer ticks by the millisecond, so a request it was given
//! for now started 1 to 2 ms later, after the next tick. That was a user's submit waiting
//! between its commit and the create of its Job, with nothing to do. Due-now requests wait in
//! [`Waiting`] instead, in the order they came.

use futures::channel::mpsc;
use futures::stream::FuturesUnordered;
use futures::{Stream, StreamExt};
use kube::runtime::scheduler::{ScheduleRequest, scheduler};
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::hash::Hash;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Requests due now, each once, in the order they came; and when each workload's pending
/// request for later is due, so one the scheduler still holds can be told from a current one.
struct Waiting<T> {
    now: VecDeque<T>,
    queued: HashSet<T>,
    later: HashMap<T, Instant>,
}

/// What the scheduler's due request turned out to be.
#[derive(Debug, PartialEq)]
enum Due {
    /// Run it.
    Run,
    /// A run now covered it since it was scheduled: drop it.
    Covered,
    /// It is the older of two merged in the scheduler; the current one is due then.
    Later(Instant),
}

impl<T: Eq + Hash + Clone> Waiting<T> {
    fn new() -> Self {
        Waiting {
            now: VecDeque::new(),
            queued: HashSet::new(),
            later: HashMap::new(),
        }
    }

    /// Takes a request at `at`; returns it when it is for later and the scheduler must hold it.
    /// As in the scheduler, the earliest request for a workload covers the ones after it.
    fn add(&mut self, request: ScheduleRequest<T>, at: Instant) -> Option<ScheduleRequest<T>> {
        let message = request.message.clone();
        if request.run_at <= at {
            self.later.remove(&message);
            if self.queued.insert(message.clone()) {
                self.now.push_back(message);
            }
            return None;
        }
        if self.queued.contains(&message) {
            return None;
        }
        match self.later.get(&message) {
            Some(due) if *due <= request.run_at => None,
            _ => {
                self.later.insert(message, request.run_at);
                Some(request)
            }
        }
    }

    /// The first request due now whose workload is not busy, taken out.
    fn take(&mut self, busy: &HashSet<T>) -> Option<T> {
        // At most `busy.len()` entries are skipped: each workload is queued once.
        let at = self.now.iter().position(|m| !busy.contains(m))?;
        let message = self.now.remove(at)?;
        self.queued.remove(&message);
        Some(message)
    }

    /// The scheduler says `message` is due at `at`.
    fn came_due(&mut self, message: &T, at: Instant) -> Due {
        match self.later.get(message) {
            None => Due::Covered,
            Some(due) if *due > at => Due::Later(*due),
            Some(_) => {
                self.later.remove(message);
                Due::Run
            }
        }
    }
}

/// Runs `work` for every request that comes due, until `stop` is cancelled (or the requests
/// end); then waits for the reconciles under way to finish and returns.
pub async fn run<T, R, F, Fut>(requests: R, concurrency: usize, stop: CancellationToken, work: F)
where
    T: Eq + Hash + Clone + Unpin,
    R: Stream<Item = ScheduleRequest<T>>,
    F: Fn(T) -> Fut,
    Fut: Future<Output = ()>,
{
    let (later, for_later) = mpsc::unbounded();
    let mut later = Some(later);
    let mut due = std::pin::pin!(scheduler(for_later));
    let mut requests = std::pin::pin!(requests);
    let mut waiting = Waiting::new();
    let mut running = FuturesUnordered::new();
    let mut busy: HashSet<T> = HashSet::new();
    let launch = |message: T| {
        let run = work(message.clone());
        async move {
            run.await;
            message
        }
    };
    let mut scheduled = true;
    loop {
        let room = running.len() < concurrency.max(1);
        if room && let Some(message) = waiting.take(&busy) {
            busy.insert(message.clone());
            running.push(launch(message));
            continue;
        }
        if !scheduled && waiting.now.is_empty() {
            break;
        }
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            Some(done) = running.next(), if !running.is_empty() => {
                busy.remove(&done);
            }
            request = requests.next(), if later.is_some() => match request {
                Some(request) => {
                    if let (Some(request), Some(later)) =
                        (waiting.add(request, Instant::now()), &later)
                    {
                        let _ = later.unbounded_send(request);
                    }
                }
                // The scheduler ends once it has given out what it holds.
                None => later = None,
            },
            next = async { due.as_mut().hold_unless(|t| !busy.contains(t)).next().await },
                if room && scheduled =>
            {
                let Some(request) = next else {
                    scheduled = false;
                    continue;
                };
                match (waiting.came_due(&request, Instant::now()), &later) {
                    (Due::Covered, _) => {}
                    (Due::Later(run_at), Some(later)) => {
                        let _ = later.unbounded_send(ScheduleRequest { message: request, run_at });
                    }
                    (Due::Run, _) | (Due::Later(_), None) => {
                        busy.insert(request.clone());
                        running.push(launch(request));
                    }
                }
            }
        }
    }
    // Drain: what was started finishes (each reconcile is bounded by its own timeout).
    while running.next().await.is_some() {}
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
