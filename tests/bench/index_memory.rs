//! What the watch index holds per running training (issue 36's memory target: at most 5 KiB per
//! running training beyond the idle process). Feeds `server::cluster::index::Index` the objects
//! one running single-pod training has on the testbed (its signed Volcano Job, the PodGroup
//! Volcano makes, the bound Running pod and three events) for `BENCH_TRAININGS` trainings
//! (default 10,000), and prints the heap the index holds after each kind: live bytes and live
//! allocations, counted by this binary's global allocator. No cluster, no timing: the figures
//! are deterministic for a build. `scripts/bench index` runs it.

use k8s_openapi::api::core::v1::{Event, Pod};
use serde_json::json;
use server::cluster::index::Index;
use server::cluster::objects::PodGroup;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use tephra_core::domain::labels::{MANAGED_BY, MANAGED_BY_VALUE, PROJECT, WORKLOAD_ID};
use tephra_core::domain::ownership::{OWNER, OwnerKey};
use tephra_core::domain::volcano::Job;
use tephra_tests::bench::env_usize;
use uuid::Uuid;

/// The system allocator, counting what is live.
struct Counting;

static BYTES: AtomicIsize = AtomicIsize::new(0);
static BLOCKS: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        BLOCKS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        BLOCKS.fetch_sub(1, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const NS: &str = "tephra-default";

fn live() -> (isize, isize) {
    (
        BYTES.load(Ordering::Relaxed),
        BLOCKS.load(Ordering::Relaxed),
    )
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

fn row(stage: &str, before: (isize, isize), trainings: usize) {
    let (bytes, blocks) = live();
    let per = |v: isize, b: isize| (v - b) as f64 / trainings as f64;
    println!(
        "| {stage} | {:.0} B | {:.1} |",
        per(bytes, before.0),
        per(blocks, before.1)
    );
}

fn main() {
    let trainings = env_usize("BENCH_TRAININGS", 10_000);
    let key = OwnerKey::from_hex(&"42".repeat(32)).expect("a key");
    let ids: Vec<(Uuid, String, String)> = (0..trainings)
        .map(|i| {
            let id = Uuid::new_v4();
            (
                id,
                format!("dash-{i:05}-{}", &id.to_string()[..8]),
                Uuid::new_v4().to_string(),
            )
        })
        .collect();
    let mut index = Index::new(key.clone());
    println!("# What the watch index holds per running training ({trainings} trainings)\n");
    println!("Heap held by the index after each kind is applied, per training, cumulative:\n");
    println!("| after | live bytes | live allocations |\n|---|---|---|");
    let start = live();
    for (id, name, uid) in &ids {
        index.apply_job(&job(&key, *id, name, uid));
    }
    row("Jobs", start, trainings);
    for (id, name, uid) in &ids {
        index.apply_pod_group(&pod_group(*id, name, uid));
    }
    row("+ PodGroups", start, trainings);
    for (i, (id, name, uid)) in ids.iter().enumerate() {
        index.apply_pod(&pod(*id, name, uid, i % 10));
    }
    row("+ pods (Running, bound)", start, trainings);
    for (_, name, uid) in &ids {
        let pod = format!("{name}-train-0");
        let group = format!("{name}-{uid}");
        index.apply_event(&event(
            "PodGroup",
            &group,
            "Scheduled",
            &format!("pod group is ready; 1/1 tasks in gang unschedulable: 0, {NS}/{group}"),
        ));
        index.apply_event(&event(
            "Pod",
            &pod,
            "Scheduled",
            &format!("Successfully assigned {NS}/{pod} to gpu-node-0"),
        ));
        index.apply_event(&event(
            "Job",
            name,
            "ExecuteAction",
            &format!("Start to execute action SyncJob for job {name}"),
        ));
    }
    row("+ 3 events each", start, trainings);
    println!(
        "\ninline sizes: an index entry {} B, a pod {} B, an event {} B, a Job {} B, a PodGroup {} B, \
         the observed objects {} B",
        std::mem::size_of::<server::cluster::index::Entry>(),
        std::mem::size_of::<tephra_core::model::workload::PodInfo>(),
        std::mem::size_of::<tephra_core::model::workload::EventInfo>(),
        std::mem::size_of::<tephra_core::domain::status::JobObservation>(),
        std::mem::size_of::<tephra_core::domain::status::PodGroupObservation>(),
        std::mem::size_of::<tephra_core::domain::status::Observed>(),
    );
    let total = live().0 - start.0;
    println!(
        "\nindex total: {:.1} MiB for {trainings} trainings, {:.2} KiB each",
        total as f64 / 1024.0 / 1024.0,
        total as f64 / 1024.0 / trainings as f64
    );
    drop(index);
}
