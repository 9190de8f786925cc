//! The workload service: submitting, finding, listing and acting on workloads for a principal,
//! within the projects it may use. It returns [`AppError`]s; the HTTP layer maps them to answers
//! in one place (`crate::http::api::error`), and handlers never reach around it to the database.

mod act;
mod admission;
mod clusters;
mod edit;
pub mod exposed;
mod fit;
mod gpu_use;
mod logs;
mod metrics;
mod observe;
mod org;
mod org_page;
mod org_projects;
mod policy;
mod project_usage;
mod read;
mod submit;
mod view;

pub use clusters::{ClusterInfo, ClusterState};
pub use gpu_use::Span;
pub use observe::ReconcilerView;
pub use policy::ScopePolicy;
pub use view::workload_response;

use crate::cluster::ClusterHandle;
use crate::db::projects::Project;
use crate::db::{Database, DbError};
use app::error::AppError;
use std::sync::Arc;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::Workload;

/// Most workloads one page returns.
pub const PAGE_MAX: i64 = 500;
pub const PAGE_DEFAULT: i64 = 50;

/// The database, the cluster and what requests are rendered against.
#[derive(Clone)]
pub struct Control {
    pub db: Database,
    pub cluster: ClusterHandle,
    /// What submitted requests are rendered against, to reject what would not render later.
    pub profile: Arc<ClusterProfile>,
    /// Most pods one workload may ask for at once (`--max-pods-per-workload`).
    pub max_pods: u64,
    /// What projects' namespaces and queues start with (`--namespace-prefix`), and where
    /// Tephra itself runs, which no project may use.
    pub namespaces: tephra_core::domain::namespaces::NamespaceRules,
    /// What `/metrics` serves; the HTTP layer and the reconciler count into it.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Where GPU use is read (`--prometheus-url`); `None` shows none and applies no idle rule.
    pub prometheus: Option<crate::prometheus::Prometheus>,
}

/// A page of a list.
pub struct Page {
    pub workloads: Vec<Workload>,
    pub total: i64,
    pub next: Option<i64>,
    pub offset: i64,
    pub limit: i64,
}

/// Finds a project by id (Run:ai's integer, or the UUID) or name, as requests name them; the error names the request
/// field that held `key`.
pub async fn project_by_key(db: &Database, key: &str, field: &str) -> Result<Project, AppError> {
    match db.projects().by_key(key).await {
        Ok(project) => Ok(project),
        Err(DbError::NotFound) => Err(AppError::field(
            field,
            format!(
                "no project has the id or name {key:?}; GET /api/v1/org-unit/projects lists them"
            ),
        )),
        Err(e) => Err(e.into()),
    }
}

/// How lists and annotations name a person: e-mail, else display name.
fn creator_of(principal: &Principal) -> String {
    principal
        .email
        .clone()
        .unwrap_or_else(|| principal.display_name.clone())
}
