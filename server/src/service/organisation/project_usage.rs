//! A project's page: its quota, limit and use per resource (placed and waiting), per node pool
//! and per user, for its members and administrators.

use super::Organisation;
use super::projects::summary;
use crate::db::workloads::UserUsage;
use app::error::AppError;
use std::collections::BTreeMap;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::quota::{Allowance, Amount, Resource};
use tephra_core::model::org::PoolResources;
use tephra_core::model::principal::Principal;
use tephra_core::model::project::{PoolUse, ProjectSummary, ProjectUsage, ResourceUse, UserUse};

const MIB_PER_GIB: f64 = 1024.0;
const MILLIS_PER_CORE: f64 = 1000.0;

impl Organisation {
    pub async fn project_usage(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<ProjectUsage, AppError> {
        let project = self
            .project_for(principal, key, Permission::ReadProject)
            .await?;
        let trainings = self.db.projects().workload_count(project.id).await?;
        let department = self.db.departments().get(project.department_id).await?;
        let users = self.db.workloads().usage_by_user(project.id).await?;
        let pool_gpus = self.pool_gpus(&project.namespace);
        let resources = project.resources.0.clone();
        let in_use = users
            .iter()
            .map(|u| u.allocated.gpus + u.pending.gpus)
            .sum();
        let project = summary(project, trainings, &department.name, in_use);
        Ok(usage_view(project, &resources, &users, &pool_gpus))
    }

    /// The GPUs the pods of `namespace`'s Jobs hold, by the pool of the node they are bound to.
    fn pool_gpus(&self, namespace: &str) -> BTreeMap<String, f64> {
        let shared = &self.cluster.shared;
        let by_node = shared.index().gpus_by_node(Some(namespace));
        let nodes = shared.nodes.read().unwrap_or_else(|e| e.into_inner());
        let mut by_pool = BTreeMap::new();
        for (name, size) in nodes.nodes() {
            if let Some(gpus) = by_node.get(name) {
                *by_pool.entry(size.pool.clone()).or_insert(0.0) += gpus;
            }
        }
        by_pool
    }
}

/// The page's figures from the project's shares, its users' use and its GPUs by pool.
fn usage_view(
    project: ProjectSummary,
    shares: &[PoolResources],
    users: &[UserUsage],
    pool_gpus: &BTreeMap<String, f64>,
) -> ProjectUsage {
    let allowance = Allowance::of(shares);
    let allocated = users
        .iter()
        .map(|u| u.allocated)
        .fold(Amount::default(), Amount::plus);
    let pending = users
        .iter()
        .map(|u| u.pending)
        .fold(Amount::default(), Amount::plus);
    let resources = Resource::ALL
        .into_iter()
        .map(|resource| {
            let (label, scale) = match resource {
                Resource::Gpu => ("GPUs", 1.0),
                Resource::Cpu => ("CPU (cores)", MILLIS_PER_CORE),
                Resource::Memory => ("Memory (GiB)", MIB_PER_GIB),
            };
            ResourceUse {
                resource: label.to_owned(),
                quota: allowance.deserved.get(resource).map(|q| q / scale),
                limit: allowance.limit.get(resource).map(|l| l / scale),
                allocated: allocated.get(resource) / scale,
                pending: pending.get(resource) / scale,
            }
        })
        .collect();
    let mut pools: Vec<PoolUse> = shares
        .iter()
        .map(|share| PoolUse {
            pool: share.node_pool.name.clone(),
            gpu_quota: share.gpu.deserved,
            gpu_limit: share.gpu.limit,
            allocated_gpus: pool_gpus.get(&share.node_pool.name).copied().unwrap_or(0.0),
        })
        .collect();
    for (pool, gpus) in pool_gpus {
        if !pools.iter().any(|p| &p.pool == pool) {
            pools.push(PoolUse {
                pool: pool.clone(),
                gpu_quota: None,
                gpu_limit: None,
                allocated_gpus: *gpus,
            });
        }
    }
    let users = users
        .iter()
        .map(|u| {
            let both = u.allocated.plus(u.pending);
            UserUse {
                user: u.user.clone(),
                trainings: u.workloads,
                allocated_gpus: u.allocated.gpus,
                pending_gpus: u.pending.gpus,
                cpu_cores: both.cpu_millis as f64 / MILLIS_PER_CORE,
                memory_gib: both.memory_mib as f64 / MIB_PER_GIB,
            }
        })
        .collect();
    ProjectUsage {
        project,
        resources,
        pools,
        users,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tephra_core::model::org::{PoolRef, Share};
    use uuid::Uuid;

    fn share(pool: &str, deserved: f64, limit: Option<f64>) -> PoolResources {
        PoolResources {
            node_pool: PoolRef {
                id: None,
                name: pool.to_owned(),
            },
            gpu: Share {
                deserved: Some(deserved),
                limit,
                over_quota_weight: None,
            },
            cpu: Share {
                deserved: Some(8000.0),
                limit: None,
                over_quota_weight: None,
            },
            memory: Share::default(),
        }
    }

    fn user(name: &str, allocated: f64, pending: f64) -> UserUsage {
        let amount = |gpus: f64| Amount {
            gpus,
            cpu_millis: (gpus * 1000.0) as i64,
            memory_mib: (gpus * 2048.0) as i64,
        };
        UserUsage {
            user_id: Uuid::new_v4(),
            user: name.to_owned(),
            workloads: 1,
            allocated: amount(allocated),
            pending: amount(pending),
        }
    }

    fn project() -> ProjectSummary {
        ProjectSummary {
            id: "4".into(),
            name: "vision".into(),
            namespace: "tephra-vision".into(),
            queue: "vision".into(),
            trainings: 2,
            created_at: String::new(),
            department: "default".into(),
            gpus_in_use: 6.0,
            gpu_quota: Some(4.0),
            gpu_limit: Some(8.0),
        }
    }

    #[test]
    fn placed_and_waiting_use_add_up_per_resource_pool_and_user() {
        let shares = [share("a", 4.0, Some(8.0))];
        let users = [user("ada", 2.0, 4.0), user("bo", 0.0, 0.0)];
        let pools = BTreeMap::from([("a".to_owned(), 2.0), ("b".to_owned(), 1.0)]);
        let view = usage_view(project(), &shares, &users, &pools);

        let gpu = &view.resources[0];
        assert_eq!(
            (gpu.resource.as_str(), gpu.quota, gpu.limit),
            ("GPUs", Some(4.0), Some(8.0))
        );
        assert_eq!((gpu.allocated, gpu.pending), (2.0, 4.0));
        let cpu = &view.resources[1];
        assert_eq!(
            (cpu.quota, cpu.limit, cpu.allocated, cpu.pending),
            (Some(8.0), None, 2.0, 4.0)
        );
        let memory = &view.resources[2];
        assert_eq!(
            (memory.quota, memory.allocated, memory.pending),
            (None, 4.0, 8.0)
        );

        assert_eq!(
            view.pools.len(),
            2,
            "a pool without a share still shows what it holds"
        );
        assert_eq!(
            (view.pools[0].gpu_quota, view.pools[0].allocated_gpus),
            (Some(4.0), 2.0)
        );
        assert_eq!(
            (view.pools[1].pool.as_str(), view.pools[1].gpu_quota),
            ("b", None)
        );

        assert_eq!(view.users[0].user, "ada");
        assert_eq!(
            (view.users[0].allocated_gpus, view.users[0].pending_gpus),
            (2.0, 4.0)
        );
        assert_eq!(view.users[0].cpu_cores, 6.0);
        assert_eq!(view.users[0].memory_gib, 12.0);
    }
}
