//! What the HTTP edge may observe of the cluster and the store (the cluster's state and identity
//! for the API, readiness, the event stream's subscription, the `/metrics` text), so no handler
//! reaches into the cluster's shared state or the database itself.

mod clusters;
mod metrics;

pub use clusters::{ClusterInfo, ClusterState};

use crate::cluster::{ClusterHandle, Orphan, Published};
use crate::db::Database;
use crate::metrics::Metrics;
use serde::Serialize;
use std::sync::Arc;
use tephra_core::domain::authz::Permission;
use tephra_core::model::principal::Principal;
use tokio::sync::broadcast;

/// The cluster as the controller sees it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ClusterState)]
pub struct ReconcilerView {
    pub id: String,
    /// Whether Tephra has a cluster configured at all.
    pub configured: bool,
    /// The last error talking to the API server, if the last attempt failed.
    pub last_error: Option<String>,
    /// Volcano Jobs with Tephra's labels in project namespaces that no workload owns.
    pub orphans: Vec<Orphan>,
}

/// The database, the cluster's handle and the metrics it reports into.
pub struct Observe {
    db: Database,
    /// The readiness probe's own connection and its last answer.
    prober: Arc<crate::db::Prober>,
    cluster: ClusterHandle,
    metrics: Arc<Metrics>,
    /// The cluster's name, from the cluster profile.
    cluster_name: String,
}

impl Observe {
    pub(super) fn new(
        db: Database,
        cluster: ClusterHandle,
        metrics: Arc<Metrics>,
        cluster_name: String,
    ) -> Self {
        Observe {
            prober: Arc::new(crate::db::Prober::new(db.clone())),
            db,
            cluster,
            metrics,
            cluster_name,
        }
    }

    /// The cluster as the controller sees it, for `principal`: the API server's error and the
    /// orphaned Jobs (every project's names) only for system administrators.
    pub fn cluster_state(&self, principal: &Principal) -> ReconcilerView {
        let admin = crate::authorize::require_system(principal, Permission::ManageSystem).is_ok();
        let shared = &self.cluster.shared;
        let last_error = shared
            .last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let orphans = if admin {
            shared
                .orphans
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
        } else {
            Vec::new()
        };
        ReconcilerView {
            id: self.cluster.id.clone(),
            configured: self.cluster.is_configured(),
            last_error: last_error.map(|error| {
                if admin {
                    error
                } else {
                    "the cluster's API server does not answer; system administrators see why".into()
                }
            }),
            orphans,
        }
    }

    /// Whether the database answers: what it answered within the last seconds, or asked now.
    pub async fn database_answers(&self) -> crate::db::DbAnswer {
        self.prober.answer().await
    }

    /// Keeps the database's answer fresh from a task of its own, until the pool closes.
    pub fn keep_asking_the_database(&self) {
        tokio::spawn(self.prober.clone().keep_asking());
    }

    /// Why the cluster is not ready, for operators; empty when it is.
    pub fn cluster_problems(&self) -> Vec<String> {
        self.cluster.shared.problems()
    }

    /// Every workload change from now on, for one event stream.
    pub fn subscribe(&self) -> broadcast::Receiver<std::sync::Arc<Published>> {
        self.cluster.events.subscribe()
    }
}

#[cfg(test)]
mod tests;
