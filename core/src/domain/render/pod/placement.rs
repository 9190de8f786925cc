//! Where the pod may run: the taints it tolerates, the node pools it needs and the topology its
//! job's pods share.

use super::PodContext;
use crate::domain::labels::WORKLOAD_ID;
use crate::model::training::checked::{self, Spec};
use crate::model::training::request::{AffinityType, TaintEffect, TolerationOperator};
use k8s_openapi::api::core::v1::{
    Affinity, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodAffinity,
    PodAffinityTerm, Toleration, WeightedPodAffinityTerm,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use std::collections::BTreeMap;

pub(super) fn toleration(t: &checked::Toleration) -> Toleration {
    Toleration {
        key: t.key.clone(),
        operator: Some(
            match t.operator {
                TolerationOperator::Exists => "Exists",
                TolerationOperator::Equal => "Equal",
            }
            .into(),
        ),
        value: t.value.clone(),
        effect: t.effect.and_then(|effect| match effect {
            TaintEffect::Any => None,
            TaintEffect::NoSchedule => Some("NoSchedule".into()),
            TaintEffect::PreferNoSchedule => Some("PreferNoSchedule".into()),
            TaintEffect::NoExecute => Some("NoExecute".into()),
        }),
        toleration_seconds: t.seconds,
    }
}

/// The nodes the pod requires: one of the request's terms (Kubernetes ORs them), each also
/// requiring one of the requested node pools.
fn required_nodes(spec: &Spec, ctx: &PodContext<'_>) -> Vec<NodeSelectorTerm> {
    let pools = (!spec.node_pools.is_empty()).then(|| NodeSelectorRequirement {
        key: ctx.target.profile.node_pool_label.clone(),
        operator: "In".into(),
        values: Some(spec.node_pools.clone()),
    });
    let terms: Vec<Vec<NodeSelectorRequirement>> = if spec.pod.node_affinity.is_empty() {
        pools.iter().map(|p| vec![p.clone()]).collect()
    } else {
        spec.pod
            .node_affinity
            .iter()
            .map(|term| {
                let mut requirements: Vec<_> = term.0.iter().map(requirement).collect();
                requirements.extend(pools.clone());
                requirements
            })
            .collect()
    };
    terms
        .into_iter()
        .map(|requirements| NodeSelectorTerm {
            match_expressions: Some(requirements),
            ..NodeSelectorTerm::default()
        })
        .collect()
}

fn requirement(r: &checked::NodeRequirement) -> NodeSelectorRequirement {
    NodeSelectorRequirement {
        key: r.key.clone(),
        operator: r.operator.as_str().into(),
        values: (!r.values.is_empty()).then(|| r.values.clone()),
    }
}

pub(super) fn affinity(spec: &Spec, ctx: &PodContext<'_>) -> Option<Affinity> {
    let terms = required_nodes(spec, ctx);
    let node_affinity = (!terms.is_empty()).then(|| NodeAffinity {
        required_during_scheduling_ignored_during_execution: Some(NodeSelector {
            node_selector_terms: terms,
        }),
        ..NodeAffinity::default()
    });
    let pod_affinity = spec.pod_affinity.as_ref().map(|a| {
        // The job's own pods attract each other within the topology domain `key`.
        let term = PodAffinityTerm {
            label_selector: Some(LabelSelector {
                match_labels: Some(BTreeMap::from([(
                    WORKLOAD_ID.to_owned(),
                    ctx.target.workload.id.clone(),
                )])),
                ..LabelSelector::default()
            }),
            topology_key: a.key.clone(),
            ..PodAffinityTerm::default()
        };
        match a.kind {
            AffinityType::Required => PodAffinity {
                required_during_scheduling_ignored_during_execution: Some(vec![term]),
                ..Default::default()
            },
            AffinityType::Preferred => PodAffinity {
                preferred_during_scheduling_ignored_during_execution: Some(vec![
                    WeightedPodAffinityTerm {
                        weight: 100,
                        pod_affinity_term: term,
                    },
                ]),
                ..Default::default()
            },
        }
    });
    (node_affinity.is_some() || pod_affinity.is_some()).then(|| Affinity {
        node_affinity,
        pod_affinity,
        ..Affinity::default()
    })
}
