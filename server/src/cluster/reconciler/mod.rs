//! The reconciler: makes the cluster match each workload's desired phase, idempotently.
//!
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
//! It acts when poked for one workload and, every `resync`, for all of them, so it converges after
//! restarts and outages (level-triggered). Errors back off per workload (`backoff`). Only objects
//! whose owner signature verifies are adopted or deleted. Jobs of deleted rows are removed; Jobs
//! with no row at all are reported, not deleted.

mod edits;
mod finish_rules;
mod lifecycle;
mod org;
mod orphans;
mod rules;

pub use super::error::{ACT_TIMEOUT, Cause, Error, Result};
pub(crate) use finish_rules::{due_verdict, generic_request};
use rules::{Facts, JobSeen, needs_action, ttl_due};

use super::Shared;
use super::apply;
use super::backoff::{Backoffs, Noted};
use super::live_edit;
use crate::db::workloads::Intent;
use crate::db::{Database, DbError};
use crate::metrics::Reconciled;
use chrono::Utc;
use kube::Client;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::ownership::OwnerKey;
use tephra_core::domain::status::{Observed, derive, is_final, stopped_in_cluster};
use tephra_core::model::phase::Phase;
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

/// How long a workload's create trusts the last organisation sync; every pass syncs anyway.
const PROJECT_REFRESH: Duration = Duration::from_secs(60);
/// How long the first pass waits for the watches to list the cluster.
const SYNC_WAIT: Duration = Duration::from_secs(5);

pub struct Reconciler {
    pub(super) db: Database,
    pub(super) client: Client,
    pub(super) profile: ClusterProfile,
    /// Project namespaces: their settings and what this process has seen of them.
    pub(super) namespaces: super::namespace::Namespaces,
    pub(super) shared: Shared,
    pub(super) key: OwnerKey,
    /// Per-workload errors and when to try again; the tracker shows them on the workload.
    pub(super) backoffs: Arc<Mutex<Backoffs>>,
    /// Asks the tracker to derive a workload again after acting on it.
    pub(super) refresh: mpsc::UnboundedSender<Uuid>,
    pub(super) events: super::Events,
    pub(super) resync: Duration,
    /// Pokes: workloads to look at now. Behind a lock so a restarted reconciler takes it over.
    pub(super) trigger: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Uuid>>>,
    pub(super) synced: watch::Receiver<bool>,
    pub(super) metrics: Arc<crate::metrics::Metrics>,
    /// Whether this replica holds the leader Lease; only then does it act.
    pub(super) leading: watch::Receiver<bool>,
}

impl Reconciler {
    /// Reconciles while this replica leads; another replica's turn pauses it.
    pub async fn run(&self) {
        let mut leading = self.leading.clone();
        loop {
            if leading.wait_for(|l| *l).await.is_err() {
                return;
            }
            tokio::select! {
                () = self.reconcile_while_leading() => {}
                _ = leading.wait_for(|l| !*l) => {
                    tracing::warn!("paused: this replica no longer holds the leader Lease");
                }
            }
        }
    }

