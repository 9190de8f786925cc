//! A running one-pod training's objects as the watch index sees them on the testbed (its signed
//! Volcano Job, the PodGroup Volcano makes, the bound Running pod and three events), fed to
//! `server::cluster::index::Index` in stages, for `bench-index` and the `index_memory` test to
//! count the heap it holds per training (issue 36).

use k8s_openapi::api::core::v1::{Event, Pod};
use serde_json::json;
use server::cluster::index::Index;
use server::cluster::objects::PodGroup;
use tephra_core::domain::labels::{MANAGED_BY, MANAGED_BY_VALUE, PROJECT, WORKLOAD_ID};
use tephra_core::domain::ownership::{OWNER, OwnerKey};
use tephra_core::domain::volcano::Job;
use uuid::Uuid;

const NS: &str = "tephra-default";

/// The stages, in the order [`Trainings::apply`] takes them.
pub const STAGES: [&str; 4] = [
    "Jobs",
    "+ PodGroups",
    "+ pods (Running, bound)",
    "+ 3 events each",
];

/// `count` trainings' identities, and the key that signs their Jobs.
pub struct Trainings {
    key: OwnerKey,
    ids: Vec<(Uuid, String, String)>,
}

impl Trainings {
    pub fn new(count: usize) -> Self {
        let ids = (0..count)
            .map(|i| {
                let id = Uuid::new_v4();
                let name = format!("dash-{i:05}-{}", &id.to_string()[..8]);
                (id, name, Uuid::new_v4().to_string())
            })
            .collect();
        Trainings {
            key: OwnerKey::from_hex(&"42".repeat(32)).expect("a key"),
            ids,
        }
    }

    /// How many trainings there are.
    pub fn count(&self) -> usize {
        self.ids.len()
    }

    /// An index that verifies these trainings' Jobs.
    pub fn index(&self) -> Index {
        Index::new(self.key.clone())
    }

    /// Applies stage `stage` (an index into [`STAGES`]) of every training to `index`.
    pub fn apply(&self, index: &mut Index, stage: usize) {
        for (i, (id, name, uid)) in self.ids.iter().enumerate() {
            match stage {
                0 => drop(index.apply_job(&job(&self.key, *id, name, uid))),
                1 => drop(index.apply_pod_group(&pod_group(*id, name, uid))),
                2 => drop(index.apply_pod(&pod(*id, name, uid, i % 10))),
                _ => {
                    let pod = format!("{name}-train-0");
                    let group = format!("{name}-{uid}");
                    let scheduled = format!(
                        "pod group is ready; 1/1 tasks in gang unschedulable: 0, {NS}/{group}"
                    );
                    index.apply_event(&event("PodGroup", &group, "Scheduled", &scheduled));
                    let assigned = format!("Successfully assigned {NS}/{pod} to gpu-node-0");
                    index.apply_event(&event("Pod", &pod, "Scheduled", &assigned));
                    let action = format!("Start to execute action SyncJob for job {name}");
                    index.apply_event(&event("Job", name, "ExecuteAction", &action));
                }
            }
        }
    }
}

fn labels(id: Uuid) -> serde_json::Value {
    let mut labels = serde_json::Map::new();
    labels.insert(WORKLOAD_ID.into(), id.to_string().into());
    labels.insert(MANAGED_BY.into(), MANAGED_BY_VALUE.into());
    labels.insert(PROJECT.into(), "default".into());
    labels.into()
}

fn job(key: &OwnerKey, id: Uuid, name: &str, uid: &str) -> Job {
    serde_json::from_value(json!({
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {
            "name": name, "namespace": NS, "uid": uid, "generation": 1,
            "labels": labels(id),
            "annotations": { OWNER: key.sign(&id.to_string(), NS, name) },
        },
        "spec": {
            "minAvailable": 1, "schedulerName": "volcano", "queue": "tephra-default",
            "tasks": [{ "name": "train", "replicas": 1, "template": { "spec": {
                "containers": [{ "name": "train", "image": "busybox:1.36",
                    "command": ["sh", "-c", "sleep 3600"],
                    "resources": { "requests": { "cpu": "10m" }, "limits": { "cpu": "10m" } } }],
                "restartPolicy": "Never" } } }],
        },
        "status": { "state": { "phase": "Running" }, "running": 1, "minAvailable": 1 },
    }))
    .expect("a Volcano Job")
}

fn pod_group(id: Uuid, job: &str, uid: &str) -> PodGroup {
    serde_json::from_value(json!({
        "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
        "metadata": {
            "name": format!("{job}-{uid}"), "namespace": NS, "labels": labels(id),
            "ownerReferences": [{ "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                "name": job, "uid": uid, "controller": true }],
        },
        "spec": { "minMember": 1, "queue": "tephra-default", "minResources": { "cpu": "10m" } },
        "status": { "phase": "Running", "conditions": [{ "type": "Scheduled", "status": "True",
            "reason": "tasks in gang are ready to be scheduled" }] },
    }))
    .expect("a PodGroup")
}

fn pod(id: Uuid, job: &str, uid: &str, node: usize) -> Pod {
    serde_json::from_value(json!({
        "metadata": {
            "name": format!("{job}-train-0"), "namespace": NS, "labels": labels(id),
            "annotations": { "volcano.sh/job-retry-count": "0", "volcano.sh/task-spec": "train" },
            "creationTimestamp": "2026-11-30T08:00:00Z",
            "ownerReferences": [{ "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                "name": job, "uid": uid, "controller": true }],
        },
        "spec": { "nodeName": format!("gpu-node-{node}"), "containers": [{ "name": "train",
            "image": "busybox:1.36", "resources": { "limits": { "cpu": "10m" } } }] },
        "status": { "phase": "Running", "containerStatuses": [{ "name": "train",
            "image": "busybox:1.36", "imageID": "", "ready": true, "restartCount": 0,
            "state": { "running": { "startedAt": "2026-11-30T08:00:01Z" } } }] },
    }))
    .expect("a Pod")
}

fn event(kind: &str, name: &str, reason: &str, message: &str) -> Event {
    serde_json::from_value(json!({
        "metadata": { "name": format!("{name}.{reason}"), "namespace": NS },
        "involvedObject": { "kind": kind, "name": name, "namespace": NS },
        "type": "Normal", "reason": reason, "message": message, "count": 1,
        "lastTimestamp": "2026-11-30T08:00:01Z",
    }))
    .expect("an Event")
}
