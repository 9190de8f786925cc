//! Per-workload retries after errors. A workload whose Job cannot be created (its name is taken
//! by something else, or its stored request no longer renders against the cluster profile) is not
//! retried and logged on every pass: each failure doubles its wait, up to a cap, and the error is
//! shown on the workload until it clears. An explicit poke (a user's action) and a change of the
//! cause retry at once. Pure: the caller passes the time in.

use super::error::Cause;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tephra_core::model::workload::ReconcileError;
use uuid::Uuid;

/// First and longest wait after a transient error (the cluster did not answer).
const TRANSIENT: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(30));
/// First and longest wait after an error retrying alone cannot fix.
const PERMANENT: (Duration, Duration) = (Duration::from_secs(10), Duration::from_secs(300));

#[derive(Debug, Clone)]
struct Retry {
    error: ReconcileError,
    next: Instant,
    /// What the error depends on (e.g. the uid of the Job holding the name): when it changes,
    /// retry at once.
    cause: Option<Cause>,
}

/// What a failure means for logging: say it loudly only when it is new.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noted {
    New,
    Repeated,
}

#[derive(Debug, Default)]
pub struct Backoffs(HashMap<Uuid, Retry>);

impl Backoffs {
    /// Whether the workload may be tried now.
    pub fn due(&self, id: Uuid, now: Instant) -> bool {
        self.0.get(&id).is_none_or(|r| r.next <= now)
    }

    /// Whether the workload's last attempt failed (and is to be retried).
    pub fn failing(&self, id: Uuid) -> bool {
        self.0.contains_key(&id)
    }

    /// Records a failure and schedules the next attempt.
    pub fn failed(
        &mut self,
        id: Uuid,
        message: String,
        permanent: bool,
        cause: Option<Cause>,
        now: (Instant, DateTime<Utc>),
    ) -> Noted {
        let previous = self.0.get(&id);
        let attempts = previous.map_or(0, |r| r.error.attempts) + 1;
        let noted = match previous {
            Some(r) if r.error.message == message => Noted::Repeated,
            _ => Noted::New,
        };
        let (first, cap) = if permanent { PERMANENT } else { TRANSIENT };
        let wait = first.saturating_mul(1 << (attempts - 1).min(16)).min(cap);
        let next_at = now.1 + chrono::Duration::from_std(wait).unwrap_or_default();
        self.0.insert(
            id,
            Retry {
                error: ReconcileError {
                    message,
                    permanent,
                    attempts,
                    next_attempt_at: next_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                },
                next: now.0 + wait,
                cause,
            },
        );
        noted
    }

    /// Clears the workload's error; true when it had one.
    pub fn succeeded(&mut self, id: Uuid) -> bool {
        self.0.remove(&id).is_some()
    }

    /// Makes the workload due now, keeping its error on show until the next attempt.
    pub fn retry_now(&mut self, id: Uuid, now: Instant) {
        if let Some(retry) = self.0.get_mut(&id) {
            retry.next = now;
        }
    }

    /// Makes every workload failing on a transient error due now; their ids.
    pub fn retry_transient_now(&mut self, now: Instant) -> Vec<Uuid> {
        self.0
            .iter_mut()
            .filter(|(_, r)| !r.error.permanent)
            .map(|(id, r)| {
                r.next = now;
                *id
            })
            .collect()
    }

    /// How long until the workload's next attempt, when it is failing.
    pub fn wait(&self, id: Uuid, now: Instant) -> Option<Duration> {
        self.0
            .get(&id)
            .map(|r| r.next.saturating_duration_since(now))
    }

    /// The error shown on the workload.
    pub fn error(&self, id: Uuid) -> Option<&ReconcileError> {
        self.0.get(&id).map(|r| &r.error)
    }

    /// Workloads waiting on a permanent error whose cause may have changed, with that cause.
    pub fn causes(&self) -> Vec<(Uuid, Cause)> {
        self.0
            .iter()
            .filter_map(|(id, r)| Some((*id, r.cause.clone()?)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: u64) -> (Instant, DateTime<Utc>) {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        let start = *START.get_or_init(Instant::now);
        let wall = DateTime::from_timestamp(1_800_000_000 + seconds as i64, 0).unwrap();
        (start + Duration::from_secs(seconds), wall)
    }

    #[test]
    fn permanent_errors_wait_longer_each_time_up_to_a_cap() {
        let mut b = Backoffs::default();
        let id = Uuid::new_v4();
        assert!(b.due(id, at(0).0));
        assert_eq!(b.failed(id, "taken".into(), true, None, at(0)), Noted::New);
        assert!(!b.due(id, at(9).0));
        assert!(b.due(id, at(10).0));
        assert_eq!(
            b.failed(id, "taken".into(), true, None, at(10)),
            Noted::Repeated
        );
        assert!(!b.due(id, at(29).0));
        assert!(b.due(id, at(30).0));
        for _ in 0..20 {
            b.failed(id, "taken".into(), true, None, at(30));
        }
        assert!(b.due(id, at(330).0), "capped at five minutes");
        let shown = b.error(id).unwrap();
        assert_eq!(shown.attempts, 22);
        assert!(shown.permanent);
    }

    #[test]
    fn transient_errors_retry_sooner() {
        let mut b = Backoffs::default();
        let id = Uuid::new_v4();
        b.failed(id, "unreachable".into(), false, None, at(0));
        assert!(b.due(id, at(1).0));
    }

    #[test]
    fn a_new_message_is_noted_and_success_clears_it() {
        let mut b = Backoffs::default();
        let id = Uuid::new_v4();
        b.failed(id, "one".into(), true, None, at(0));
        assert_eq!(b.failed(id, "two".into(), true, None, at(0)), Noted::New);
        assert!(b.succeeded(id));
        assert!(b.error(id).is_none());
        assert!(!b.succeeded(id));
    }

    #[test]
    fn only_transient_errors_are_retried_when_the_cluster_is_back() {
        let mut b = Backoffs::default();
        let (transient, permanent) = (Uuid::new_v4(), Uuid::new_v4());
        for _ in 0..6 {
            b.failed(transient, "unreachable".into(), false, None, at(0));
        }
        b.failed(permanent, "taken".into(), true, None, at(0));
        assert!(!b.due(transient, at(5).0), "waits out its backoff");
        assert_eq!(b.retry_transient_now(at(5).0), vec![transient]);
        assert!(b.due(transient, at(5).0));
        assert!(!b.due(permanent, at(5).0));
        assert!(
            b.error(transient).is_some(),
            "still shown until the attempt"
        );
    }

    #[test]
    fn retry_now_makes_it_due_and_causes_are_listed() {
        let mut b = Backoffs::default();
        let id = Uuid::new_v4();
        b.failed(id, "taken".into(), true, Some(Cause::Policy), at(0));
        assert_eq!(b.causes(), vec![(id, Cause::Policy)]);
        b.retry_now(id, at(1).0);
        assert!(b.due(id, at(1).0));
        assert!(b.error(id).is_some(), "still shown until the attempt");
    }
}
