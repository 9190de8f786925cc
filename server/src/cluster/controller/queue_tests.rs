use super::*;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// What the work saw: (message, started, ended), and how many ran at once at most.
#[derive(Default)]
struct Seen {
    runs: Vec<(u32, Instant, Instant)>,
    now: usize,
    most: usize,
}

fn at(message: u32, after: Duration) -> ScheduleRequest<u32> {
    ScheduleRequest {
        message,
        run_at: Instant::now() + after,
    }
}

/// Runs the queue over `requests` (each sent at its delay) with work that takes `each`, until
/// everything is done.
async fn run_all(
    requests: Vec<(Duration, ScheduleRequest<u32>)>,
    concurrency: usize,
    each: Duration,
) -> Seen {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        for (sent_after, r) in requests {
            tokio::time::sleep(sent_after).await;
            tx.send(r).unwrap();
        }
        // Kept open so the queue runs until it is stopped.
        std::future::pending::<()>().await;
    });
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = CancellationToken::new();
    let stopper = stop.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        stopper.cancel();
    });
    let work = {
        let seen = Arc::clone(&seen);
        move |m: u32| {
            let seen = Arc::clone(&seen);
            async move {
                let started = Instant::now();
                {
                    let mut s = seen.lock().unwrap();
                    s.now += 1;
                    s.most = s.most.max(s.now);
                }
                tokio::time::sleep(each).await;
                let mut s = seen.lock().unwrap();
                s.now -= 1;
                s.runs.push((m, started, Instant::now()));
            }
        }
    };
    run(UnboundedReceiverStream::new(rx), concurrency, stop, work).await;
    Arc::try_unwrap(seen).ok().unwrap().into_inner().unwrap()
}

/// Sent at once.
fn sent(r: ScheduleRequest<u32>) -> (Duration, ScheduleRequest<u32>) {
    (Duration::ZERO, r)
}

#[tokio::test(start_paused = true)]
async fn requests_for_one_workload_before_it_runs_become_one() {
    // Workload 9 holds the only place, so workload 1's three requests all wait.
    let seen = run_all(
        vec![
            sent(at(9, Duration::ZERO)),
            sent(at(1, Duration::ZERO)),
            sent(at(1, Duration::ZERO)),
            sent(at(1, Duration::from_millis(5))),
        ],
        1,
        Duration::from_millis(10),
    )
    .await;
    let ones = seen.runs.iter().filter(|(m, _, _)| *m == 1).count();
    assert_eq!(ones, 1, "one run for three requests");
}

#[tokio::test(start_paused = true)]
async fn no_more_than_the_bound_run_at_once() {
    let requests = (0..10).map(|m| sent(at(m, Duration::ZERO))).collect();
    let seen = run_all(requests, 3, Duration::from_millis(100)).await;
    assert_eq!(seen.runs.len(), 10);
    assert_eq!(seen.most, 3, "three at once, not more and not fewer");
}

#[tokio::test(start_paused = true)]
async fn one_workload_is_never_reconciled_twice_at_once() {
    // The second request comes while the first run is under way: it waits for it.
    let seen = run_all(
        vec![
            sent(at(7, Duration::ZERO)),
            (Duration::from_millis(10), at(7, Duration::ZERO)),
        ],
        4,
        Duration::from_millis(100),
    )
    .await;
    assert_eq!(seen.runs.len(), 2);
    let (first, second) = (seen.runs[0], seen.runs[1]);
    assert!(
        second.1 >= first.2,
        "the second run started after the first ended"
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_runs_at_its_time_not_before() {
    let start = Instant::now();
    let seen = run_all(vec![sent(at(3, Duration::from_secs(2)))], 1, Duration::ZERO).await;
    assert!(seen.runs[0].1 >= start + Duration::from_secs(2));
}

#[tokio::test(start_paused = true)]
async fn cancelling_lets_the_runs_under_way_finish_and_starts_no_more() {
    let (tx, rx) = mpsc::unbounded_channel();
    tx.send(at(1, Duration::ZERO)).unwrap();
    tx.send(at(2, Duration::from_secs(5))).unwrap();
    let finished = Arc::new(Mutex::new(Vec::new()));
    let stop = CancellationToken::new();
    let stopper = stop.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        stopper.cancel();
    });
    let work = {
        let finished = Arc::clone(&finished);
        move |m: u32| {
            let finished = Arc::clone(&finished);
            async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                finished.lock().unwrap().push(m);
            }
        }
    };
    run(UnboundedReceiverStream::new(rx), 2, stop, work).await;
    assert_eq!(
        *finished.lock().unwrap(),
        vec![1],
        "1 drained, 2 never started"
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_due_now_starts_at_once_not_at_the_timers_next_tick() {
    let (tx, rx) = mpsc::unbounded_channel();
    let started = Arc::new(Mutex::new(None));
    let stop = CancellationToken::new();
    let work = {
        let (started, stop) = (Arc::clone(&started), stop.clone());
        move |_: u32| {
            let (started, stop) = (Arc::clone(&started), stop.clone());
            async move {
                *started.lock().unwrap() = Some(Instant::now());
                stop.cancel();
            }
        }
    };
    let queue = tokio::spawn(run(UnboundedReceiverStream::new(rx), 1, stop, work));
    tokio::task::yield_now().await;
    // Mid-millisecond, as a poke is: a timer that ticks by the millisecond would round it up.
    tokio::time::advance(Duration::from_micros(300)).await;
    let request = at(4, Duration::ZERO);
    let due = request.run_at;
    tx.send(request).unwrap();
    queue.await.unwrap();
    // The clock is paused: it moves only when every task waits on a timer.
    assert_eq!(
        *started.lock().unwrap(),
        Some(due),
        "started without waiting for a tick"
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_for_later_after_a_run_now_covered_the_one_before_runs_at_its_own_time() {
    let start = Instant::now();
    let seen = run_all(
        vec![
            // Held by the scheduler, then covered by the run now.
            sent(at(5, Duration::from_millis(20))),
            sent(at(5, Duration::ZERO)),
            // Merged in the scheduler behind the covered one: it must not run at 20 ms.
            (Duration::from_millis(5), at(5, Duration::from_millis(35))),
        ],
        4,
        Duration::from_millis(1),
    )
    .await;
    assert_eq!(seen.runs.len(), 2, "one run now, one at its time");
    assert_eq!(seen.runs[0].1, start);
    assert!(
        seen.runs[1].1 >= start + Duration::from_millis(35),
        "the second ran at {:?}",
        seen.runs[1].1 - start
    );
}
