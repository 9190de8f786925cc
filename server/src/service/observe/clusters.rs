//! The cluster this Tephra manages, as Run:ai's clusters API shows it to scripts: its stable id,
//! name, when it was first seen and whether Tephra can reach it.

use super::Observe;
use crate::cluster::CLUSTER_CREATED_AT_SETTING;
use app::error::AppError;

/// What Tephra knows of its cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterInfo {
    /// A UUID, created at the first start (or `--cluster-id`).
    pub id: String,
    /// From the cluster profile.
    pub name: String,
    /// RFC 3339.
    pub created_at: String,
    pub state: ClusterState,
}

/// Run:ai's cluster states that Tephra can tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterState {
    /// The API server answers and every watch and the controller run.
    Connected,
    /// The last call to the API server failed.
    Disconnected,
    /// The API server answers, but a background task is down.
    ServiceIssues,
    /// Tephra runs without a cluster: workloads are stored and wait.
    WaitingToConnect,
}

impl ClusterState {
    pub fn as_str(self) -> &'static str {
        match self {
            ClusterState::Connected => "Connected",
            ClusterState::Disconnected => "Disconnected",
            ClusterState::ServiceIssues => "ServiceIssues",
            ClusterState::WaitingToConnect => "WaitingToConnect",
        }
    }
}

impl Observe {
    pub async fn cluster_info(&self) -> Result<ClusterInfo, AppError> {
        let created_at = self
            .db
            .settings()
            .get_or_create(CLUSTER_CREATED_AT_SETTING, || {
                chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            })
            .await?;
        let shared = &self.cluster.shared;
        let disconnected = shared
            .last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        let state = if !self.cluster.is_configured() {
            ClusterState::WaitingToConnect
        } else if disconnected {
            ClusterState::Disconnected
        } else if !shared.health.down().is_empty() {
            ClusterState::ServiceIssues
        } else {
            ClusterState::Connected
        };
        Ok(ClusterInfo {
            id: self.cluster.id.clone(),
            name: self.cluster_name.clone(),
            created_at,
            state,
        })
    }
}
