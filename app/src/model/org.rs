//! Departments and projects as Run:ai's org-unit API spells them: resources per node pool, each
//! with a quota (`deserved`), a ceiling (`limit`, over-quota included) and an over-quota weight.
//! `null` means no quota, or no limit, as in Run:ai.

use serde::{Deserialize, Serialize};

/// One resource's share in one node pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Share {
    /// The quota: what the unit is guaranteed. `null`: none (everything it uses is over quota).
    #[serde(default)]
    pub deserved: Option<f64>,
    /// The most it may use, over quota included. `null`: no limit.
    #[serde(default)]
    pub limit: Option<f64>,
    /// Its weight when idle capacity is shared out over quota.
    #[serde(default)]
    pub over_quota_weight: Option<u32>,
}

/// A node pool as a resource entry names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PoolRef {
    /// The pool's id; Tephra names pools by their label value, so id and name are the same.
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
}

/// What a department or project gets in one node pool. GPUs are devices (a portion counts as
/// its fraction), CPU is in millicores and memory in MiB, as in Run:ai.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PoolResources {
    pub node_pool: PoolRef,
    #[serde(default)]
    pub gpu: Share,
    #[serde(default)]
    pub cpu: Share,
    #[serde(default)]
    pub memory: Share,
}

/// A department: the parent of projects, with a quota its projects share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Department {
    /// A string of an integer, as in Run:ai.
    pub id: String,
    pub name: String,
    pub cluster_id: String,
    pub description: String,
    pub resources: Vec<PoolResources>,
    /// Its Volcano queue, the parent of its projects' queues.
    pub queue: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A project: where workloads run, with its quota within its department.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// A string of an integer, as in Run:ai; use it (or the name) as `projectId`.
    pub id: String,
    pub name: String,
    pub cluster_id: String,
    pub description: String,
    /// The department's id.
    pub parent_id: String,
    pub parent_name: String,
    pub resources: Vec<PoolResources>,
    /// The node pools its workloads use, in order, when a request names none.
    pub default_node_pools: Option<Vec<String>>,
    /// Where its workloads run.
    pub requested_namespace: String,
    /// Its Volcano queue (a child of the department's).
    pub queue: String,
    /// Live (not deleted) workloads.
    pub workloads: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// `POST /api/v1/org-unit/departments`, and the body of `PUT` on one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepartmentRequest {
    pub name: String,
    #[serde(default)]
    pub cluster_id: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub resources: Vec<PoolResources>,
}

/// `POST /api/v1/org-unit/projects`, and the body of `PUT` on one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectRequest {
    pub name: String,
    #[serde(default)]
    pub cluster_id: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// The department (id or name); the default department when not set.
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub resources: Vec<PoolResources>,
    #[serde(default)]
    pub default_node_pools: Option<Vec<String>>,
    /// The namespace to run in; `<prefix><name>` when not set.
    #[serde(default)]
    pub requested_namespace: Option<String>,
}

/// The project every installation starts with, so `scripts/run` and Run:ai scripts that name
/// it work at once. It is never deleted.
pub const DEFAULT_PROJECT: &str = "default";

/// Departments and projects the principal may read, for the organisation page, with the GPUs
/// their live workloads ask for (a department's: all its projects' together), and the cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Organisation {
    pub departments: Vec<Department>,
    pub projects: Vec<Project>,
    /// By department name.
    pub department_gpus: std::collections::BTreeMap<String, f64>,
    pub cluster: crate::model::cluster::ClusterView,
    /// The access rules on scopes the principal may see, and the roles to give.
    pub members: Vec<crate::model::access::AccessRuleView>,
    pub roles: Vec<crate::model::access::RoleView>,
    /// The system's own trainings policy as JSON text, so the editor opens with it before any
    /// script runs; `None` when the principal may not read it.
    pub system_policy: Option<String>,
}

/// GPU quota and limit summed over the pools (`None`: no pool sets one).
pub fn gpu_totals(resources: &[PoolResources]) -> (Option<f64>, Option<f64>) {
    let sum = |pick: fn(&PoolResources) -> Option<f64>| {
        resources.iter().filter_map(pick).reduce(|a, b| a + b)
    };
    (sum(|r| r.gpu.deserved), sum(|r| r.gpu.limit))
}
