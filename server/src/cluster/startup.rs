//! Starting the cluster side: the watches, the controller and what they need (the leader
//! election, the node watch, the API probe, the pokes between replicas), each supervised.

use super::controller::{self, Controller};
use super::index::Index;
use super::watches::Watches;
use super::{ClusterHandle, EVENT_BUFFER, Shared, keeper, lease, namespace, nodes, notify, probe};
use crate::db::Database;
use crate::supervise;
use kube::runtime::scheduler::ScheduleRequest;
use std::sync::{Arc, Mutex, RwLock};
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::ownership::OwnerKey;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;
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

/// Starts the watches and the controller on `client`, each supervised (restarted when it panics
/// or ends); they run until the process ends or the handle is released. Every replica runs both
/// (the controller derives status for its own event streams); only the Lease's holder writes
/// status and acts.
pub fn start(id: &str, db: Database, client: kube::Client, settings: Settings) -> ClusterHandle {
    let Settings {
        profile,
        resync,
        key,
        metrics,
        leadership,
        project_access,
    } = settings;
    let (trigger_tx, trigger_rx) = mpsc::unbounded_channel();
    let (requests_tx, requests_rx) = mpsc::unbounded_channel();
    let (synced_tx, synced_rx) = watch::channel(false);
    let events = broadcast::channel(EVENT_BUFFER).0;
    let shared = Shared {
        index: Arc::new(RwLock::new(Index::new(key.clone()))),
        ..Shared::default()
    };
    let (leading_tx, leading_rx) = watch::channel(leadership.is_none());
    let leading_tx = Arc::new(leading_tx);
    let election = start_election(&client, leadership, &shared, &leading_tx);
    let pacer = Arc::new(Mutex::new(controller::pacer::Pacer::new(
        crate::cluster::watches::PUBLISH_EVERY,
    )));
    let watches = Arc::new(Watches {
        shared: shared.clone(),
        synced: synced_tx,
        client: client.clone(),
        requests: requests_tx.clone(),
        pacer: Arc::clone(&pacer),
    });
    supervise::supervise("watches", shared.health.clone(), move || {
        let watches = Arc::clone(&watches);
        async move { watches.run().await }
    });
    start_node_watch(&client, &shared, &profile);
    let namespaces = namespace::Namespaces::new(project_access, profile.ingress_namespace.clone());
    let controller = Arc::new(Controller {
        db: db.clone(),
        client: client.clone(),
        profile,
        namespaces,
        shared: shared.clone(),
        key: key.clone(),
        events: events.clone(),
        metrics,
        leading: leading_rx.clone(),
        synced: synced_rx,
        resync,
        backoffs: Mutex::default(),
        generics: Default::default(),
        asked: Mutex::default(),
        pacer,
        org_synced: std::sync::Mutex::new(None),
        org_sync: tokio::sync::Mutex::new(()),
        requests: requests_tx,
        keeper: keeper::Keeper::start(db.clone(), client.clone(), &shared.health),
    });
    probe::start(client.clone(), &shared, resync);
    let stop = CancellationToken::new();
    let drained = start_controller(&controller, requests_rx, trigger_rx, &shared, &stop);
    let remote = start_pokes(&db, election.is_some(), &trigger_tx, &leading_rx, &shared);
    ClusterHandle {
        id: id.to_owned(),
        trigger: Some(trigger_tx),
        remote,
        events,
        shared,
        leading: leading_rx,
        _leading: leading_tx,
        election,
        stop,
        drained: Some(drained),
        client: Some(client),
        key: Some(key),
    }
}

/// The controller's two loops, supervised: the requests it serves (on every replica) and the
/// leader's passes and pokes. The returned watch turns true once the controller has stopped
/// after `stop` and its reconciles under way have finished.
fn start_controller(
    controller: &Arc<Controller>,
    requests: mpsc::UnboundedReceiver<ScheduleRequest<Uuid>>,
    pokes: mpsc::UnboundedReceiver<Uuid>,
    shared: &Shared,
    stop: &CancellationToken,
) -> watch::Receiver<bool> {
    let (drained_tx, drained_rx) = watch::channel(false);
    let requests = Arc::new(tokio::sync::Mutex::new(requests));
    let (serving, stopping, drained_tx) =
        (Arc::clone(controller), stop.clone(), Arc::new(drained_tx));
    supervise::supervise("controller", shared.health.clone(), move || {
        let (controller, requests, stop) = (
            Arc::clone(&serving),
            Arc::clone(&requests),
            stopping.clone(),
        );
        let drained = Arc::clone(&drained_tx);
        async move {
            controller.run(&requests, stop.clone()).await;
            if stop.is_cancelled() {
                drained.send_replace(true);
                // Stopped for good: the supervisor must not start it again.
                std::future::pending::<()>().await;
            }
        }
    });
    let pokes = Arc::new(tokio::sync::Mutex::new(pokes));
    let (leader, stopping) = (Arc::clone(controller), stop.clone());
    supervise::supervise("leader passes", shared.health.clone(), move || {
        let (controller, pokes, stop) = (Arc::clone(&leader), Arc::clone(&pokes), stopping.clone());
        async move {
            tokio::select! {
                () = controller.lead(&pokes) => {}
                () = stop.cancelled() => std::future::pending::<()>().await,
            }
        }
    });
    drained_rx
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
/// leader's controller at once; `None` for the only replica.
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
