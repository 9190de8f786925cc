//! Departments and projects as Run:ai's org-unit API spells them: resources per node pool, each
//! with a quota (`deserved`), a ceiling (`limit`, over-quota included) and an over-quota weight.
//! `null` means no quota, or no limit, as in Run:ai.

use super::validation::FieldError;
use serde::{Deserialize, Serialize};

/// One resource's share in one node pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PoolRef {
    /// The pool's id; Tephra names pools by their label value, so id and name are the same.
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
}

/// What a department or project gets in one node pool. GPUs are devices (a portion counts as
/// its fraction), CPU is in millicores and memory in MiB, as in Run:ai.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

/// The shortest and longest idle time a rule may allow a training's GPUs: a minute (shorter
/// would suspend work that is only between steps or loading data) to 30 days.
pub const IDLE_SECONDS: std::ops::RangeInclusive<u64> = 60..=2_592_000;

/// What Tephra does to a project's workloads unasked, after Run:ai's project `schedulingRules`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SchedulingRules {
    /// Suspend a training whose GPUs stayed idle longer than this many seconds, from 60 (a
    /// minute) to 2592000 (30 days). `null`: never.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 60, maximum = 2592000))]
    pub training_job_max_idle_duration_seconds: Option<u64>,
}

impl SchedulingRules {
    /// The rules as stored: `None` when they set nothing, so a stored value always holds a
    /// rule; otherwise the errors of those out of range, by path.
    pub fn parse(rules: Option<Self>) -> Result<Option<Self>, Vec<FieldError>> {
        let Some(rules) = rules else {
            return Ok(None);
        };
        let mut errors = Vec::new();
        if let Some(seconds) = rules.training_job_max_idle_duration_seconds
            && !IDLE_SECONDS.contains(&seconds)
        {
            errors.push(FieldError {
                path: "schedulingRules.trainingJobMaxIdleDurationSeconds".into(),
                message: format!(
                    "must be from {} to {} seconds (a minute to 30 days), or null for no rule \
                     (got {seconds})",
                    IDLE_SECONDS.start(),
                    IDLE_SECONDS.end()
                ),
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok((rules != Self::default()).then_some(rules))
    }
}

/// A department: the parent of projects, with a quota its projects share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// `null` when it has none.
    pub scheduling_rules: Option<SchedulingRules>,
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// Left out (or `null`, or `{}`): no rules. A `PUT` replaces the project's fields whole, so
    /// one without it removes the rules, as it empties the description and resources it leaves
    /// out.
    #[serde(default)]
    pub scheduling_rules: Option<SchedulingRules>,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn idle(seconds: Option<u64>) -> Option<SchedulingRules> {
        Some(SchedulingRules {
            training_job_max_idle_duration_seconds: seconds,
        })
    }

    #[test]
    fn idle_rules_within_the_range_are_kept_and_empty_ones_dropped() {
        for seconds in [60, 3600, 2_592_000] {
            assert_eq!(
                SchedulingRules::parse(idle(Some(seconds))),
                Ok(idle(Some(seconds)))
            );
        }
        assert_eq!(SchedulingRules::parse(idle(None)), Ok(None));
        assert_eq!(SchedulingRules::parse(None), Ok(None));
    }

    #[test]
    fn idle_rules_out_of_range_name_the_field_and_the_range() {
        for seconds in [0, 59, 2_592_001] {
            let errors = SchedulingRules::parse(idle(Some(seconds))).unwrap_err();
            assert_eq!(
                errors[0].path,
                "schedulingRules.trainingJobMaxIdleDurationSeconds"
            );
            assert!(
                errors[0].message.contains("from 60 to 2592000 seconds"),
                "{}",
                errors[0].message
            );
        }
    }

    #[test]
    fn unknown_rules_are_refused() {
        let body = r#"{"name": "p", "schedulingRules": {"trainingJobTimeLimitSeconds": 60}}"#;
        assert!(serde_json::from_str::<ProjectRequest>(body).is_err());
    }
}
