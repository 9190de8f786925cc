//! The controller: one loop, on every replica, that makes each workload's status true and (on the
//! leader) the cluster match the workload, with kube-runtime's contract: [`Controller::reconcile`]
//! one workload by id, and [`Controller::error_policy`] for when that fails.
//!
//! Requests to look at a workload come from the watches (a Job, PodGroup, pod or Event of it
//! changed), pokes (a user's action, here or on another replica through NOTIFY), the periodic
//! pass (level-triggered: it finds what needs action after restarts and outages) and requeues
//! (a backoff or a Job TTL coming due). They go through the work queue (`queue`): the ones for
//! later wait in kube-runtime's scheduler, the ones due now start at once; merged per workload,
//! run with bounded concurrency and never two for one workload at once. A reconcile reads the
//! row, derives the status and (on the leader) writes it (`status`), then acts when the rules
//! say so (`act`). Followers derive and broadcast to their own event streams but never write or
//! act.
//!
//! What acting means per desired phase:
//! - Running: create the project's namespace and queue, the workload's PVCs and Services, and
//!   the Volcano Job, unless the Job exists or the workload has finished. The Job's name is fixed
//!   in the row, so a create after a crash either succeeds once or meets AlreadyExists. Once the
//!   finish is recorded, the Job is deleted after `autoDeletionTimeAfterCompletionSeconds` (Tephra
//!   does this, not Volcano's TTL, so no outcome is lost to a collected Job). A Job Volcano
//!   aborted (`vcctl job suspend`, or preempted with `terminateAfterPreemption`) makes the
//!   workload suspended, so resume works as for any suspended training.
//! - Stopped: delete the Job with foreground propagation (pods go first). Not Volcano's AbortJob
//!   and ResumeJob: every ResumeJob spends one of the Job's retries, and the third resume fails
//!   the Job (volcano-sh/volcano#3067). Delete-and-recreate can repeat without limit, and the
//!   PVCs and Services, owned by the workload rather than the Job, survive it.
//! - Deleting: delete the Job, then the PVCs and Services; once the API server (not the watch
//!   cache, which may not have seen a Job created a moment ago) reports nothing left, mark the
//!   row deleted.
//!
//! Errors back off per workload (`backoff`). Only objects whose owner signature verifies are
//! adopted or deleted. Jobs of deleted rows are removed; Jobs with no row at all are reported.

mod act;
mod edits;
mod finish_rules;
mod generics;
mod lifecycle;
mod org;
mod orphans;
pub mod pacer;
mod pass;
pub mod queue;
mod rules;
mod status;

pub use super::error::{ACT_TIMEOUT, Cause, Error, Result};
pub use generics::ParsedGenerics;

use super::Shared;
use super::backoff::{Backoffs, Noted};
use crate::db::Database;
use act::Acted;
use chrono::Utc;
use kube::Client;
use kube::runtime::scheduler::ScheduleRequest;
use pacer::Pacer;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::ownership::OwnerKey;
use tephra_core::model::phase::Phase;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How many workloads are reconciled at once. After an outage, a thousand workloads that need
/// a Job take a thousand API round trips; several at a time keeps the API server's latency from
/// adding up, without letting one slow answer stall the rest. A reconcile holds a database
/// connection only for each query, so twice SQLite's pool (8) still leaves requests room; a cold
/// start of 1,000 Jobs made 216 a second with 8, 264 with 16 and 275 with 32
/// (`scripts/bench controller`).
pub const CONCURRENCY: usize = 16;

/// How soon a deletion that is still waiting on objects looks again.
const DELETE_POLL: Duration = Duration::from_secs(2);

/// What to do after a reconcile, as in kube-runtime's `Action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Nothing until something changes (a watch event, a poke, the next pass).
    AwaitChange,
    /// Look again after this long (a backoff or a Job TTL comes due).
    Requeue(Duration),
}

/// Where requests to look at a workload are sent.
pub type Requests = mpsc::UnboundedSender<ScheduleRequest<Uuid>>;

/// A request to look at `id` now.
pub fn now(id: Uuid) -> ScheduleRequest<Uuid> {
    ScheduleRequest {
        message: id,
        run_at: Instant::now(),
    }
}

/// What the controller holds: the handles it acts with and its per-workload state.
pub struct Controller {
    pub(super) db: Database,
    pub(super) client: Client,
    pub(super) profile: ClusterProfile,
    /// Project namespaces: their settings and what this process has seen of them.
    pub(super) namespaces: super::namespace::Namespaces,
    pub(super) shared: Shared,
    pub(super) key: OwnerKey,
    pub(super) events: super::Events,
    pub(super) metrics: Arc<crate::metrics::Metrics>,
    /// Whether this replica holds the leader Lease; only then does it write and act.
    pub(super) leading: watch::Receiver<bool>,
    /// Set once the Job and Pod watches have listed everything once.
    pub(super) synced: watch::Receiver<bool>,
    pub(super) resync: Duration,
    /// Per-workload errors and when to try again; shown on each workload's status.
    pub(super) backoffs: Mutex<Backoffs>,
    /// Generic workloads' requests, parsed once per stored spec for their finish rules.
    pub(super) generics: ParsedGenerics,
    /// Workloads asked to be acted on whatever the rules say (a user's action, the first pass's
    /// sweep of running Jobs, a cause that changed).
    pub(super) asked: Mutex<HashSet<Uuid>>,
    /// The pace of status writes per workload, shared with the watches that touch it.
    pub(super) pacer: Arc<Mutex<Pacer>>,
    /// When the organisation was last applied.
    pub(super) org_synced: Mutex<Option<std::time::Instant>>,
    /// Held while the organisation is applied, so it is applied once at a time.
    pub(super) org_sync: tokio::sync::Mutex<()>,
    pub(super) requests: Requests,
    /// Reads and keeps a failing training's last log lines.
    pub(super) keeper: super::keeper::Keeper,
}

