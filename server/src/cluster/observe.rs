//! How the watchers read Kubernetes objects: a Volcano Job, its PodGroup and a pod, each turned
//! into the observation `domain::status` derives from. Only the fields Tephra shows or decides on.

use super::objects::PodGroup;
use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod};
use kube::ResourceExt;
use tephra_core::domain::finish::{
    Outcome, VERDICT_ANNOTATION, VERDICT_REASON_ANNOTATION, Verdict,
};
use tephra_core::domain::labels;
use tephra_core::domain::live_edit::{GENERATION_ANNOTATION, Shape};
use tephra_core::domain::quota::GPU_RESOURCE;
use tephra_core::domain::status::{JobObservation, PodGroupObservation};
use tephra_core::domain::volcano::Job;
use tephra_core::model::diagnosis::{ContainerState, PodState, Termination};
use tephra_core::model::workload::PodInfo;

pub fn job(job: &Job, name: String) -> JobObservation {
    let status = job.status.clone().unwrap_or_default();
    JobObservation {
        name,
        phase: status.state.phase,
        message: status.state.message.filter(|m| !m.is_empty()),
        retry_count: status.retry_count,
        min_available: job.spec.min_available.unwrap_or_default(),
        deleting: job.metadata.deletion_timestamp.is_some(),
        generation: job.metadata.generation.unwrap_or(1),
        edited_generation: job
            .annotations()
            .get(GENERATION_ANNOTATION)
            .and_then(|g| g.parse().ok()),
        shape: Shape::of(&job.spec),
        verdict: verdict(job),
    }
}

/// The finish Tephra recorded on a generic job's Job, if any.
fn verdict(job: &Job) -> Option<Verdict> {
    let annotations = job.annotations();
    let outcome = Outcome::parse(annotations.get(VERDICT_ANNOTATION)?)?;
    let reason = annotations
        .get(VERDICT_REASON_ANNOTATION)
        .cloned()
        .unwrap_or_default();
    Some(Verdict { outcome, reason })
}

pub fn pod_group(pg: &PodGroup, name: String) -> PodGroupObservation {
    let status = pg.status.clone().unwrap_or_default();
    let unschedulable = status
        .conditions
        .iter()
        .rev()
        .find(|c| c.type_ == "Unschedulable" && c.status == "True")
        .and_then(|c| c.message.clone());
    PodGroupObservation {
        name,
        phase: status.phase,
        min_member: pg.spec.min_member,
        queue: pg.spec.queue.clone(),
        min_resources: exact(
            pg.spec.min_resources.as_ref().map_or(0, |r| r.len()),
            pg.spec
                .min_resources
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.0.clone())),
        ),
        unschedulable,
    }
}

pub fn pod(pod: &Pod, name: String) -> PodInfo {
    let status = pod.status.as_ref();
    PodInfo {
        name,
        task: pod
            .labels()
            .get(labels::TASK_SPEC)
            .cloned()
            .unwrap_or_default(),
        node: pod.spec.as_ref().and_then(|s| s.node_name.clone()),
        phase: status
            .and_then(|s| s.phase.clone())
            .unwrap_or_else(|| "Pending".into()),
        restarts: status
            .and_then(|s| s.container_statuses.as_ref())
            .map_or(0, |cs| cs.iter().map(|c| c.restart_count).sum()),
        created_at: pod
            .metadata
            .creation_timestamp
            .as_ref()
            .map(|t| t.0.to_string()),
        gpus: gpus(pod),
        containers: exact(
            pod.spec.as_ref().map_or(0, |s| {
                s.containers.len() + s.init_containers.as_ref().map_or(0, Vec::len)
            }),
            pod.spec
                .iter()
                .flat_map(|s| {
                    s.containers
                        .iter()
                        .chain(s.init_containers.iter().flatten())
                })
                .map(|c| c.name.clone()),
        ),
        kubelet: kubelet(pod),
    }
}

/// The `len` items in a `Vec` made for exactly that many. Collecting a flattened or chained
/// iterator, which cannot tell its length ahead, makes room for four; the index keeps what it
/// observes of every running workload, and a one-container pod's kubelet states took 704 bytes
/// instead of 176. Counting first also spares shrinking (a second allocation) on every update.
fn exact<T>(len: usize, items: impl Iterator<Item = T>) -> Vec<T> {
    let mut collected = Vec::with_capacity(len);
    collected.extend(items);
    collected
}

