//! The workload service: submitting, finding, listing and acting on workloads for a principal,
//! within the projects it may use, with their logs, GPU use and exposed URLs. It returns
//! [`AppError`]s; the HTTP layer maps them to answers in one place (`crate::http::error`), and
//! handlers never reach around it to the database.

mod act;
mod admission;
mod cursor;
mod detail;
mod edit;
mod eta;
mod exposed;
mod fit;
mod gpu_use;
mod logs;
mod queue;
mod read;
mod submit;
mod view;

pub use admission::stored_limit;
pub use exposed::{ExposedTarget, may_open};
pub use gpu_use::Span;
pub use submit::Accepted;
pub use view::workload_response;

use crate::cluster::ClusterHandle;
use crate::db::Database;
use crate::prometheus::Prometheus;
use std::sync::Arc;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::Workload;

/// Most workloads one page returns.
pub const PAGE_MAX: i64 = 500;
pub const PAGE_DEFAULT: i64 = 50;

/// The database, the cluster and what requests are rendered against.
pub struct Workloads {
    db: Database,
    cluster: ClusterHandle,
    /// What submitted requests are rendered against, to reject what would not render later.
    profile: Arc<ClusterProfile>,
    /// Most pods one workload may ask for at once (`--max-pods-per-workload`).
    max_pods: u64,
    /// Where GPU use is read (`--prometheus-url`); `None` shows none.
    prometheus: Option<Prometheus>,
    /// The order of the waiting workloads, computed at most once a second (`queue`).
    boards: Arc<queue::Boards>,
}

impl Workloads {
    pub(super) fn new(
        db: Database,
        cluster: ClusterHandle,
        profile: Arc<ClusterProfile>,
        max_pods: u64,
        prometheus: Option<Prometheus>,
    ) -> Self {
        Workloads {
            db,
            cluster,
            profile,
            max_pods,
            prometheus,
            boards: Arc::default(),
        }
    }

    /// Workload `id` changed here (a user's action): the controller looks at it now, and the
    /// next place read sees the change.
    fn changed(&self, id: uuid::Uuid) {
        self.boards.acted_on(id);
        self.cluster.poke(id);
    }

    /// The profile's `ingressHost` when forward auth is on (exposed URLs open through Tephra).
    pub fn forward_auth_host(&self) -> Option<&str> {
        self.profile.forward_auth.as_ref()?;
        self.profile.ingress_host.as_deref()
    }
}

/// A page of a list, and how many match in all.
pub struct Page {
    pub workloads: Vec<Workload>,
    pub total: i64,
    pub next: Option<i64>,
    /// Where the next page starts (`after`), when there is one.
    pub next_cursor: Option<String>,
    pub offset: i64,
    pub limit: i64,
}

/// A page of a list without the count ([`Workloads::list_uncounted`]).
pub struct Slice {
    pub workloads: Vec<Workload>,
    pub next: Option<i64>,
    pub next_cursor: Option<String>,
    pub offset: i64,
    pub limit: i64,
}

/// How lists and annotations name a person: e-mail, else display name.
fn creator_of(principal: &Principal) -> String {
    principal
        .email
        .clone()
        .unwrap_or_else(|| principal.display_name.clone())
}

#[cfg(test)]
mod tests;
