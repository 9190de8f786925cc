//! The Volcano objects Tephra reads or writes besides the Job (`domain::volcano`): the PodGroup the
//! scheduler admits and places, and the per-project Queue. Written by hand with the fields used;
//! server-side apply only manages the fields sent, so partial types are safe.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::CustomResource;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `scheduling.volcano.sh/v1beta1` PodGroup: created by Volcano's controller for each Job, named
/// `<job>-<job uid>`, with the Job's labels.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "scheduling.volcano.sh",
    version = "v1beta1",
    kind = "PodGroup",
    plural = "podgroups",
    namespaced,
    status = "PodGroupStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupSpec {
    #[serde(default)]
    pub min_member: i32,
    #[serde(default)]
    pub queue: String,
    #[serde(default)]
    pub min_resources: Option<BTreeMap<String, Quantity>>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupStatus {
    #[serde(default)]
    pub phase: String,
    #[serde(default)]
    pub conditions: Vec<PodGroupCondition>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupCondition {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// `scheduling.volcano.sh/v1beta1` Queue (cluster-scoped): one per department (a parent) and one
/// per project (a leaf under it), with the quota as `deserved` and the limit as `capability`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "scheduling.volcano.sh",
    version = "v1beta1",
    kind = "Queue",
    plural = "queues",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct QueueSpec {
    pub weight: i32,
    pub reclaimable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub deserved: BTreeMap<String, Quantity>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capability: BTreeMap<String, Quantity>,
}
