//! The services: what Tephra does for a principal, one module per noun. REST handlers
//! (`crate::http::api`) and server functions (through [`port`], the UI's port) call the same
//! methods of one [`Services`], which start-up and tests build in one place ([`Services::new`]).
//!
//! - [`workloads`]: submitting, editing, acting on, reading and previewing workloads, their logs,
//!   GPU use and exposed URLs.
//! - [`organisation`]: departments, projects, their quotas and use, and policies.
//! - [`access`]: access rules, applications, the audit trail and the users.
//! - [`observe`]: the cluster's state, readiness, the event subscription and the metrics text.
//!
//! Each noun holds only the handles it uses; what more than one needs is a free function in
//! [`lookup`], so no noun reaches into another. Services return [`app::error::AppError`]s; HTTP
//! maps them to answers in one place (`crate::http::error`), and authorization is decided in
//! `crate::authorize`.

pub mod access;
mod lookup;
pub mod observe;
pub mod organisation;
mod port;
#[cfg(test)]
mod testing;
pub mod workloads;

use crate::auth::Authenticator;
use crate::cluster::ClusterHandle;
use crate::db::Database;
use crate::metrics::Metrics;
use crate::prometheus::Prometheus;
use access::Access;
use chrono::{DateTime, Utc};
use observe::Observe;
use organisation::Organisation;
use std::sync::Arc;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::namespaces::NamespaceRules;
use workloads::Workloads;

/// What the services are built from: the store, the cluster and the settings requests are
/// checked against.
pub struct ServiceConfig {
    pub db: Database,
    pub cluster: ClusterHandle,
    /// What submitted requests are rendered against, to reject what would not render later.
    pub profile: Arc<ClusterProfile>,
    /// Most pods one workload may ask for at once (`--max-pods-per-workload`).
    pub max_pods: u64,
    /// What projects' namespaces and queues start with (`--namespace-prefix`), and where
    /// Tephra itself runs, which no project may use.
    pub namespaces: NamespaceRules,
    /// What `/metrics` serves; the HTTP layer and the controller count into it.
    pub metrics: Arc<Metrics>,
    /// Where GPU use is read (`--prometheus-url`); `None` shows none and applies no idle rule.
    pub prometheus: Option<Prometheus>,
}

/// Every service, cheap to clone (each noun is shared).
#[derive(Clone)]
pub struct Services {
    workloads: Arc<Workloads>,
    organisation: Arc<Organisation>,
    access: Arc<Access>,
    observe: Arc<Observe>,
    /// Who sent a request: sessions, tokens, the identity provider.
    auth: Arc<Authenticator>,
    metrics: Arc<Metrics>,
    started_at: DateTime<Utc>,
}

impl Services {
    pub fn new(config: ServiceConfig, auth: Authenticator) -> Self {
        let ServiceConfig {
            db,
            cluster,
            profile,
            max_pods,
            namespaces,
            metrics,
            prometheus,
        } = config;
        Services {
            observe: Arc::new(Observe::new(
                db.clone(),
                cluster.clone(),
                Arc::clone(&metrics),
                profile.name.clone(),
            )),
            organisation: Arc::new(Organisation::new(db.clone(), cluster.clone(), namespaces)),
            access: Arc::new(Access::new(db.clone())),
            workloads: Arc::new(Workloads::new(db, cluster, profile, max_pods, prometheus)),
            auth: Arc::new(auth),
            metrics,
            started_at: Utc::now(),
        }
    }

    pub fn workloads(&self) -> &Workloads {
        &self.workloads
    }

    pub fn organisation(&self) -> &Organisation {
        &self.organisation
    }

    pub fn access(&self) -> &Access {
        &self.access
    }

    pub fn observe(&self) -> &Observe {
        &self.observe
    }

    /// Sign-in, sessions and tokens.
    pub fn auth(&self) -> &Authenticator {
        &self.auth
    }

    /// What `/metrics` serves, for the HTTP layer to count requests and streams into.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }
}