/// What the kubelet reports of the pod's containers, for a diagnosis.
fn kubelet(pod: &Pod) -> PodState {
    let status = pod.status.as_ref();
    let spec = pod.spec.as_ref();
    let limits: Vec<(&str, Option<u64>)> = spec
        .iter()
        .flat_map(|s| {
            s.containers
                .iter()
                .chain(s.init_containers.iter().flatten())
        })
        .map(|c| (c.name.as_str(), memory_limit_mib(c)))
        .collect();
    let containers = exact(
        status.map_or(0, |s| {
            s.container_statuses.as_ref().map_or(0, Vec::len)
                + s.init_container_statuses.as_ref().map_or(0, Vec::len)
        }),
        status
            .iter()
            .flat_map(|s| {
                s.container_statuses
                    .iter()
                    .flatten()
                    .chain(s.init_container_statuses.iter().flatten())
            })
            .map(|c| container_state(c, &limits)),
    );
    PodState {
        reason: status.and_then(|s| s.reason.clone()),
        message: status.and_then(|s| s.message.clone()),
        pull_secrets: spec
            .and_then(|s| s.image_pull_secrets.as_ref())
            .into_iter()
            .flatten()
            .map(|r| r.name.clone())
            .collect(),
        containers,
    }
}

fn container_state(c: &ContainerStatus, limits: &[(&str, Option<u64>)]) -> ContainerState {
    let state = |s: Option<&k8s_openapi::api::core::v1::ContainerState>| {
        s.and_then(|s| s.terminated.as_ref()).map(|t| Termination {
            reason: t.reason.clone().unwrap_or_default(),
            exit_code: t.exit_code,
            message: t.message.clone(),
        })
    };
    ContainerState {
        name: c.name.clone(),
        image: c.image.clone(),
        waiting: c
            .state
            .as_ref()
            .and_then(|s| s.waiting.as_ref())
            .and_then(|w| Some((w.reason.clone()?, w.message.clone().unwrap_or_default()))),
        terminated: state(c.state.as_ref()).or_else(|| state(c.last_state.as_ref())),
        restarts: c.restart_count,
        memory_limit_mib: limits
            .iter()
            .find(|(name, _)| *name == c.name)
            .and_then(|(_, mib)| *mib),
    }
}

/// A container's memory limit in MiB (`4Gi`, `4096Mi`, `4G`, bytes).
fn memory_limit_mib(c: &Container) -> Option<u64> {
    let text = &c.resources.as_ref()?.limits.as_ref()?.get("memory")?.0;
    let (number, unit) = text.split_at(
        text.find(|ch: char| ch.is_ascii_alphabetic())
            .unwrap_or(text.len()),
    );
    let value: f64 = number.parse().ok()?;
    let bytes = value
        * match unit {
            "" => 1.0,
            "Ki" => 1024.0,
            "Mi" => 1_048_576.0,
            "Gi" => 1_073_741_824.0,
            "Ti" => 1_099_511_627_776.0,
            "k" => 1e3,
            "M" => 1e6,
            "G" => 1e9,
            "T" => 1e12,
            _ => return None,
        };
    Some((bytes / 1_048_576.0).round() as u64)
}

/// The GPUs a pod's containers ask for: their limits, as the device plugin counts them.
fn gpus(pod: &Pod) -> u32 {
    pod.spec
        .iter()
        .flat_map(|s| &s.containers)
        .filter_map(|c| c.resources.as_ref())
        .filter_map(|r| r.limits.as_ref().or(r.requests.as_ref()))
        .filter_map(|l| l.get(GPU_RESOURCE))
        .filter_map(|q| q.0.parse::<u32>().ok())
        .sum()
}

/// The uid of the object's controller (for pods and PodGroups, the Volcano Job that made them).
pub fn controller_uid(meta: &kube::api::ObjectMeta) -> Option<String> {
    meta.owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
        .map(|r| r.uid.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{Container, PodSpec, ResourceRequirements};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

    #[test]
    fn a_pod_counts_the_gpus_of_all_its_containers() {
        let container = |gpus: &str| Container {
            resources: Some(ResourceRequirements {
                limits: Some([(GPU_RESOURCE.to_owned(), Quantity(gpus.into()))].into()),
                ..ResourceRequirements::default()
            }),
            ..Container::default()
        };
        let p = Pod {
            spec: Some(PodSpec {
                containers: vec![container("2"), container("6"), Container::default()],
                ..PodSpec::default()
            }),
            ..Pod::default()
        };
        let info = pod(&p, "p".into());
        assert_eq!((info.gpus, info.phase.as_str()), (8, "Pending"));
    }

    #[test]
    fn what_a_pod_keeps_is_no_longer_than_it_holds() {
        let p = Pod {
            spec: Some(PodSpec {
                containers: vec![Container {
                    name: "train".into(),
                    ..Container::default()
                }],
                ..PodSpec::default()
            }),
            status: Some(k8s_openapi::api::core::v1::PodStatus {
                container_statuses: Some(vec![Default::default()]),
                ..Default::default()
            }),
            ..Pod::default()
        };
        let info = pod(&p, "p".into());
        assert_eq!(info.containers, ["train"]);
        assert_eq!(info.containers.capacity(), 1);
        assert_eq!(info.kubelet.containers.len(), 1);
        assert_eq!(info.kubelet.containers.capacity(), 1);
    }
}
