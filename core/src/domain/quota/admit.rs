//! Admission: refuse what can never run, and say whether the rest runs within quota, beyond it,
//! or waits in the queue for its project's or department's work to free room under a limit.

use super::{Allowance, Amount, Demand, Resource, trim};
use crate::model::validation::FieldError;

/// A project or department as admission sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit<'a> {
    /// "project" or "department".
    pub kind: &'static str,
    pub name: &'a str,
    pub allowance: Allowance,
    /// What its live workloads already ask for.
    pub used: Amount,
    /// Of `used`, what other projects take beyond their quotas (for a department): Volcano
    /// reclaims it for a request within its project's quota, so it does not stand in that
    /// request's way.
    pub reclaimable: Amount,
}

/// Where an admitted request stands against its project's quota.
#[derive(Debug, Clone, PartialEq)]
pub enum Standing {
    WithinQuota,
    /// Beyond the project's quota (within its limits): it runs on idle capacity and may be
    /// preempted when another project reclaims its own. Says which resources and by how much.
    OverQuota(String),
    /// Within the limits on its own, but not beside what the project's or department's
    /// workloads use now: it waits in the queue (the Volcano queue's capability holds it back)
    /// until enough of them finish, as a batch system queues work. Says which limit and what
    /// must free.
    Queued(String),
}

/// Whether a project with `waiting` workloads waiting to start may add one more, when it may
/// have at most `most` (the cluster profile's `maxWaitingPerProject`).
pub fn waiting_room(project: &str, waiting: u64, most: u32) -> Result<(), FieldError> {
    if waiting < u64::from(most) {
        return Ok(());
    }
    Err(FieldError {
        path: "projectId".into(),
        message: format!(
            "project {project:?} already has {waiting} workloads waiting to start, and a project \
             may have at most {most} waiting at once (the cluster's maxWaitingPerProject); delete \
             or suspend some of them, or submit this one when some have started"
        ),
    })
}

/// Checks `demand` against the project's and department's limits and against the largest node
/// of each pool it may use (`nodes`: pool name and the largest node's size, resource by resource;
/// empty when the cluster is not known, which skips that check).
pub fn admit(
    demand: &Demand,
    project: &Unit<'_>,
    department: &Unit<'_>,
    nodes: &[(String, Amount)],
) -> Result<Standing, Vec<FieldError>> {
    let over = over_quota(demand, project);
    let mut errors = Vec::new();
    let mut waits = Vec::new();
    for unit in [project, department] {
        for resource in Resource::ALL {
            let Some(limit) = unit.allowance.limit.get(resource) else {
                continue;
            };
            let asks = demand.total.get(resource);
            let mut used = unit.used.get(resource);
            if over.is_empty() {
                used -= unit.reclaimable.get(resource);
            }
            if asks > limit + EPSILON {
                errors.push(FieldError {
                    path: demand.field.clone(),
                    message: over_limit(resource, asks, limit, unit),
                });
            } else if asks + used > limit + EPSILON {
                waits.push(waits_for(resource, asks, used, limit, unit));
            }
        }
    }
    if demand.non_preemptible && !over.is_empty() {
        errors.push(FieldError {
            path: demand.field.clone(),
            message: format!(
                "is non-preemptible, so it may run only within project {:?}'s quota, and it \
                 would take the project beyond it ({}); make it preemptible to run over quota, \
                 or submit it when the project's work within quota has finished",
                project.name,
                over.join("; ")
            ),
        });
    }
    if let Some(message) = too_large_for_nodes(demand, nodes) {
        errors.push(FieldError {
            path: demand.field.clone(),
            message,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(if !waits.is_empty() {
        Standing::Queued(format!("queued: {}", waits.join("; ")))
    } else if over.is_empty() {
        Standing::WithinQuota
    } else {
        Standing::OverQuota(format!(
            "over project {:?}'s quota ({}): runs on idle capacity and may be preempted",
            project.name,
            over.join("; ")
        ))
    })
}

/// Each resource the request takes its project beyond the quota: "12 GPUs with this one, quota 8".
fn over_quota(demand: &Demand, project: &Unit<'_>) -> Vec<String> {
    Resource::ALL
        .into_iter()
        .filter_map(|resource| {
            let deserved = project.allowance.deserved.get(resource)?;
            let after = project.used.get(resource) + demand.total.get(resource);
            (after > deserved + EPSILON && demand.total.get(resource) > 0.0).then(|| {
                format!(
                    "{} with this one, quota {}",
                    resource.amount(after),
                    trim(deserved)
                )
            })
        })
        .collect()
}

/// Fractions of GPUs are summed as floats.
const EPSILON: f64 = 1e-9;

/// Why a request can never run under `unit`'s limit: it asks more than the limit on its own.
fn over_limit(resource: Resource, asks: f64, limit: f64, unit: &Unit<'_>) -> String {
    format!(
        "asks {} in total; {} {:?} may use at most {} (its limit)",
        resource.amount(asks),
        unit.kind,
        unit.name,
        resource.amount(limit)
    )
}

/// What a queued request waits for under `unit`'s limit: "project "vision" may use at most
/// 2 GPUs (its limit) and its workloads ask for 2; it starts when 1 GPU is free".
fn waits_for(resource: Resource, asks: f64, used: f64, limit: f64, unit: &Unit<'_>) -> String {
    let short = resource.amount(asks + used - limit);
    let verb = if short.ends_with("GPUs") { "are" } else { "is" };
    format!(
        "{} {:?} may use at most {} (its limit) and its workloads ask for {}; it starts when \
         {short} {verb} free",
        unit.kind,
        unit.name,
        resource.amount(limit),
        trim(used),
    )
}

/// Why no node of the pools the request may use can hold its largest pod, if none can.
fn too_large_for_nodes(demand: &Demand, nodes: &[(String, Amount)]) -> Option<String> {
    let candidates: Vec<&(String, Amount)> = nodes
        .iter()
        .filter(|(pool, _)| demand.pools.is_empty() || demand.pools.contains(pool))
        .collect();
    if nodes.is_empty() {
        return None;
    }
    if candidates.is_empty() {
        let known: Vec<&str> = nodes.iter().map(|(p, _)| p.as_str()).collect();
        return Some(format!(
            "asks for node pools {}; this cluster has {}",
            demand.pools.join(", "),
            known.join(", ")
        ));
    }
    for resource in Resource::ALL {
        let asks = demand.largest_pod.get(resource);
        let (pool, biggest) = candidates
            .iter()
            .map(|(pool, size)| (pool, size.get(resource)))
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        if asks > biggest + EPSILON {
            let pools = if candidates.len() == 1 {
                format!("pool {pool}")
            } else {
                "any of its pools".to_owned()
            };
            return Some(format!(
                "asks {} per pod; the largest node in {pools} has {}",
                resource.amount(asks),
                trim(biggest)
            ));
        }
    }
    None
}
