//! The cluster side: finding the Kubernetes API, the watches that keep the index of what is in the
//! cluster, and the controller that makes each workload's status true and the cluster match the
//! database (docs/ARCHITECTURE.md).
//!
//! The database is the system of record. Handlers only write rows and [`ClusterHandle::poke`] the
//! controller; nothing on a request path waits for the cluster, so Tephra keeps accepting work
//! while the API server is unreachable and converges once it is back.

mod apply;
pub mod backoff;
mod connect;
pub mod controller;
mod dependents;
pub mod error;
pub mod idle;
pub mod index;
mod installation;
pub mod keeper;
pub mod lease;
mod live_edit;
pub mod logs;
pub mod namespace;
pub mod nodes;
mod notify;
pub mod objects;
mod observe;
mod probe;
mod startup;
pub mod time_limit;
pub mod watches;

pub use connect::connect;
pub use installation::{CLUSTER_CREATED_AT_SETTING, cluster_id, owner_key};
pub use startup::{Leadership, Settings, start};

use crate::db::workloads::StoredWorkload;
use crate::supervise;
use chrono::SecondsFormat;
use index::Index;
use serde::Serialize;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use tephra_core::domain::ownership::OwnerKey;
use tephra_core::model::event_stream::StreamEvent;
use tephra_core::model::workload::WorkloadEvent;
use tokio::sync::{broadcast, mpsc, watch};
use uuid::Uuid;

/// How many status changes the event stream buffers for a slow client before it must resync.
const EVENT_BUFFER: usize = 1024;

/// A status change as the event stream sends it: serialized once and shared by every client, so
/// two thousand clients (or a stalled one holding its place in the buffer) cost one copy, and a
/// change with a thousand pods is not serialized a thousand times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    pub workload_id: String,
    pub project_id: String,
    /// The `workload` event as sent, the [`WorkloadEvent`] as its data, for streams that follow
    /// this one workload. Shared by every stream that sends it.
    pub full: axum::body::Bytes,
    /// The same with [`WorkloadEvent::summary`] as its data, for streams of many workloads.
    pub summary: axum::body::Bytes,
}

/// The broadcast of status changes.
pub type Events = broadcast::Sender<Arc<Published>>;

/// Serializes a change once and sends it to every subscribed stream.
pub fn publish(events: &Events, event: &WorkloadEvent) {
    if events.receiver_count() == 0 {
        return;
    }
    match Published::of(event) {
        Ok(published) => {
            let _ = events.send(Arc::new(published));
        }
        Err(error) => tracing::error!(%error, "cannot serialize a workload event"),
    }
}

impl Published {
    pub fn of(event: &WorkloadEvent) -> serde_json::Result<Published> {
        Ok(Published {
            workload_id: event.workload_id.clone(),
            project_id: event.project_id.clone(),
            full: StreamEvent::Workload
                .frame(&serde_json::to_string(event)?)
                .into(),
            summary: StreamEvent::Workload
                .frame(&serde_json::to_string(&event.summary())?)
                .into(),
        })
    }
}

/// A Volcano Job in one of Tephra's project namespaces that carries Tephra's labels but is no
/// live workload's: signed by Tephra with no row, or not signed at all. Reported, never deleted:
/// it may be someone's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Orphan {
    pub namespace: String,
    /// The Job's name.
    pub name: String,
    /// The workload id its label names.
    pub workload_id: String,
    /// Whether this Tephra signed it (its row was removed by hand) or it merely carries
    /// Tephra's labels (made or copied by someone else).
    pub signed: bool,
}

/// State the watches and the controller share with the HTTP side.
#[derive(Clone, Default)]
pub struct Shared {
    pub index: Arc<RwLock<Index>>,
    pub orphans: Arc<Mutex<Vec<Orphan>>>,
    /// The last error talking to the API server, cleared by the next success.
    pub last_error: Arc<Mutex<Option<String>>>,
    /// The supervised background tasks, for `/readyz`.
    pub health: supervise::Health,
    /// The nodes by pool.
    pub nodes: Arc<RwLock<nodes::NodeIndex>>,
    /// Wakes the controller to apply departments' and projects' queues now.
    pub org_changed: Arc<tokio::sync::Notify>,
    /// Wakes the controller when the API server answers again after an error, to retry at once
    /// what failed meanwhile rather than when each workload's backoff comes due.
    pub cluster_back: Arc<tokio::sync::Notify>,
}

impl Shared {
    /// The index for reading. A task that panicked while writing it poisons the lock; the
    /// restarted tracker re-lists everything, so the contents are usable meanwhile.
    pub fn index(&self) -> RwLockReadGuard<'_, Index> {
        self.index.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn index_mut(&self) -> RwLockWriteGuard<'_, Index> {
        self.index.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Why the cluster side cannot do its work now, if it cannot: a task that is down, or an API
    /// server that does not answer.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = self.health.down();
        if let Some(error) = self
            .last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            problems.push(error);
        }
        problems
    }
}

