//! Projects: the unit of membership, quota and placement (one namespace and one queue each).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectSummary {
    pub id: String,
    pub name: String,
    pub namespace: String,
    pub queue: String,
    pub trainings: i64,
    /// RFC 3339.
    pub created_at: String,
    pub department: String,
    /// GPUs its workloads that may run ask for together.
    pub gpus_in_use: f64,
    /// Its GPU quota and limit over its node pools; `None`: none.
    pub gpu_quota: Option<f64>,
    pub gpu_limit: Option<f64>,
}
