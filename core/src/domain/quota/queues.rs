//! The Volcano queues that carry the organisation: one parent queue per department and one leaf
//! queue per project under it, with `deserved` from the quota and `capability` from the limit
//! (the capacity plugin with `enableHierarchy`, docs/VOLCANO.md A5). Workloads only ever go to
//! project queues: a Job in a queue with children stops the whole scheduling session.

use super::{Allowance, Bound, Resource, trim};
use crate::model::org::PoolResources;
use std::collections::BTreeMap;

/// A department or project as its queue needs it.
#[derive(Debug, Clone, Copy)]
pub struct OrgUnit<'a> {
    pub name: &'a str,
    pub queue: &'a str,
    pub resources: &'a [PoolResources],
}

/// One queue to apply.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuePlan {
    pub name: String,
    /// The department's queue, for a project's; `None` (the root) for a department's.
    pub parent: Option<String>,
    pub deserved: BTreeMap<String, String>,
    pub capability: BTreeMap<String, String>,
    pub department: String,
    /// The project, for a project's queue.
    pub project: Option<String>,
}

/// A bound as a Kubernetes resource list: `nvidia.com/gpu`, `cpu` in millicores, `memory` in MiB.
pub fn resource_list(bound: &Bound) -> BTreeMap<String, String> {
    Resource::ALL
        .into_iter()
        .filter_map(|resource| {
            let value = bound.get(resource)?;
            Some(match resource {
                Resource::Gpu => (super::GPU_RESOURCE.to_owned(), trim(value)),
                Resource::Cpu => ("cpu".to_owned(), format!("{}m", value.round())),
                Resource::Memory => ("memory".to_owned(), format!("{}Mi", value.round())),
            })
        })
        .collect()
}

/// The queues of `departments`, each with its projects: the department's first, then its
/// projects'. A department without a quota of its own for a resource gets the sum of its
/// projects' quotas, so the capacity plugin never sees children deserving more than their parent.
pub fn queues(departments: &[(OrgUnit<'_>, Vec<OrgUnit<'_>>)]) -> Vec<QueuePlan> {
    let mut plans = Vec::new();
    for (department, projects) in departments {
        let own = Allowance::of(department.resources);
        let children: Vec<Allowance> = projects
            .iter()
            .map(|p| Allowance::of(p.resources))
            .collect();
        let mut deserved = own.deserved;
        for resource in Resource::ALL {
            if deserved.get(resource).is_none() {
                let sum = children
                    .iter()
                    .filter_map(|c| c.deserved.get(resource))
                    .fold(None, |acc: Option<f64>, d| Some(acc.unwrap_or(0.0) + d));
                deserved.set(resource, sum);
            }
        }
        plans.push(QueuePlan {
            name: department.queue.to_owned(),
            parent: None,
            deserved: resource_list(&deserved),
            capability: resource_list(&own.limit),
            department: department.name.to_owned(),
            project: None,
        });
        for (project, allowance) in projects.iter().zip(&children) {
            plans.push(QueuePlan {
                name: project.queue.to_owned(),
                parent: Some(department.queue.to_owned()),
                deserved: resource_list(&allowance.deserved),
                capability: resource_list(&allowance.limit),
                department: department.name.to_owned(),
                project: Some(project.name.to_owned()),
            });
        }
    }
    plans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::org::{PoolRef, Share};

    fn pool(gpu: (Option<f64>, Option<f64>), cpu: Option<f64>) -> Vec<PoolResources> {
        vec![PoolResources {
            node_pool: PoolRef {
                id: None,
                name: "default".into(),
            },
            gpu: Share {
                deserved: gpu.0,
                limit: gpu.1,
                over_quota_weight: None,
            },
            cpu: Share {
                deserved: cpu,
                limit: None,
                over_quota_weight: None,
            },
            memory: Share {
                deserved: Some(2048.0),
                limit: None,
                over_quota_weight: None,
            },
        }]
    }

    #[test]
    fn projects_are_leaves_under_their_department() {
        let dept = pool((None, Some(8.0)), None);
        let a = pool((Some(2.0), Some(4.0)), Some(1500.0));
        let b = pool((Some(1.5), None), None);
        let plans = queues(&[(
            OrgUnit {
                name: "research",
                queue: "tephra-research.department",
                resources: &dept,
            },
            vec![
                OrgUnit {
                    name: "vision",
                    queue: "tephra-vision",
                    resources: &a,
                },
                OrgUnit {
                    name: "speech",
                    queue: "tephra-speech",
                    resources: &b,
                },
            ],
        )]);
        assert_eq!(plans.len(), 3);
        let d = &plans[0];
        assert_eq!(d.parent, None);
        assert_eq!(
            d.deserved["nvidia.com/gpu"], "3.5",
            "the sum of its projects' quotas"
        );
        assert_eq!(d.capability["nvidia.com/gpu"], "8");
        let v = &plans[1];
        assert_eq!(v.parent.as_deref(), Some("tephra-research.department"));
        assert_eq!(v.deserved["cpu"], "1500m");
        assert_eq!(v.deserved["memory"], "2048Mi");
        assert_eq!(v.capability.get("cpu"), None, "no limit, no capability");
        assert_eq!(plans[2].capability.get("nvidia.com/gpu"), None);
    }
}