impl Controller {
    /// Serves requests until `stop` is cancelled, then lets the reconciles under way finish.
    pub async fn run(
        self: &Arc<Self>,
        requests: &tokio::sync::Mutex<mpsc::UnboundedReceiver<ScheduleRequest<Uuid>>>,
        stop: CancellationToken,
    ) {
        // Acting before the watches have listed the cluster would try to create Jobs that
        // exist; harmless (AlreadyExists) but wasteful with many workloads.
        let mut synced = self.synced.clone();
        let _ = tokio::time::timeout(pass::SYNC_WAIT, synced.wait_for(|s| *s)).await;
        let mut requests = requests.lock().await;
        let incoming = futures::stream::poll_fn(|cx| requests.poll_recv(cx));
        queue::run(incoming, CONCURRENCY, stop, |id| {
            let this = Arc::clone(self);
            async move { this.look(id).await }
        })
        .await;
    }

    /// One request: reconcile, or apply the error policy, and schedule what comes next.
    async fn look(&self, id: Uuid) {
        let action = match self.reconcile(id).await {
            Ok(action) => action,
            Err(error) => {
                let action = self.error_policy(id, &error);
                // The error shows on the workload at once.
                if let Err(e) = self.status(id).await {
                    tracing::error!(workload = %id, error = %e, "cannot record the workload's status");
                }
                action
            }
        };
        if let Action::Requeue(after) = action {
            let _ = self.requests.send(ScheduleRequest {
                message: id,
                run_at: Instant::now() + after,
            });
        }
    }

    /// Makes one workload's status true and, on the leader, the cluster match it.
    pub async fn reconcile(&self, id: Uuid) -> Result<Action> {
        let Some(row) = self.status(id).await? else {
            self.asked().remove(&id);
            return Ok(Action::AwaitChange);
        };
        if !*self.leading.borrow() {
            return Ok(Action::AwaitChange);
        }
        let asked = self.asked().remove(&id);
        let due = self.lock_backoffs().due(id, std::time::Instant::now());
        if !(asked || due && self.needs_act(&row)) {
            return Ok(self.next_look(&row));
        }
        let acted = self.act_timed(&row).await?;
        let cleared = self.lock_backoffs().succeeded(id);
        if cleared {
            tracing::info!(workload = %id, "reconciled after errors");
        }
        if acted == Acted::Created && !cleared {
            // The status is as derived above until the watch sees the Job: reading the row again
            // would find only that, once per create of a cold start.
            return Ok(Action::AwaitChange);
        }
        // What acting changed (a phase, a cleared error) shows at once.
        let after = self.status(id).await?;
        // A deletion waits on objects no watch reports (claims, Services, Secrets): look again
        // soon rather than at the next pass.
        if after.is_some_and(|row| row.desired_phase == Phase::Deleting && row.deleted_at.is_none())
        {
            return Ok(Action::Requeue(DELETE_POLL));
        }
        Ok(Action::AwaitChange)
    }

    /// Records the failure for the workload's status and says when to try again.
    pub fn error_policy(&self, id: Uuid, error: &Error) -> Action {
        let (noted, wait) = {
            let mut backoffs = self.lock_backoffs();
            let noted = backoffs.failed(
                id,
                error.plain(),
                error.is_permanent(),
                error.cause(),
                (std::time::Instant::now(), Utc::now()),
            );
            (noted, backoffs.wait(id, std::time::Instant::now()))
        };
        if noted == Noted::New {
            tracing::warn!(workload = %id, %error, permanent = error.is_permanent(), "cannot reconcile; will retry with backoff");
        } else {
            tracing::debug!(workload = %id, %error, "still cannot reconcile");
        }
        if error.is_cluster() && !error.is_permanent() {
            *self
                .shared
                .last_error
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(error.plain());
        }
        Action::Requeue(wait.unwrap_or(self.resync))
    }

    /// Asks for `id` to be acted on now, whatever the rules and its backoff say.
    pub fn ask(&self, id: Uuid) {
        self.lock_backoffs()
            .retry_now(id, std::time::Instant::now());
        self.asked().insert(id);
        let _ = self.requests.send(now(id));
    }

    pub(super) fn lock_backoffs(&self) -> MutexGuard<'_, Backoffs> {
        self.backoffs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn asked(&self) -> MutexGuard<'_, HashSet<Uuid>> {
        self.asked.lock().unwrap_or_else(|e| e.into_inner())
    }
}
