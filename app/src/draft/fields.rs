//! The paths of the request's sections, for the form and the draft's own rules. Every key comes
//! from [`key!`](crate::key), so each is checked against the request types.

use super::path::Path;
use crate::key;
use tephra_core::model::training::distributed::DistributedSpec;
use tephra_core::model::training::generic::GenericSpec;
use tephra_core::model::training::request::{
    AffinityType, PodAffinity, TrainingRequest, TrainingSpec,
};

pub fn name() -> Path {
    Path::root().key(key!(TrainingRequest.name))
}

pub fn project() -> Path {
    Path::root().key(key!(TrainingRequest.project_id))
}

/// The spec: of the single pod, or of every worker of a distributed training.
pub fn spec() -> Path {
    Path::root().key(key!(TrainingRequest.spec))
}

pub fn compute() -> Path {
    spec().key(key!(TrainingSpec.compute))
}

pub fn storage() -> Path {
    spec().key(key!(TrainingSpec.storage))
}

pub fn security() -> Path {
    spec().key(key!(TrainingSpec.security))
}

pub fn master() -> Path {
    spec().key(key!(DistributedSpec.master))
}

/// The keys a distributed spec has beyond the worker's [`TrainingSpec`].
pub fn distributed_keys() -> [String; 6] {
    [
        key!(DistributedSpec.distributed_framework),
        key!(DistributedSpec.num_workers),
        key!(DistributedSpec.min_replicas),
        key!(DistributedSpec.max_replicas),
        key!(DistributedSpec.master_spec_same_as_worker),
        key!(DistributedSpec.master),
    ]
}

/// The spec keys some section of the form edits; a clone keeps the others as they were and says
/// so.
pub fn shown_spec_keys() -> Vec<String> {
    let mut keys = vec![
        key!(TrainingSpec.image),
        key!(TrainingSpec.image_pull_policy),
        key!(TrainingSpec.image_pull_secrets),
        key!(TrainingSpec.command),
        key!(TrainingSpec.args),
        key!(TrainingSpec.working_dir),
        key!(TrainingSpec.environment_variables),
        key!(TrainingSpec.labels),
        key!(TrainingSpec.annotations),
        key!(TrainingSpec.compute),
        key!(TrainingSpec.storage),
        key!(TrainingSpec.security),
        key!(TrainingSpec.tolerations),
        key!(TrainingSpec.node_pools),
        key!(TrainingSpec.node_type),
        key!(TrainingSpec.pod_affinity),
        key!(TrainingSpec.priority_class),
        key!(TrainingSpec.completions),
        key!(TrainingSpec.parallelism),
        key!(TrainingSpec.backoff_limit),
        key!(TrainingSpec.auto_deletion_time_after_completion_seconds),
        key!(TrainingSpec.terminate_after_preemption),
    ];
    keys.extend(distributed_keys());
    // A generic job's rules are not in the form: a clone keeps them and says so.
    keys.extend([
        key!(GenericSpec.replica_specs),
        key!(GenericSpec.run_mode),
        key!(GenericSpec.clean_up_policy),
    ]);
    keys
}

/// `PodAffinity.kind` is the one request field serde renames (`type` is a Rust keyword), so its
/// key is read from serde's own output rather than from the field's name.
pub fn pod_affinity_type_key() -> &'static str {
    use std::sync::OnceLock;
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        let written = serde_json::to_value(sample_pod_affinity()).unwrap_or_default();
        let kind = serde_json::to_value(AffinityType::Required).unwrap_or_default();
        written
            .as_object()
            .and_then(|o| o.iter().find(|(_, v)| **v == kind).map(|(k, _)| k.clone()))
            .unwrap_or_default()
    })
}

pub(super) fn sample_pod_affinity() -> PodAffinity {
    PodAffinity {
        kind: AffinityType::Required,
        key: String::new(),
    }
}
