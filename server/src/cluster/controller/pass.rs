//! What the leader does besides reconciling on request: every `resync` a pass over all live
//! workloads (level-triggered: after restarts and outages it finds what needs action, and rows
//! whose stored phase no longer matches the index), the organisation's queues when they change,
//! and pokes turned into requests.

use super::act::facts;
use super::rules::needs_action;
use super::{Cause, Controller, now};
use crate::cluster::apply;
use crate::db::workloads::Intent;
use chrono::Utc;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tephra_core::domain::status::{Observed, derive, is_final};
use tephra_core::model::phase::Phase;
use tokio::sync::mpsc;
use uuid::Uuid;

/// How long the first pass waits for the watches to list the cluster.
pub(super) const SYNC_WAIT: Duration = Duration::from_secs(5);

impl Controller {
    /// Passes, organisation syncs and pokes while this replica leads; another replica's turn
    /// pauses them. Pokes wait in their channel meanwhile.
    pub async fn lead(self: &Arc<Self>, pokes: &tokio::sync::Mutex<mpsc::UnboundedReceiver<Uuid>>) {
        let mut pokes = pokes.lock().await;
        let mut leading = self.leading.clone();
        loop {
            if leading.wait_for(|l| *l).await.is_err() {
                return;
            }
            tokio::select! {
                () = self.while_leading(&mut pokes) => {}
                _ = leading.wait_for(|l| !*l) => {
                    tracing::warn!("paused: this replica no longer holds the leader Lease");
                }
            }
        }
    }

    async fn while_leading(&self, pokes: &mut mpsc::UnboundedReceiver<Uuid>) {
        let mut synced = self.synced.clone();
        let _ = tokio::time::timeout(SYNC_WAIT, synced.wait_for(|s| *s)).await;
        // Pokes are a user waiting: they never wait behind a pass or an organisation sync.
        let serve_pokes = async {
            while let Some(id) = pokes.recv().await {
                self.ask(id);
            }
        };
        tokio::join!(serve_pokes, self.passes());
    }

    /// Every `resync` a pass, and the organisation applied when it changes.
    async fn passes(&self) {
        // The first pass looks at every running Job once: an edit stored just before a restart
        // has had no poke since.
        let mut swept = false;
        let org_changed = Arc::clone(&self.shared.org_changed);
        let cluster_back = Arc::clone(&self.shared.cluster_back);
        let mut tick = tokio::time::interval(self.resync);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = org_changed.notified() => self.sync_org_logged().await,
                () = cluster_back.notified() => self.retry_transient(),
                _ = tick.tick() => {
                    self.pass(!swept).await;
                    swept = true;
                }
            }
        }
    }

    /// Retries now every workload whose last attempt failed for a reason that may have passed
    /// (the API server did not answer), whatever its backoff says.
    fn retry_transient(&self) {
        let ids = self.lock_backoffs().retry_transient_now(Instant::now());
        if !ids.is_empty() {
            tracing::info!(
                workloads = ids.len(),
                "retrying the workloads that failed while the cluster did not answer"
            );
        }
        for id in ids {
            let _ = self.requests.send(now(id));
        }
    }

    /// Looks at every live workload: asks for the ones that need action (all running Jobs when
    /// `sweep`), refreshes the ones whose stored phase is stale, and tidies up after rows that
    /// are gone.
    async fn pass(&self, sweep: bool) {
        self.sync_org_logged().await;
        let intents = match self.db.workloads().intents().await {
            Ok(intents) => intents,
            Err(error) => {
                tracing::error!(%error, "the controller cannot read workloads");
                return;
            }
        };
        self.recheck_causes().await;
        let known: HashSet<Uuid> = intents.iter().map(|i| i.id).collect();
        let (todo, stale) = self.plan(&intents, sweep);
        for id in todo {
            self.ask(id);
        }
        for id in stale {
            let _ = self.requests.send(now(id));
        }
        self.tidy(&known).await;
    }

    /// What a pass acts on, and which stored phases no longer match what the index shows (e.g.
    /// a suspend accepted just before a crash, for a workload with no Job yet: no watch event will
    /// ever touch it).
    fn plan(&self, intents: &[Intent], sweep: bool) -> (Vec<Uuid>, Vec<Uuid>) {
        let index = self.shared.index();
        let backoffs = self.lock_backoffs();
        let at = (Instant::now(), Utc::now());
        let nothing = Observed::default();
        let mut todo = Vec::new();
        let mut stale = Vec::new();
        for intent in intents {
            let (desired, actual) = (intent.desired_phase, intent.actual_phase);
            let observed = index.observed(intent.id).map_or(&nothing, |e| &e.observed);
            let facts = facts(intent, observed);
            // A running Job that failed to follow an edit is retried like any failed action.
            let follows = desired == Phase::Running
                && !actual.is_finished()
                && facts.job.is_some_and(|j| !j.deleting)
                && (sweep || backoffs.failing(intent.id));
            if (needs_action(&facts, at.1) || follows) && backoffs.due(intent.id, at.0) {
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
                        self.ask(id);
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
                self.ask(id);
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
}
