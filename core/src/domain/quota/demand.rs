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
    let pools = pools_of(&groups);
    let field = match request {
        Request::Generic(_) => "spec.replicaSpecs",
        _ => "spec.compute",
    };
    // Any group: workers that Volcano may not take back hold their GPUs as surely as a
    // master would, so the request as a whole must stay within quota.
    let non_preemptible = groups
        .iter()
        .any(|(_, spec)| spec.pod.preemptibility == Some(Preemptibility::NonPreemptible));
    Demand {
        total,
        largest_pod,
        pools,
        field: field.into(),
        non_preemptible,
    }
}

/// The node pools a request's pods may run in together: every group's, in order, once each;
/// empty (any pool) when a group may run in any.
fn pools_of(groups: &[(i64, &Spec)]) -> Vec<String> {
    let mut pools: Vec<String> = Vec::new();
    for (_, spec) in groups {
        if spec.node_pools.is_empty() {
            return Vec::new();
        }
        for pool in &spec.node_pools {
            if !pools.contains(pool) {
                pools.push(pool.clone());
            }
        }
    }
    pools
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kind::WorkloadKind;
    use serde_json::json;

    fn distributed(master: serde_json::Value, worker: serde_json::Value) -> Request {
        let mut spec = json!({ "image": "x", "distributedFramework": "PyTorch", "numWorkers": 2,
                               "masterSpecSameAsWorker": false });
        if let (Some(spec), Some(worker)) = (spec.as_object_mut(), worker.as_object()) {
            spec.extend(worker.clone());
        }
        let mut master = master;
        master["image"] = json!("x");
        let body = json!({ "name": "ddp", "projectId": "p", "spec": spec, "masterSpec": master });
        Request::parse(&body, WorkloadKind::Distributed).expect("a distributed request")
    }

    #[test]
    fn workers_that_may_not_be_taken_back_make_the_request_non_preemptible() {
        let workers = distributed(
            json!({ "preemptibility": "preemptible" }),
            json!({ "preemptibility": "non-preemptible", "compute": { "gpuDevicesRequest": 1 } }),
        );
        let d = demand(&workers);
        assert!(
            d.non_preemptible,
            "the workers hold 2 GPUs Volcano may not reclaim"
        );
        assert_eq!(d.total.gpus, 2.0);
        let master = distributed(json!({ "preemptibility": "non-preemptible" }), json!({}));
        assert!(demand(&master).non_preemptible);
        let neither = distributed(json!({}), json!({ "preemptibility": "preemptible" }));
        assert!(!demand(&neither).non_preemptible);
    }

    #[test]
    fn the_pools_are_every_groups_and_any_when_one_may_run_anywhere() {
        let split = distributed(
            json!({ "nodePools": ["cpu"] }),
            json!({ "nodePools": ["a100", "cpu"] }),
        );
        assert_eq!(demand(&split).pools, ["cpu", "a100"]);
        let anywhere = distributed(json!({ "nodePools": ["cpu"] }), json!({}));
        assert!(demand(&anywhere).pools.is_empty());
    }
}
