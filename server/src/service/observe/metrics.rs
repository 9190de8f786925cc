//! What `/metrics` reads when scraped: the workloads by project and phase, whether the cluster
//! answers, and the database pool.

use super::Observe;
use crate::metrics::Snapshot;
use app::error::AppError;

impl Observe {
    /// The metrics in the text exposition format, with the scrape-time figures read now.
    pub async fn metrics_text(&self) -> Result<String, AppError> {
        let workloads = self.db.workloads().count_by_project_and_phase().await?;
        let cluster_reachable = self
            .cluster
            .is_configured()
            .then(|| self.cluster.shared.problems().is_empty());
        let snapshot = Snapshot {
            workloads,
            cluster_reachable,
            pool: self.db.pool_use(),
            leading: *self.cluster.leading.borrow(),
        };
        self.metrics.encode(snapshot).await.map_err(|error| {
            tracing::error!(%error, "cannot encode the metrics");
            AppError::Internal
        })
    }
}
