//! How many pods a request can have running at once, and which field asks for them, so the
//! server can hold each workload to its configured maximum and name the field to change.

use super::distributed::DistributedRequest;
use super::generic::GenericRequest;
use super::request::TrainingRequest;
use crate::model::validation::{index, join};

/// The most pods a request can have at once, and the field that asks for the most of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodCount {
    pub pods: u64,
    /// JSON path of the field to lower, e.g. `spec.parallelism`.
    pub field: String,
}

/// Counts below 1 are refused by validation; they count as none here rather than wrap.
fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl TrainingRequest {
    /// `parallelism` pods (one when not set), or `completions` when there are more: every one
    /// is created and may run when there is room.
    pub fn pod_count(&self) -> PodCount {
        let parallelism = count(self.spec.parallelism.unwrap_or(1));
        match self.spec.completions.map(count) {
            Some(completions) if completions > parallelism => PodCount {
                pods: completions,
                field: "spec.completions".into(),
            },
            _ => PodCount {
                pods: parallelism,
                field: "spec.parallelism".into(),
            },
        }
    }
}

impl DistributedRequest {
    /// The workers and the master; an elastic `maxReplicas` above numWorkers is what it may grow
    /// to (every one of them is created).
    pub fn pod_count(&self) -> PodCount {
        let workers = count(self.spec.num_workers);
        let pods = workers.saturating_add(1);
        match self.spec.max_replicas.map(count) {
            Some(max) if max > workers => PodCount {
                pods: max.saturating_add(1),
                field: "spec.maxReplicas".into(),
            },
            _ => PodCount {
                pods,
                field: "spec.numWorkers".into(),
            },
        }
    }
}

impl GenericRequest {
    /// Every replica of every type runs at once (a gang). The field is the type with the most
    /// replicas, or the list itself when no type sets a count.
    pub fn pod_count(&self) -> PodCount {
        let replicas = self
            .spec
            .replica_specs
            .iter()
            .map(|r| r.replicas.map(count));
        let pods = replicas
            .clone()
            .fold(0u64, |sum, n| sum.saturating_add(n.unwrap_or(1)));
        let largest = replicas
            .enumerate()
            .filter_map(|(i, n)| n.map(|n| (n, i)))
            .max_by_key(|&(n, i)| (n, std::cmp::Reverse(i)));
        let field = match largest {
            Some((_, i)) => join(&index("spec.replicaSpecs", i), "replicas"),
            None => "spec.replicaSpecs".into(),
        };
        PodCount { pods, field }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::training::parse;
    use serde_json::{Value, json};

    fn training(spec: Value) -> (u64, String) {
        let mut spec = spec;
        spec["image"] = json!("x");
        let r = parse::training(&json!({ "name": "a", "projectId": "p", "spec": spec })).unwrap();
        let c = r.request().pod_count();
        (c.pods, c.field)
    }

    #[test]
    fn a_training_runs_parallelism_pods_or_one() {
        assert_eq!(training(json!({})), (1, "spec.parallelism".into()));
        assert_eq!(
            training(json!({ "parallelism": 3000000, "completions": 2 })),
            (3_000_000, "spec.parallelism".into())
        );
        assert_eq!(
            training(json!({ "parallelism": 2, "completions": 5000 })),
            (5_000, "spec.completions".into()),
            "every completion is a pod"
        );
    }

    #[test]
    fn a_distributed_training_runs_its_workers_and_a_master_or_grows_to_max_replicas() {
        let request = |extra: Value| {
            let mut spec =
                json!({ "image": "x", "distributedFramework": "PyTorch", "numWorkers": 4 });
            for (k, v) in extra.as_object().unwrap() {
                spec[k] = v.clone();
            }
            let r = parse::distributed(&json!({ "name": "a", "projectId": "p", "spec": spec }))
                .unwrap();
            let c = r.request().pod_count();
            (c.pods, c.field)
        };
        assert_eq!(request(json!({})), (5, "spec.numWorkers".into()));
        assert_eq!(
            request(json!({ "minReplicas": 2, "maxReplicas": 4 })),
            (5, "spec.numWorkers".into())
        );
        assert_eq!(
            request(json!({ "minReplicas": 2, "maxReplicas": 5 })),
            (6, "spec.maxReplicas".into()),
            "five workers and the master"
        );
        assert_eq!(
            request(json!({ "maxReplicas": 4000 })),
            (4001, "spec.maxReplicas".into())
        );
    }

    #[test]
    fn a_generic_workload_runs_every_replica_and_names_the_largest_type() {
        let request = |replicas: Value| {
            let r = parse::generic(&json!({
                "name": "a", "projectId": "p",
                "spec": { "replicaSpecs": replicas }
            }))
            .unwrap();
            let c = r.request().pod_count();
            (c.pods, c.field)
        };
        assert_eq!(
            request(json!([
                { "type": "ps", "spec": { "image": "x" } },
                { "type": "worker", "replicas": 9000, "spec": { "image": "x" } },
                { "type": "eval", "replicas": 9000, "spec": { "image": "x" } }
            ])),
            (18_001, "spec.replicaSpecs[1].replicas".into())
        );
        assert_eq!(
            request(
                json!([{ "type": "a", "spec": { "image": "x" } }, { "type": "b", "spec": { "image": "x" } }])
            ),
            (2, "spec.replicaSpecs".into())
        );
    }
}