    async fn reconcile_while_leading(&self) {
        let mut trigger = self.trigger.lock().await;
        // Acting before the watches have listed the cluster would try to create Jobs that exist;
        // harmless (AlreadyExists) but wasteful with many workloads.
        let mut synced = self.synced.clone();
        let _ = tokio::time::timeout(SYNC_WAIT, synced.wait_for(|s| *s)).await;
        let mut org_synced: Option<Instant> = None;
        // The first pass looks at every running Job once: an edit stored just before a restart
        // has had no poke since.
        let mut swept = false;
        let org_changed = Arc::clone(&self.shared.org_changed);
        let mut tick = tokio::time::interval(self.resync);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                Some(id) = trigger.recv() => {
                    // Handle everything already queued together, each workload once. A poke is a
                    // user's action (or the cluster's): it retries at once, backoff or not.
                    let mut ids = HashSet::from([id]);
                    while let Ok(more) = trigger.try_recv() {
                        ids.insert(more);
                    }
                    for id in ids {
                        self.lock_backoffs().retry_now(id, Instant::now());
                        self.reconcile(id, &mut org_synced).await;
                    }
                }
                () = org_changed.notified() => self.sync_org_logged(&mut org_synced).await,
                _ = tick.tick() => {
                    self.pass(&mut org_synced, !swept).await;
                    swept = true;
                }
            }
        }
    }

    fn lock_backoffs(&self) -> std::sync::MutexGuard<'_, Backoffs> {
        self.backoffs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Looks at every live workload, acts where the cluster differs, and tidies up after rows
    /// that are gone; a `sweep` also acts on every running Job (see [`Self::follow_edit`]).
    async fn pass(&self, org_synced: &mut Option<Instant>, sweep: bool) {
        self.sync_org_logged(org_synced).await;
        let intents = match self.db.workloads().intents().await {
            Ok(intents) => intents,
            Err(error) => {
                tracing::error!(%error, "reconciler cannot read workloads");
                return;
            }
        };
        self.recheck_causes().await;
        let known: HashSet<Uuid> = intents.iter().map(|i| i.id).collect();
        let now = (Instant::now(), Utc::now());
        let (todo, stale) = self.plan(&intents, now, sweep);
        for id in stale {
            let _ = self.refresh.send(id);
        }
        for id in todo {
            self.reconcile(id, org_synced).await;
        }
        self.tidy(&known).await;
    }

    /// What a pass acts on, and which stored phases no longer match what the index shows (e.g.
    /// a suspend accepted just before a crash, for a workload with no Job yet: no watch event will
    /// ever touch it, so the pass asks the tracker to derive it again).
    fn plan(
        &self,
        intents: &[Intent],
        now: (Instant, chrono::DateTime<Utc>),
        sweep: bool,
    ) -> (Vec<Uuid>, Vec<Uuid>) {
        let index = self.shared.index();
        let backoffs = self.lock_backoffs();
        let nothing = Observed::default();
        let mut todo = Vec::new();
        let mut stale = Vec::new();
        for intent in intents {
            let (desired, actual) = (intent.desired_phase, intent.actual_phase);
            let observed = index.observed(intent.id).map_or(&nothing, |e| &e.observed);
            let job = observed.job.as_ref().map(|j| JobSeen {
                deleting: j.deleting,
                stopped_by_cluster: stopped_in_cluster(observed).is_some(),
            });
            let facts = Facts {
                desired,
                actual,
                finished_at: intent.finished_at,
                job_ttl_seconds: intent.job_ttl_seconds,
                job,
            };
            // A running Job that failed to follow an edit is retried like any failed action.
            let follows = desired == Phase::Running
                && !actual.is_finished()
                && job.is_some_and(|j| !j.deleting)
                && (sweep || backoffs.failing(intent.id));
            if (needs_action(&facts, now.1) || follows) && backoffs.due(intent.id, now.0) {
                todo.push(intent.id);
            } else if !is_final(actual, observed)
                && derive(desired, actual, observed).phase != actual
            {
                stale.push(intent.id);
            }
        }
        (todo, stale)
    }

    /// Retries at once the workloads whose name was taken by an object that is now gone, and
    /// those a policy refused that it now allows.
    async fn recheck_causes(&self) {
        let causes = self.lock_backoffs().causes();
        for (id, cause) in causes {
            let (kind, namespace, name, uid) = match &cause {
                Cause::Policy => {
                    if self.allowed_now(id).await {
                        tracing::info!(workload = %id, "the policies allow the request now; retrying");
                        self.lock_backoffs().retry_now(id, Instant::now());
                    }
                    continue;
                }
                Cause::Taken {
                    kind,
                    namespace,
                    name,
                    uid,
                } => (kind, namespace, name, uid),
            };
            if let Ok(false) = apply::still_taken(&self.client, kind, namespace, name, uid).await {
                tracing::info!(workload = %id, %name, "the object holding the name is gone; retrying");
                self.lock_backoffs().retry_now(id, Instant::now());
            }
        }
    }

    /// Whether the stored request of `id` passes today's policies (a database read, no call to
    /// the cluster).
    async fn allowed_now(&self, id: Uuid) -> bool {
        let Ok(row) = self.db.workloads().get(id).await else {
            return false;
        };
        let Ok(project) = self.db.projects().get(row.project_id).await else {
            return false;
        };
        self.still_allowed(&row, &project).await.is_ok()
    }

    /// Acts on one workload and records the outcome for its status.
    async fn reconcile(&self, id: Uuid, org_synced: &mut Option<Instant>) {
        let started = Instant::now();
        let span = tracing::info_span!("reconcile", workload = %id);
        let act = tracing::Instrument::instrument(self.act(id, org_synced), span);
        let outcome = match tokio::time::timeout(ACT_TIMEOUT, act).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Error::Timeout),
        };
        self.metrics.reconciled(
            match &outcome {
                Ok(()) => Reconciled::Ok,
                Err(e) if e.is_permanent() => Reconciled::Permanent,
                Err(_) => Reconciled::Retried,
            },
            started,
        );
        match &outcome {
            Ok(()) => {
                self.lock_backoffs().succeeded(id);
            }
            Err(error) => {
                let noted = self.lock_backoffs().failed(
                    id,
                    error.plain(),
                    error.is_permanent(),
                    error.cause(),
                    (Instant::now(), Utc::now()),
                );
                if noted == Noted::New {
                    tracing::warn!(workload = %id, %error, permanent = error.is_permanent(), "cannot reconcile; will retry with backoff");
                } else {
                    tracing::debug!(workload = %id, %error, "still cannot reconcile");
                }
            }
        }
        {
            let mut last = self
                .shared
                .last_error
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Err(error) = &outcome
                && error.is_cluster()
                && !error.is_permanent()
            {
                *last = Some(error.plain());
            }
        }
        let _ = self.refresh.send(id);
    }

    async fn act(&self, id: Uuid, org_synced: &mut Option<Instant>) -> Result<()> {
        let row = match self.db.workloads().get(id).await {
            Ok(row) if row.deleted_at.is_none() => row,
            Ok(_) | Err(DbError::NotFound) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let project = self.db.projects().get(row.project_id).await?;
        let (job, nothing_left, stopped, live) = {
            let index = self.shared.index();
            match index.observed(id) {
                Some(e) => (
                    e.observed.job.as_ref().map(|j| j.deleting),
                    e.observed.is_empty(),
                    stopped_in_cluster(&e.observed),
                    edits::live_shape(&e.observed),
                ),
                None => (None, true, None, None),
            }
        };
        let ns = &project.namespace;
        match row.desired_phase {
            Phase::Running if row.actual_phase.is_finished() => {
                if job == Some(false) && ttl_due(row.finished_at, row.job_ttl_seconds, Utc::now()) {
                    apply::delete_job(&self.client, ns, &row.name, id, &self.key).await?;
                }
                Ok(())
            }
            Phase::Running if stopped.is_some() => self.adopt_stop(&row, stopped).await,
            // Pods of a previous Job must be gone first: the new Job's pods take their names.
            Phase::Running if job.is_none() && nothing_left => {
                // The project may be new since the last pass: its queue must exist first.
                if org_synced.is_none_or(|at| at.elapsed() > PROJECT_REFRESH) {
                    self.sync_org().await?;
                    *org_synced = Some(Instant::now());
                }
                // Checked here whatever the sync made of it (the sync passes over a namespace
                // that is not this installation's; this workload must not). A policy changed a
                // moment ago may also allow what the Pod Security level still refuses.
                self.ensure_namespace(&project).await?;
                self.create(&row, &project).await
            }
            Phase::Running => {
                self.judge(&row, &project).await?;
                match live {
                    Some(shape) => self.follow_edit(&row, &project, &shape).await,
                    None => Ok(()),
                }
            }
            Phase::Stopped if job == Some(false) => {
                apply::delete_job(&self.client, ns, &row.name, id, &self.key).await?;
                Ok(())
            }
            Phase::Deleting => self.delete(&row, &project).await,
            _ => Ok(()),
        }
    }
}
