//! What a request asks for: every pod it can have at once, and its largest pod (which must fit
//! on one node).

use super::Amount;
use crate::domain::request::Request;
use crate::model::training::checked::{Compute, Gpu, Spec};
use crate::model::training::request::Preemptibility;

/// A request's demand on its project's quota and on the nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    /// Every pod together.
    pub total: Amount,
    /// The largest pod, resource by resource.
    pub largest_pod: Amount,
    /// The node pools it may run in, in order; empty for any.
    pub pools: Vec<String>,
    /// The field that sets the pods' compute, for refusals.
    pub field: String,
    /// Run:ai's `preemptibility: non-preemptible`: it may run only within its project's quota,
    /// where nothing takes it back.
    pub non_preemptible: bool,
}

/// One pod's requests: a GPU portion counts as its fraction, CPU and memory as requested (the
/// limit when only that is set, as Kubernetes does).
pub fn per_pod(compute: Option<&Compute>) -> Amount {
    let Some(c) = compute else {
        return Amount::default();
    };
    let gpus = match &c.gpu {
        Gpu::None => 0.0,
        Gpu::Devices(n) => *n as f64,
        Gpu::Portion { devices, portion } => (*devices).max(1) as f64 * portion.get(),
        // A share of a GPU's memory, or a MIG slice, holds a device against the quota.
        Gpu::Memory { devices, .. } | Gpu::Mig { devices, .. } => (*devices).max(1) as f64,
    };
    let cpu = c.cpu_request.or(c.cpu_limit).map_or(0.0, |c| c.get());
    let memory = c
        .memory_request
        .as_ref()
        .or(c.memory_limit.as_ref())
        .map_or(0, |m| m.mebibytes());
    Amount {
        gpus,
        cpu_millis: (cpu * 1000.0).round() as i64,
        memory_mib: memory,
    }
}

fn largest(a: Amount, b: Amount) -> Amount {
    Amount {
        gpus: a.gpus.max(b.gpus),
        cpu_millis: a.cpu_millis.max(b.cpu_millis),
        memory_mib: a.memory_mib.max(b.memory_mib),
    }
}

/// `(pods, spec)` groups of a request: every pod it can run at once.
fn groups(request: &Request) -> Vec<(i64, &Spec)> {
    match request {
        Request::Training(r) => vec![(i64::from(r.pods()), r.spec())],
        Request::Distributed(r) => vec![(1, r.master()), (i64::from(r.workers()), r.worker())],
        Request::Generic(r) => r
            .replicas()
            .map(|replica| (i64::from(replica.count), &replica.spec))
            .collect(),
    }
}

pub fn demand(request: &Request) -> Demand {
    let groups = groups(request);
    let mut total = Amount::default();
    let mut largest_pod = Amount::default();
    for (pods, spec) in &groups {
        let pod = per_pod(spec.compute.as_ref());
        total = total.plus(pod.times(*pods));
        if *pods > 0 {
            largest_pod = largest(largest_pod, pod);
        }
    }
    let pools = groups
        .first()
        .map(|(_, spec)| spec.node_pools.clone())
        .unwrap_or_default();
    let field = match request {
        Request::Generic(_) => "spec.replicaSpecs",
        _ => "spec.compute",
    };
    let non_preemptible = groups
        .first()
        .is_some_and(|(_, spec)| spec.pod.preemptibility == Some(Preemptibility::NonPreemptible));
    Demand {
        total,
        largest_pod,
        pools,
        field: field.into(),
        non_preemptible,
    }
}
