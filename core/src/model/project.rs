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

/// A project's use of what it may use, for its page: per resource, per node pool and per user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectUsage {
    pub project: ProjectSummary,
    /// GPUs, CPU and memory, in that order.
    pub resources: Vec<ResourceUse>,
    /// The pools the project has a share in or holds GPUs in.
    pub pools: Vec<PoolUse>,
    /// Users with workloads that may run, by name.
    pub users: Vec<UserUse>,
}

/// One resource of a project: its quota and limit over its pools, what its placed workloads
/// hold and what its admitted ones wait for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceUse {
    /// With its unit: "GPUs", "CPU (cores)", "Memory (GiB)".
    pub resource: String,
    pub quota: Option<f64>,
    pub limit: Option<f64>,
    pub allocated: f64,
    pub pending: f64,
}

/// A project's GPU share in one node pool and the GPUs its pods hold on the pool's nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolUse {
    pub pool: String,
    pub gpu_quota: Option<f64>,
    pub gpu_limit: Option<f64>,
    pub allocated_gpus: f64,
}

/// What one user's workloads in a project hold (placed) and wait for (admitted, not placed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserUse {
    pub user: String,
    pub trainings: i64,
    pub allocated_gpus: f64,
    pub pending_gpus: f64,
    /// Placed and pending together.
    pub cpu_cores: f64,
    pub memory_gib: f64,
}
