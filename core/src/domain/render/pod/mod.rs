//! One task's pod template: the container (see `container`) and the pod around it: its
//! scheduling (`placement`), security context (`security`) and volumes (`super::storage`).

mod container;

pub(super) use container::plain;
mod placement;
mod resources;
mod security;

use super::{SCHEDULER_NAME, Target, storage};
use crate::domain::labels::{CATEGORY, PREEMPTABLE};
use crate::model::training::checked::Spec;
use crate::model::training::distributed::Framework;
use crate::model::training::request::{Preemptibility, RestartPolicy};
use k8s_openapi::api::core::v1::{LocalObjectReference, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

pub(super) struct PodContext<'a> {
    pub target: Target<'a>,
    /// The task's name; also the container's.
    pub task: &'a str,
    pub framework: Option<Framework>,
    /// Every task of the job with its replicas, for the framework's environment.
    pub tasks: &'a [(&'a str, i32)],
}

pub(super) fn template(
    spec: &Spec,
    ctx: &PodContext<'_>,
    beside: &mut storage::StorageObjects,
) -> PodTemplateSpec {
    let storage = storage::render(spec, ctx, beside);
    let mut container = container::container(spec, ctx);
    container.volume_mounts = non_empty(storage.mounts);
    let security = spec.security.clone().unwrap_or_default();
    let profile = ctx.target.profile;

    let mut labels = ctx.target.workload.labels();
    if let Some(category) = &spec.pod.category {
        labels.insert(CATEGORY.into(), category.clone());
    }
    for (k, v) in &spec.labels {
        labels.entry(k.clone()).or_insert_with(|| v.clone());
    }
    let mut annotations: BTreeMap<String, String> = spec.annotations.iter().cloned().collect();
    if let Some(preemptibility) = spec.pod.preemptibility {
        let preemptable = preemptibility == Preemptibility::Preemptible;
        annotations.insert(PREEMPTABLE.into(), preemptable.to_string());
    }

    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(labels),
            annotations: non_empty_map(annotations),
            ..ObjectMeta::default()
        }),
        spec: Some(PodSpec {
            scheduler_name: Some(SCHEDULER_NAME.into()),
            // Volcano restarts through its policies (RestartJob and maxRetry), not the kubelet,
            // unless the request asks the kubelet to.
            restart_policy: Some(
                spec.pod
                    .restart_policy
                    .map_or("Never", RestartPolicy::as_str)
                    .into(),
            ),
            termination_grace_period_seconds: spec.pod.termination_grace_period_seconds,
            containers: vec![container],
            init_containers: non_empty(storage.init_containers),
            image_pull_secrets: non_empty(
                spec.image_pull_secrets
                    .iter()
                    .map(|name| LocalObjectReference {
                        name: name.as_str().into(),
                    })
                    .collect(),
            ),
            volumes: non_empty(storage.volumes),
            tolerations: non_empty(spec.tolerations.iter().map(placement::toleration).collect()),
            node_selector: spec.node_type.as_ref().map(|node_type| {
                BTreeMap::from([(profile.node_type_label.clone(), node_type.clone())])
            }),
            affinity: placement::affinity(spec, ctx),
            security_context: security::pod(&security, ctx),
            host_ipc: security.host_ipc.then_some(true),
            host_network: security.host_network.then_some(true),
            // What the webhook sets: pods on the host network still resolve cluster names.
            dns_policy: security
                .host_network
                .then(|| "ClusterFirstWithHostNet".into()),
            // A training needs no Kubernetes API identity: with the namespace's default account
            // mounted, code in the image could act as it.
            automount_service_account_token: Some(false),
            ..PodSpec::default()
        }),
    }
}

pub(super) fn non_empty<T>(items: Vec<T>) -> Option<Vec<T>> {
    (!items.is_empty()).then_some(items)
}

fn non_empty_map<K, V>(map: BTreeMap<K, V>) -> Option<BTreeMap<K, V>> {
    (!map.is_empty()).then_some(map)
}
