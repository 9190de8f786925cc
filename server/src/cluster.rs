//! The cluster side: finding the Kubernetes API, the reconciler that makes the cluster match the
//! database (ARCHITECTURE.md D1), and the tracker that watches what happens and reports it (D7).
//!
//! The database is the system of record. Handlers only write rows and [`ClusterHandle::poke`] the
//! reconciler; nothing on a request path waits for the cluster, so Tephra keeps accepting work
//! while the API server is unreachable and converges once it is back.

pub mod index;
pub mod objects;
pub mod reconciler;
pub mod tracker;

use crate::db::{Database, workloads::Workload};
use crate::domain::cluster::ClusterProfile;
use anyhow::Context;
use app::model::workload::WorkloadEvent;
use chrono::SecondsFormat;
use index::Index;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::{broadcast, mpsc, watch};
use uuid::Uuid;

/// How many status changes the event stream buffers for a slow client before it must resync.
const EVENT_BUFFER: usize = 4096;

/// Why the reconciler could not act on a workload, by workload (e.g. "cluster unreachable").
pub type Problems = Arc<Mutex<HashMap<Uuid, String>>>;

/// A Volcano Job that carries Tephra's labels in one of Tephra's project namespaces but has no
/// workload row. Reported, never deleted: it may be someone's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Orphan {
    pub namespace: String,
    pub workload_id: String,
}

/// State the tracker and the reconciler share with the HTTP side.
#[derive(Clone, Default)]
pub struct Shared {
    pub index: Arc<RwLock<Index>>,
    pub orphans: Arc<Mutex<Vec<Orphan>>>,
    /// The last error talking to the API server, cleared by the next success.
    pub last_error: Arc<Mutex<Option<String>>>,
}

/// What HTTP handlers hold of the cluster side.
#[derive(Clone)]
pub struct ClusterHandle {
    /// The id workloads record as their `clusterId`.
    pub id: String,
    /// Wakes the reconciler for one workload; `None` when no cluster is configured.
    trigger: Option<mpsc::UnboundedSender<Uuid>>,
    pub events: broadcast::Sender<WorkloadEvent>,
    pub shared: Shared,
}

/// The reason a workload shows while Tephra has no cluster to run it on.
pub const NO_CLUSTER: &str =
    "no Kubernetes cluster is configured; the training starts once Tephra runs with one";

impl ClusterHandle {
    /// A handle for a server without a cluster: workloads are stored and wait.
    pub fn detached(id: &str) -> Self {
        ClusterHandle {
            id: id.to_owned(),
            trigger: None,
            events: broadcast::channel(EVENT_BUFFER).0,
            shared: Shared::default(),
        }
    }

    pub fn is_configured(&self) -> bool {
        self.trigger.is_some()
    }

    /// Asks the reconciler to look at a workload now (it also looks at all of them periodically).
    pub fn poke(&self, id: Uuid) {
        if let Some(trigger) = &self.trigger {
            let _ = trigger.send(id);
        }
    }
}

/// The Kubernetes client for the configured cluster, found the standard way: `kubeconfig` when
/// given, else `KUBECONFIG`, `~/.kube/config`, or the in-cluster service account. `None` when
/// none of those exists; an existing but broken configuration is an error.
pub async fn connect(kubeconfig: Option<&Path>) -> anyhow::Result<Option<kube::Client>> {
    use kube::config::{KubeConfigOptions, Kubeconfig};
    let config = if let Some(path) = kubeconfig {
        let file = Kubeconfig::read_from(path)
            .with_context(|| format!("cannot read the kubeconfig {}", path.display()))?;
        kube::Config::from_custom_kubeconfig(file, &KubeConfigOptions::default())
            .await
            .with_context(|| format!("the kubeconfig {} is not usable", path.display()))?
    } else {
        let home_config = std::env::var_os("HOME")
            .map(|home| Path::new(&home).join(".kube/config"))
            .is_some_and(|p| p.exists());
        let in_cluster = std::env::var_os("KUBERNETES_SERVICE_HOST").is_some();
        if std::env::var_os("KUBECONFIG").is_none() && !home_config && !in_cluster {
            return Ok(None);
        }
        kube::Config::infer().await.context(
            "cannot load the Kubernetes configuration (KUBECONFIG, ~/.kube/config or in-cluster)",
        )?
    };
    Ok(Some(
        kube::Client::try_from(config).context("cannot build a Kubernetes client")?,
    ))
}

/// Starts the tracker and the reconciler on `client`; they run until the process ends.
pub fn start(
    id: &str,
    db: Database,
    client: kube::Client,
    profile: ClusterProfile,
    resync: std::time::Duration,
) -> ClusterHandle {
    let (trigger_tx, trigger_rx) = mpsc::unbounded_channel();
    let (refresh_tx, refresh_rx) = mpsc::unbounded_channel();
    let (synced_tx, synced_rx) = watch::channel(false);
    let events = broadcast::channel(EVENT_BUFFER).0;
    let shared = Shared::default();
    let problems = Problems::default();
    let tracker = tracker::Tracker {
        db: db.clone(),
        shared: shared.clone(),
        events: events.clone(),
        problems: problems.clone(),
        synced: synced_tx,
    };
    tokio::spawn(tracker.run(client.clone(), refresh_rx));
    let reconciler = reconciler::Reconciler {
        db,
        client,
        profile,
        shared: shared.clone(),
        problems,
        refresh: refresh_tx,
        events: events.clone(),
        resync,
    };
    tokio::spawn(reconciler.run(trigger_rx, synced_rx));
    ClusterHandle {
        id: id.to_owned(),
        trigger: Some(trigger_tx),
        events,
        shared,
    }
}

/// The event the stream sends for a workload row.
pub fn event_of(w: &Workload, deleted: bool) -> WorkloadEvent {
    WorkloadEvent {
        workload_id: w.id.to_string(),
        project_id: w.project_id.to_string(),
        name: w.name.clone(),
        kind: w.kind.as_str().to_owned(),
        desired_phase: w.desired_phase,
        actual_phase: w.actual_phase,
        phase_message: w.phase_reason.clone(),
        updated_at: w.updated_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        deleted,
        status: w.status.clone(),
    }
}
