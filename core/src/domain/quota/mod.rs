//! Quotas: what a workload asks for in total ([`demand`]), what a project or department may use
//! ([`Allowance`], from Run:ai's resources per node pool), and whether a request is admitted
//! ([`admit`]). Pure: usage and node sizes come in, a verdict goes out, and a refusal names the
//! numbers.
//!
//! Volcano's queues carry one `deserved` and one `capability` each, not one per node pool, so
//! the allowance is summed over the pools a unit lists; the scheduler and admission both work on
//! those sums.

mod admit;
mod demand;
pub mod queues;

pub use admit::{Standing, Unit, admit, waiting_room};
pub use demand::{Demand, demand};

use crate::model::org::{PoolResources, Share};
use std::fmt;

/// The extended resource of a whole GPU, as NVIDIA's device plugin advertises it on nodes and
/// pods ask for it.
pub const GPU_RESOURCE: &str = "nvidia.com/gpu";

/// GPUs, CPU and memory together: a workload's demand, a unit's use, or a bound on either.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Amount {
    /// Devices; a portion counts as its fraction.
    pub gpus: f64,
    pub cpu_millis: i64,
    pub memory_mib: i64,
}

impl Amount {
    pub fn plus(self, other: Amount) -> Amount {
        Amount {
            gpus: self.gpus + other.gpus,
            cpu_millis: self.cpu_millis.saturating_add(other.cpu_millis),
            memory_mib: self.memory_mib.saturating_add(other.memory_mib),
        }
    }

    /// What is left once `other` is taken away (never below zero).
    pub fn minus(self, other: Amount) -> Amount {
        Amount {
            gpus: (self.gpus - other.gpus).max(0.0),
            cpu_millis: self.cpu_millis.saturating_sub(other.cpu_millis).max(0),
            memory_mib: self.memory_mib.saturating_sub(other.memory_mib).max(0),
        }
    }

    pub fn times(self, n: i64) -> Amount {
        Amount {
            gpus: self.gpus * n as f64,
            cpu_millis: self.cpu_millis.saturating_mul(n),
            memory_mib: self.memory_mib.saturating_mul(n),
        }
    }

    /// Each resource's value, to compare against a [`Bound`]'s.
    pub fn get(&self, resource: Resource) -> f64 {
        match resource {
            Resource::Gpu => self.gpus,
            Resource::Cpu => self.cpu_millis as f64,
            Resource::Memory => self.memory_mib as f64,
        }
    }
}

/// The three resources a quota covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Gpu,
    Cpu,
    Memory,
}

impl Resource {
    pub const ALL: [Resource; 3] = [Resource::Gpu, Resource::Cpu, Resource::Memory];

    /// `value` in words: "2 GPUs", "1500m CPU", "4096 MiB of memory".
    pub fn amount(self, value: f64) -> String {
        match self {
            Resource::Gpu if value == 1.0 => "1 GPU".into(),
            Resource::Gpu => format!("{} GPUs", trim(value)),
            Resource::Cpu => format!("{}m CPU", trim(value)),
            Resource::Memory => format!("{} MiB of memory", trim(value)),
        }
    }

    pub(crate) fn share(self, pool: &PoolResources) -> &Share {
        match self {
            Resource::Gpu => &pool.gpu,
            Resource::Cpu => &pool.cpu,
            Resource::Memory => &pool.memory,
        }
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Resource::Gpu => "gpu",
            Resource::Cpu => "cpu",
            Resource::Memory => "memory",
        })
    }
}

/// A number without a trailing `.0`, and with at most two decimals.
fn trim(value: f64) -> String {
    let rounded = (value * 100.0).round() / 100.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded}")
    }
}

/// What `used` takes beyond `allowance`'s quota, resource by resource: lent capacity that
/// Volcano's reclaim hands back to a project within its own quota. A resource without a quota
/// is all lent (a queue's `deserved` is zero where it is unset).
pub fn lent(used: Amount, allowance: &Allowance) -> Amount {
    let beyond = |resource: Resource| {
        let used = used.get(resource);
        (used - allowance.deserved.get(resource).unwrap_or(0.0)).max(0.0)
    };
    Amount {
        gpus: beyond(Resource::Gpu),
        cpu_millis: beyond(Resource::Cpu) as i64,
        memory_mib: beyond(Resource::Memory) as i64,
    }
}

/// What a unit's workloads ask beyond its limit, resource by resource: work its Volcano queue
/// holds back (its capability), so it takes none of the department's room.
pub fn beyond_limit(asks: Amount, allowance: &Allowance) -> Amount {
    let beyond = |resource: Resource| {
        allowance
            .limit
            .get(resource)
            .map_or(0.0, |limit| (asks.get(resource) - limit).max(0.0))
    };
    Amount {
        gpus: beyond(Resource::Gpu),
        cpu_millis: beyond(Resource::Cpu) as i64,
        memory_mib: beyond(Resource::Memory) as i64,
    }
}

/// Per resource, a bound or none.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bound {
    pub gpus: Option<f64>,
    pub cpu_millis: Option<f64>,
    pub memory_mib: Option<f64>,
}

