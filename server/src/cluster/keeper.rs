//! Keeps the last lines of a failing training's container logs (`kept_logs`), with what they hint
//! at (`tephra_core::domain::log_hints`), so its page still explains the failure once the Job
//! and its pods are collected; and drops what was kept after the cluster profile's
//! `keptLogsDays`, and what deleted workloads kept.
//!
//! The controller asks for a read when a training fails or a diagnosis says why it is failing
//! ([`Keeper::ask`]); a supervised task beside the controller does the reads, [`AT_ONCE`] at a
//! time, so a slow API server holds no reconcile and a hundred failures at once make no hundred
//! readers. Each read is bounded: at most [`MOST_PODS`] pods, the profile's `keptLogLines` lines
//! (at most [`MOST_LINES`]) of each container, each cut to [`LINE_CHARS`] characters, each read
//! given [`READ_FOR`].

use super::logs;
use crate::db::Database;
use crate::supervise::{self, Health};
use futures::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tephra_core::domain::log_hints::hints;
use tephra_core::domain::logs::{LogRequest, Tail};
use tephra_core::model::kept::KeptLog;
use tephra_core::model::live::PodInfo;
use tokio::sync::mpsc;
use uuid::Uuid;

/// The most pods whose logs one failure keeps.
pub const MOST_PODS: usize = 16;
/// The most lines kept of one container, whatever the profile says.
pub const MOST_LINES: u32 = 1000;
/// The longest line kept, in characters.
pub const LINE_CHARS: usize = 500;
/// How long one container's read may take.
const READ_FOR: Duration = Duration::from_secs(5);

/// The last `count` lines of one container's log (its previous run's with `previous`); none
/// when they cannot be read in time.
async fn tail(
    client: &kube::Client,
    namespace: &str,
    pod: &str,
    container: &str,
    previous: bool,
    count: u32,
) -> Vec<String> {
    let request = LogRequest {
        container: container.to_owned(),
        tail: Tail::Lines(i64::from(count)),
        since_seconds: None,
        follow: false,
        timestamps: false,
        previous,
        download: false,
    };
    let read = async {
        let Ok(lines) = logs::lines(client, namespace, pod, &request).await else {
            return Vec::new();
        };
        lines
            .take(count as usize)
            .filter_map(|line| async move { line.ok() })
            .map(|line| line.chars().take(LINE_CHARS).collect())
            .collect()
            .await
    };
    tokio::time::timeout(READ_FOR, read)
        .await
        .unwrap_or_default()
}

/// The tails of `pods`' containers in `namespace`: a container that restarted and has nothing
/// in its current log gives its previous run's.
pub async fn read(
    client: &kube::Client,
    namespace: &str,
    pods: &[PodInfo],
    count: u32,
) -> Vec<KeptLog> {
    let count = count.min(MOST_LINES);
    let taken_at = chrono::Utc::now().to_rfc3339();
    let mut kept = Vec::new();
    for pod in pods.iter().take(MOST_PODS) {
        for container in &pod.containers {
            let mut previous = false;
            let mut lines = tail(client, namespace, &pod.name, container, false, count).await;
            if lines.is_empty() && pod.restarts > 0 {
                previous = true;
                lines = tail(client, namespace, &pod.name, container, true, count).await;
            }
            if lines.is_empty() {
                continue;
            }
            kept.push(KeptLog {
                pod: pod.name.clone(),
                container: container.clone(),
                previous,
                hints: hints(lines.iter().map(String::as_str)),
                lines,
                taken_at: taken_at.clone(),
            });
        }
    }
    kept
}

/// Reads and keeps workload `id`'s tails, replacing what it kept before; keeps nothing (and
/// leaves what was kept) when no log could be read.
pub async fn keep(
    db: &Database,
    client: &kube::Client,
    id: Uuid,
    namespace: &str,
    pods: &[PodInfo],
    count: u32,
) {
    let kept = read(client, namespace, pods, count).await;
    if kept.is_empty() {
        return;
    }
    if let Err(e) = db
        .workloads()
        .keep_logs(id, &kept, chrono::Utc::now())
        .await
    {
        tracing::warn!(workload = %id, error = %e, "cannot keep the failing training's log lines");
    }
}

/// How many reads run at once.
pub const AT_ONCE: usize = 4;
/// How many asks may wait for a reader; past that, a failure's lines are not kept (and said).
const WAITING: usize = 256;

/// One ask: keep the tails of workload `id`'s `pods`.
#[derive(Debug)]
pub struct Ask {
    pub id: Uuid,
    pub project: Uuid,
    pub pods: Vec<PodInfo>,
    pub lines: u32,
}

/// Where the controller sends its asks.
#[derive(Clone)]
pub struct Keeper(mpsc::Sender<Ask>);

impl Keeper {
    /// Starts the supervised reader of the asks.
    pub fn start(db: Database, client: kube::Client, health: &Health) -> Keeper {
        let (tx, rx) = mpsc::channel(WAITING);
        let asks = Arc::new(tokio::sync::Mutex::new(rx));
        supervise::supervise("log keeper", health.clone(), move || {
            let (db, client, asks) = (db.clone(), client.clone(), Arc::clone(&asks));
            async move { serve(&db, &client, &asks).await }
        });
        Keeper(tx)
    }

    /// Asks for `ask`'s tails to be kept, without waiting.
    pub fn ask(&self, ask: Ask) {
        if let Err(e) = self.0.try_send(ask) {
            let ask = match e {
                mpsc::error::TrySendError::Full(ask) | mpsc::error::TrySendError::Closed(ask) => {
                    ask
                }
            };
            tracing::warn!(workload = %ask.id, "too many failing trainings at once; their log lines are not kept");
        }
    }
}

async fn serve(
    db: &Database,
    client: &kube::Client,
    asks: &tokio::sync::Mutex<mpsc::Receiver<Ask>>,
) {
    let mut asks = asks.lock().await;
    futures::stream::poll_fn(|cx| asks.poll_recv(cx))
        .for_each_concurrent(AT_ONCE, |ask| async move {
            match db.projects().get(ask.project).await {
                Ok(project) => {
                    keep(db, client, ask.id, &project.namespace, &ask.pods, ask.lines).await
                }
                Err(e) => {
                    tracing::warn!(workload = %ask.id, error = %e, "cannot keep its log lines")
                }
            }
        })
        .await
}

/// How often what was kept is checked against the retention.
const FORGET_EVERY: Duration = Duration::from_secs(3600);

/// Drops kept tails older than the profile's `keptLogsDays`, and those of deleted workloads:
/// beside the controller, by the replica that leads (supervised).
#[derive(Clone)]
pub struct Retention {
    db: Database,
    cluster: super::ClusterHandle,
    days: u32,
}

impl Retention {
    pub fn new(db: Database, cluster: super::ClusterHandle, days: u32) -> Self {
        Retention { db, cluster, days }
    }

    pub async fn run(self) {
        self.cluster
            .every_while_leading(FORGET_EVERY, "the kept logs' retention", || self.apply())
            .await
    }

    async fn apply(&self) -> Result<u64, crate::db::DbError> {
        let before = chrono::Utc::now() - chrono::Duration::days(i64::from(self.days));
        self.db.workloads().forget_kept_logs(before).await
    }
}
