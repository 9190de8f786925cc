//! Bounds on the responses that last: the event stream and log follows. One user or application
//! may hold a bounded number open at once (429 past it); each asks again, every
//! `--stream-recheck-seconds`, whether its caller still stands (session or token) and may still
//! see what it shows, and ends when not; a log follow also ends after a set time and number of
//! bytes. Counts are per process: each replica bounds its own.

use super::AppState;
use crate::auth::Credential;
use crate::http::api::ApiError;
use axum::http::StatusCode;
use futures::{Stream, StreamExt};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tephra_core::model::principal::Principal;
use tokio::time::{Instant, MissedTickBehavior};

/// `--streams-per-principal`, `--stream-recheck-seconds`, `--log-follow-max-*`.
#[derive(Debug, Clone, Copy)]
pub struct StreamLimits {
    pub per_principal: usize,
    pub recheck: Duration,
    pub follow_time: Duration,
    pub follow_bytes: i64,
}

type Counts = Arc<Mutex<HashMap<String, usize>>>;

/// The streams open in this process, by principal.
#[derive(Clone)]
pub struct Streams {
    limits: StreamLimits,
    open: Counts,
}

/// One open stream, counted until dropped (when the client goes away or the stream ends).
pub struct Slot {
    open: Counts,
    key: String,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

impl Streams {
    pub fn new(limits: StreamLimits) -> Self {
        Streams {
            limits,
            open: Arc::default(),
        }
    }

    pub fn limits(&self) -> &StreamLimits {
        &self.limits
    }

    /// A slot for one more stream of `principal`'s, or 429 when it holds all it may.
    pub fn open(&self, principal: &Principal) -> Result<Slot, ApiError> {
        let key = match &principal.application {
            Some(app) => format!("application:{app}"),
            None => format!("user:{}", principal.user_id),
        };
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(key.clone()).or_default();
        if *count >= self.limits.per_principal {
            return Err(ApiError::status(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "you have {count} event and log streams open, the most one user or application \
                     may (--streams-per-principal); close one (another tab, a finished follow) and \
                     try again"
                ),
            ));
        }
        *count += 1;
        Ok(Slot {
            open: Arc::clone(&self.open),
            key,
        })
    }
}

/// The principal `credential` stands for now, or why it no longer does.
pub async fn renewed(state: &AppState, credential: &Credential) -> Result<Principal, String> {
    state
        .services
        .auth()
        .renew(&state.sessions.store, credential)
        .await
        .map_err(|error| error.to_string())
}

type Check = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

struct Watch<S, F> {
    source: Pin<Box<S>>,
    ticks: tokio::time::Interval,
    deadline: Option<(Instant, Duration)>,
    still: F,
    done: bool,
}

/// `source`'s items until `still` (asked every `every`) answers why not, or `longest` has passed;
/// then one `Err` saying why, and the end. The source is dropped with the stream, so whatever it
/// holds (a connection to the API server, a [`Slot`]) is let go at once.
pub fn until_refused<S, F>(
    source: S,
    every: Duration,
    longest: Option<Duration>,
    still: F,
) -> impl Stream<Item = Result<S::Item, String>> + Send
where
    S: Stream + Send + 'static,
    S::Item: Send,
    F: FnMut() -> Check + Send + 'static,
{
    let mut ticks = tokio::time::interval_at(Instant::now() + every, every);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let watch = Watch {
        source: Box::pin(source),
        ticks,
        deadline: longest.map(|d| (Instant::now() + d, d)),
        still,
        done: false,
    };
    futures::stream::unfold(watch, |mut watch| async move {
        if watch.done {
            return None;
        }
        loop {
            let deadline = watch.deadline;
            let time_up = async move {
                match deadline {
                    Some((at, _)) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                item = watch.source.next() => return item.map(|item| (Ok(item), watch)),
                _ = watch.ticks.tick() => {
                    if let Err(why) = (watch.still)().await {
                        watch.done = true;
                        return Some((Err(why), watch));
                    }
                }
                () = time_up => {
                    watch.done = true;
                    let minutes = deadline.map_or(0, |(_, d)| d.as_secs().div_ceil(60));
                    let why = format!(
                        "it reached the longest a stream runs ({minutes} minutes); open it again \
                         to go on"
                    );
                    return Some((Err(why), watch));
                }
            }
        }
    })
}

/// A check for [`until_refused`]: `credential` still stands and `allowed` still holds for the
/// principal it stands for now.
pub fn checking<A, Fut>(
    state: AppState,
    credential: Credential,
    allowed: A,
) -> impl FnMut() -> Check
where
    A: Fn(AppState, Principal) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    move || {
        let state = state.clone();
        let credential = credential.clone();
        let allowed = allowed.clone();
        Box::pin(async move {
            let principal = renewed(&state, &credential).await?;
            allowed(state, principal).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_principal: usize) -> StreamLimits {
        StreamLimits {
            per_principal,
            recheck: Duration::from_secs(1),
            follow_time: Duration::from_secs(60),
            follow_bytes: 1024,
        }
    }

    fn principal(user: &str, application: Option<&str>) -> Principal {
        Principal {
            user_id: user.into(),
            subject: user.into(),
            display_name: user.into(),
            email: None,
            groups: Vec::new(),
            admin: false,
            dev_login: false,
            application: application.map(Into::into),
            uid: None,
            gid: None,
            grants: Vec::new(),
        }
    }

    #[test]
    fn each_principal_holds_at_most_its_share_and_a_closed_stream_frees_its_slot() {
        let streams = Streams::new(limits(2));
        let ada = principal("ada", None);
        let first = streams.open(&ada).unwrap();
        let _second = streams.open(&ada).unwrap();
        let refused = streams.open(&ada).err().expect("a third is refused");
        assert_eq!(refused.body().code, 429);
        assert!(
            streams.open(&principal("bob", None)).is_ok(),
            "another user"
        );
        assert!(
            streams.open(&principal("ada", Some("ci"))).is_ok(),
            "an application ada made counts as itself"
        );
        drop(first);
        assert!(streams.open(&ada).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_ends_with_the_reason_when_its_check_fails() {
        let source = futures::stream::iter([1, 2]).chain(futures::stream::pending());
        let mut checks = 0;
        let still = move || -> Check {
            checks += 1;
            let answer = if checks < 3 {
                Ok(())
            } else {
                Err("you signed out".into())
            };
            Box::pin(std::future::ready(answer))
        };
        let items: Vec<_> = until_refused(source, Duration::from_secs(30), None, still)
            .collect()
            .await;
        assert_eq!(items, [Ok(1), Ok(2), Err("you signed out".into())]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_ends_when_its_time_is_up() {
        let source = futures::stream::pending::<u8>();
        let still = || -> Check { Box::pin(std::future::ready(Ok(()))) };
        let items: Vec<_> = until_refused(
            source,
            Duration::from_secs(30),
            Some(Duration::from_secs(120)),
            still,
        )
        .collect()
        .await;
        assert_eq!(items.len(), 1);
        assert!(items[0].as_ref().unwrap_err().contains("2 minutes"));
    }
}