impl Bound {
    pub fn get(&self, resource: Resource) -> Option<f64> {
        match resource {
            Resource::Gpu => self.gpus,
            Resource::Cpu => self.cpu_millis,
            Resource::Memory => self.memory_mib,
        }
    }

    pub fn set(&mut self, resource: Resource, value: Option<f64>) {
        match resource {
            Resource::Gpu => self.gpus = value,
            Resource::Cpu => self.cpu_millis = value,
            Resource::Memory => self.memory_mib = value,
        }
    }
}

/// What a department or project may use, summed over the node pools it lists.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Allowance {
    /// The quota: beyond it, work runs over quota (preemptible).
    pub deserved: Bound,
    /// The ceiling, over quota included.
    pub limit: Bound,
}

impl Allowance {
    /// Sums the pools' shares. A resource no pool gives a quota has none; one that some listed
    /// pool leaves unlimited (or that no pool lists) has no limit.
    pub fn of(resources: &[PoolResources]) -> Allowance {
        let mut allowance = Allowance::default();
        for resource in Resource::ALL {
            let shares = resources.iter().map(|p| resource.share(p));
            let deserved = shares
                .clone()
                .filter_map(|s| s.deserved)
                .fold(None, |sum: Option<f64>, d| Some(sum.unwrap_or(0.0) + d));
            let limit = if resources.is_empty() {
                None
            } else {
                shares
                    .map(|s| s.limit)
                    .try_fold(0.0, |sum, l| l.map(|l| sum + l))
            };
            allowance.deserved.set(resource, deserved);
            allowance.limit.set(resource, limit);
        }
        allowance
    }
}

/// The quotas several units deserve, summed per resource; one no unit gives a quota stays
/// unset.
pub fn deserved_sum<'a>(units: impl IntoIterator<Item = &'a [PoolResources]>) -> Bound {
    let mut sum = Bound::default();
    for allowance in units.into_iter().map(Allowance::of) {
        for resource in Resource::ALL {
            if let Some(d) = allowance.deserved.get(resource) {
                sum.set(resource, Some(sum.get(resource).unwrap_or(0.0) + d));
            }
        }
    }
    sum
}

/// Checks one unit's shares, naming the field at `path` (e.g. `resources[0].gpu.limit`).
pub fn check_resources(resources: &[PoolResources]) -> Vec<crate::model::validation::FieldError> {
    use crate::model::validation::FieldError;
    let mut errors = Vec::new();
    for (i, pool) in resources.iter().enumerate() {
        let at = format!("resources[{i}]");
        if pool.node_pool.name.trim().is_empty() {
            errors.push(FieldError {
                path: format!("{at}.nodePool.name"),
                message: "must name a node pool (\"default\" for nodes without the pool label)"
                    .into(),
            });
        }
        if resources[..i]
            .iter()
            .any(|p| p.node_pool.name == pool.node_pool.name)
        {
            errors.push(FieldError {
                path: format!("{at}.nodePool.name"),
                message: format!("lists pool {:?} twice", pool.node_pool.name),
            });
        }
        for resource in Resource::ALL {
            let share = resource.share(pool);
            for (name, value) in [("deserved", share.deserved), ("limit", share.limit)] {
                if value.is_some_and(|v| !v.is_finite() || v < 0.0) {
                    errors.push(FieldError {
                        path: format!("{at}.{resource}.{name}"),
                        message: "must be a number, 0 or more, or null for none".into(),
                    });
                }
            }
            if let (Some(d), Some(l)) = (share.deserved, share.limit)
                && l < d
            {
                errors.push(FieldError {
                    path: format!("{at}.{resource}.limit"),
                    message: format!(
                        "is below the quota ({} deserved); the limit includes the quota",
                        trim(d)
                    ),
                });
            }
        }
    }
    errors
}

/// Checks a project's shares against its department's: the projects' quotas together within the
/// department's quota, and no project limit above the department's. `others` is the sum of the
/// other projects' quotas there.
pub fn within_department(
    department: &str,
    allowance: &Allowance,
    others: &Bound,
    project: &Allowance,
) -> Vec<crate::model::validation::FieldError> {
    use crate::model::validation::FieldError;
    let mut errors = Vec::new();
    for resource in Resource::ALL {
        if let (Some(quota), Some(asked)) = (
            allowance.deserved.get(resource),
            project.deserved.get(resource),
        ) {
            let total = asked + others.get(resource).unwrap_or(0.0);
            if total > quota + 1e-9 {
                errors.push(FieldError {
                    path: "resources".into(),
                    message: format!(
                        "the quotas of department {department:?}'s projects would total {}; \
                         its quota is {} (other projects hold {})",
                        resource.amount(total),
                        resource.amount(quota),
                        trim(others.get(resource).unwrap_or(0.0))
                    ),
                });
            }
        }
        if let (Some(ceiling), Some(limit)) =
            (allowance.limit.get(resource), project.limit.get(resource))
            && limit > ceiling + 1e-9
        {
            errors.push(FieldError {
                path: "resources".into(),
                message: format!(
                    "a limit of {} is above department {department:?}'s limit of {}",
                    resource.amount(limit),
                    resource.amount(ceiling)
                ),
            });
        }
    }
    errors
}

#[cfg(test)]
mod tests;
