//! The organisation: departments and projects, their quotas and use, the node pools they share,
//! and the policies requests are checked against. System administrators manage departments and
//! the system's policy; department administrators manage their department's projects within its
//! quota. Each change wakes the cluster side (`org_changed`), which brings queues and namespaces
//! along.

mod departments;
mod page;
mod policy;
mod project_usage;
mod projects;

pub use policy::ScopePolicy;

use crate::cluster::ClusterHandle;
use crate::db::Database;
use tephra_core::domain::namespaces::NamespaceRules;

/// The database, the cluster (its id, its nodes, whether a namespace is Tephra's) and the rules
/// projects' namespaces follow.
pub struct Organisation {
    db: Database,
    cluster: ClusterHandle,
    /// What projects' namespaces and queues start with (`--namespace-prefix`), and where
    /// Tephra itself runs, which no project may use.
    namespaces: NamespaceRules,
}

impl Organisation {
    pub(super) fn new(db: Database, cluster: ClusterHandle, namespaces: NamespaceRules) -> Self {
        Organisation {
            db,
            cluster,
            namespaces,
        }
    }
}

#[cfg(test)]
mod tests;