/// What HTTP handlers hold of the cluster side.
#[derive(Clone)]
pub struct ClusterHandle {
    /// The id workloads record as their `clusterId`.
    pub id: String,
    /// Wakes the controller for one workload; `None` when no cluster is configured.
    trigger: Option<mpsc::UnboundedSender<Uuid>>,
    /// Wakes the controller of the replica that leads, when this one does not (PostgreSQL).
    remote: Option<mpsc::UnboundedSender<Uuid>>,
    pub events: Events,
    pub shared: Shared,
    /// Whether this replica reconciles now.
    pub leading: watch::Receiver<bool>,
    /// Kept so `leading` stays open; the election owns its own.
    _leading: Arc<watch::Sender<bool>>,
    election: Option<Arc<lease::Election>>,
    /// Stops the controller on shutdown.
    stop: tokio_util::sync::CancellationToken,
    /// Turns true once the stopped controller's reconciles under way have finished; `None`
    /// without a cluster.
    drained: Option<watch::Receiver<bool>>,
    /// The API server, for what is read on demand (pod logs); `None` without a cluster.
    pub client: Option<kube::Client>,
    /// What signs and recognises Tephra's objects; `None` without a cluster.
    pub key: Option<OwnerKey>,
}

/// The reason a workload shows while Tephra has no cluster to run it on.
pub const NO_CLUSTER: &str =
    "no Kubernetes cluster is configured; the training starts once Tephra runs with one";

impl ClusterHandle {
    /// A handle for a server without a cluster: workloads are stored and wait.
    pub fn detached(id: &str) -> Self {
        let (leading_tx, leading) = watch::channel(false);
        ClusterHandle {
            id: id.to_owned(),
            trigger: None,
            remote: None,
            events: broadcast::channel(EVENT_BUFFER).0,
            shared: Shared::default(),
            leading,
            _leading: Arc::new(leading_tx),
            election: None,
            stop: tokio_util::sync::CancellationToken::new(),
            drained: None,
            client: None,
            key: None,
        }
    }

    /// On shutdown: stops the controller, waits (at most `grace`) for the reconciles under way
    /// to finish, then lets the leader Lease go, so another replica reconciles at once and never
    /// while this one still acts.
    pub async fn release(&self, grace: std::time::Duration) {
        self.stop.cancel();
        if let Some(drained) = &self.drained {
            let mut drained = drained.clone();
            if tokio::time::timeout(grace, drained.wait_for(|d| *d))
                .await
                .is_err()
            {
                tracing::warn!(
                    "the controller's reconciles did not finish in time; letting the Lease go anyway"
                );
            }
        }
        if let Some(election) = &self.election {
            election.release().await;
        }
    }

    pub fn is_configured(&self) -> bool {
        self.trigger.is_some()
    }

    /// Runs `pass` every `period` while this replica leads, for as long as the process runs
    /// (the rules beside the controller: idle GPUs, time limits). A pass that fails is logged
    /// as `what`'s and tried again at the next tick.
    pub async fn every_while_leading<T, E: std::fmt::Display, F: Future<Output = Result<T, E>>>(
        &self,
        period: std::time::Duration,
        what: &str,
        pass: impl Fn() -> F,
    ) {
        let mut tick = tokio::time::interval(period);
        loop {
            tick.tick().await;
            if !*self.leading.borrow() {
                continue;
            }
            if let Err(e) = pass().await {
                tracing::warn!(error = %e, "{what} could not be applied; trying again");
            }
        }
    }

    /// Asks the controller to apply the departments' and projects' queues now (it also does on
    /// every pass).
    pub fn org_changed(&self) {
        self.shared.org_changed.notify_one();
    }

    /// Each node pool's largest node, for admission; empty until the nodes were listed.
    pub fn largest_nodes(&self) -> Vec<(String, tephra_core::domain::quota::Amount)> {
        self.shared
            .nodes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .largest()
    }

    /// Asks the controller to look at a workload now (it also looks at all of them periodically):
    /// this replica's, or the one of the replica that leads.
    pub fn poke(&self, id: Uuid) {
        let target = if *self.leading.borrow() {
            &self.trigger
        } else {
            &self.remote
        };
        if let Some(target) = target {
            let _ = target.send(id);
        }
    }
}

/// The event the stream sends for a workload row.
pub fn event_of(w: &StoredWorkload, deleted: bool) -> WorkloadEvent {
    WorkloadEvent {
        workload_id: w.id.to_string(),
        project_id: w.project_id.to_string(),
        name: w.name.clone(),
        kind: w.kind,
        desired_phase: w.desired_phase,
        actual_phase: w.actual_phase,
        phase_message: w.phase_reason.clone(),
        updated_at: w.updated_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        deleted,
        status: w.status.clone(),
    }
}
