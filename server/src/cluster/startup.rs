//! Starting the cluster side: the tracker, the reconciler and what they need (the leader
//! election, the node watch, the API probe, the pokes between replicas), each supervised.

use super::index::Index;
use super::{ClusterHandle, EVENT_BUFFER, Shared, lease, namespace, nodes, notify, probe};
use super::{reconciler, tracker};
use crate::db::Database;
use crate::supervise;
use std::sync::{Arc, RwLock};
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::ownership::OwnerKey;
use tokio::sync::{broadcast, mpsc, watch};
use uuid::Uuid;

/// How this replica takes part in choosing the one that reconciles (`lease`).
pub struct Leadership {
    pub namespace: String,
    pub name: String,
    pub identity: String,
    pub duration: std::time::Duration,
}

/// What the cluster side runs with.
pub struct Settings {
    pub profile: ClusterProfile,
    pub resync: std::time::Duration,
    pub key: OwnerKey,
    pub metrics: Arc<crate::metrics::Metrics>,
    /// `None`: the only replica (SQLite), which always reconciles.
    pub leadership: Option<Leadership>,
    /// Whom to bind in each project namespace; `None`: Tephra's rights are its own everywhere.
    pub project_access: Option<crate::config::ProjectAccess>,
}

/// Starts the tracker and the reconciler on `client`, each supervised (restarted when it panics
/// or ends); they run until the process ends. Every replica runs the tracker (its watches feed
/// its own event streams); only the Lease's holder runs the reconciler.
pub fn start(id: &str, db: Database, client: kube::Client, settings: Settings) -> ClusterHandle {
    let Settings {
        profile,
        resync,
        key,
        metrics,
        leadership,
        project_access,
    } = settings;
    let db_for_pokes = db.clone();
    let (trigger_tx, trigger_rx) = mpsc::unbounded_channel();
    let (refresh_tx, refresh_rx) = mpsc::unbounded_channel();
    let (synced_tx, synced_rx) = watch::channel(false);
    let events = broadcast::channel(EVENT_BUFFER).0;
    let shared = Shared {
        index: Arc::new(RwLock::new(Index::new(key.clone()))),
        ..Shared::default()
    };
    let backoffs = Arc::default();
    let (leading_tx, leading_rx) = watch::channel(leadership.is_none());
    let leading_tx = Arc::new(leading_tx);
    let election = start_election(&client, leadership, &shared, &leading_tx);
    let tracker = Arc::new(tracker::Tracker {
        db: db.clone(),
        shared: shared.clone(),
        events: events.clone(),
        backoffs: Arc::clone(&backoffs),
        synced: synced_tx,
        client: client.clone(),
        refresh: Arc::new(tokio::sync::Mutex::new(refresh_rx)),
        trigger: trigger_tx.clone(),
        leading: leading_rx.clone(),
        generics: Default::default(),
    });
    supervise::supervise("tracker", shared.health.clone(), move || {
        let tracker = Arc::clone(&tracker);
        async move { tracker.run().await }
    });
    start_node_watch(&client, &shared, &profile);
    let namespaces = namespace::Namespaces::new(project_access, profile.ingress_namespace.clone());
    let reconciler = Arc::new(reconciler::Reconciler {
        db,
        client: client.clone(),
        profile,
        namespaces,
        shared: shared.clone(),
        key: key.clone(),
        backoffs,
        refresh: refresh_tx,
        events: events.clone(),
        resync,
        trigger: Arc::new(tokio::sync::Mutex::new(trigger_rx)),
        synced: synced_rx,
        metrics,
        leading: leading_rx.clone(),
    });
    probe::start(reconciler.client.clone(), &shared, resync);
    supervise::supervise("reconciler", shared.health.clone(), move || {
        let reconciler = Arc::clone(&reconciler);
        async move { reconciler.run().await }
    });
    let remote = start_pokes(
        &db_for_pokes,
        election.is_some(),
        &trigger_tx,
        &leading_rx,
        &shared,
    );
    ClusterHandle {
        id: id.to_owned(),
        trigger: Some(trigger_tx),
        remote,
        events,
        shared,
        leading: leading_rx,
        _leading: leading_tx,
        election,
        client: Some(client),
        key: Some(key),
    }
}

/// The Lease election of replicas sharing a database, kept running; `None` for the only replica.
fn start_election(
    client: &kube::Client,
    leadership: Option<Leadership>,
    shared: &Shared,
    leading_tx: &Arc<watch::Sender<bool>>,
) -> Option<Arc<lease::Election>> {
    let election = leadership.map(|l| {
        Arc::new(lease::Election::new(
            client.clone(),
            &l.namespace,
            &l.name,
            &l.identity,
            l.duration,
        ))
    });
    if let Some(election) = &election {
        let (election, leading) = (Arc::clone(election), Arc::clone(leading_tx));
        supervise::supervise("leader election", shared.health.clone(), move || {
            let (election, leading) = (Arc::clone(&election), Arc::clone(&leading));
            async move { election.run(&leading).await }
        });
    }
    election
}

/// Pokes between replicas sharing a PostgreSQL database, so an action on a follower wakes the
/// leader's reconciler at once; `None` for the only replica.
fn start_pokes(
    db: &Database,
    replicated: bool,
    trigger_tx: &mpsc::UnboundedSender<Uuid>,
    leading_rx: &watch::Receiver<bool>,
    shared: &Shared,
) -> Option<mpsc::UnboundedSender<Uuid>> {
    match (db, replicated) {
        (Database::Postgres(pool), true) => Some(notify::start(
            pool.clone(),
            trigger_tx.clone(),
            leading_rx.clone(),
            shared.health.clone(),
        )),
        _ => None,
    }
}

/// The watch of the nodes by pool, kept running: admission refuses a pod no node can hold.
fn start_node_watch(client: &kube::Client, shared: &Shared, profile: &ClusterProfile) {
    let (node_client, node_shared) = (client.clone(), shared.clone());
    let pool_label = profile.node_pool_label.clone();
    supervise::supervise("node watch", shared.health.clone(), move || {
        nodes::watch(node_client.clone(), node_shared.clone(), pool_label.clone())
    });
}
