//! Where a pod may be placed: the node type and pools it asks for, the topology its pods share,
//! and the taints it tolerates.

use crate::model::training::checked::{PodAffinity, Toleration};
use crate::model::training::request::{
    TaintEffect, Toleration as RequestToleration, TolerationOperator, TrainingSpec,
};
use crate::model::validation::{self as v, Errors, index, join};
use std::collections::BTreeSet;

/// The node type, the node pools and the pod affinity.
pub(super) type Placement = (Option<String>, Vec<String>, Option<PodAffinity>);

pub(super) fn placement(errors: &mut Errors, s: &TrainingSpec, path: &str) -> Option<Placement> {
    let at = |field: &str| join(path, field);
    let node_type = errors.take_some(at("nodeType"), s.node_type.as_deref(), |node_type| {
        non_empty_label_value(node_type).map(|()| node_type.to_owned())
    });
    let pools = s.node_pools.as_deref().unwrap_or_default();
    let mut seen = BTreeSet::new();
    let mut pools_ok = true;
    for (i, pool) in pools.iter().enumerate() {
        pools_ok &= errors
            .take(index(&at("nodePools"), i), non_empty_label_value(pool))
            .is_some();
        if !seen.insert(pool) {
            errors.add(index(&at("nodePools"), i), format!("lists {pool:?} twice"));
            pools_ok = false;
        }
    }
    let affinity = errors.take_some(
        join(&at("podAffinity"), "key"),
        s.pod_affinity.as_ref(),
        |a| {
            v::qualified_name(&a.key).map(|()| PodAffinity {
                kind: a.kind,
                key: a.key.clone(),
            })
        },
    );
    pools_ok
        .then(|| pools.to_vec())
        .zip(node_type)
        .zip(affinity)
        .map(|((pools, node_type), affinity)| (node_type, pools, affinity))
}

fn non_empty_label_value(s: &str) -> Result<(), String> {
    if s.is_empty() {
        Err("must not be empty".into())
    } else {
        v::label_value(s)
    }
}

pub(super) fn toleration(
    errors: &mut Errors,
    t: &RequestToleration,
    path: &str,
) -> Option<Toleration> {
    let before = errors.count();
    let exists = t.operator == Some(TolerationOperator::Exists);
    match t.key.as_deref() {
        Some("") | None if !exists => errors.add(
            join(path, "key"),
            "is required with operator Equal; only Exists may leave it empty to match every taint",
        ),
        Some(key) if !key.is_empty() => errors.check(join(path, "key"), v::qualified_name(key)),
        _ => {}
    }
    if exists && t.value.as_deref().is_some_and(|v| !v.is_empty()) {
        errors.add(
            join(path, "value"),
            "must be empty when operator is Exists (Exists matches any value)",
        );
    }
    if let Some(value) = &t.value
        && !exists
    {
        errors.check(join(path, "value"), v::label_value(value));
    }
    if let Some(seconds) = t.seconds {
        if t.effect != Some(TaintEffect::NoExecute) {
            errors.add(join(path, "seconds"), "is only allowed with effect NoExecute (how long to stay on a node after the taint appears; Kubernetes refuses it with other effects): remove seconds or use effect NoExecute");
        }
        errors.check(join(path, "seconds"), v::at_least(seconds, 0));
    }
    (errors.count() == before).then(|| Toleration {
        key: t.key.clone().filter(|k| !k.is_empty()),
        operator: t.operator.unwrap_or(TolerationOperator::Equal),
        value: if exists { None } else { t.value.clone() },
        effect: t.effect.filter(|e| *e != TaintEffect::Any),
        seconds: t.seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepts, refuses};
    use serde_json::{Value, json};

    #[test]
    fn the_node_type_is_a_non_empty_label_value() {
        accepts(json!({ "nodeType": "a100-80gb" }));
        refuses(
            json!({ "nodeType": "" }),
            "spec.nodeType",
            "must not be empty",
        );
        refuses(
            json!({ "nodeType": "a100 80gb" }),
            "spec.nodeType",
            "must be at most 63 letters, digits, '-', '_' or '.'",
        );
    }

    #[test]
    fn node_pools_are_non_empty_label_values_listed_once() {
        accepts(json!({ "nodePools": ["default", "gpu.large"] }));
        refuses(
            json!({ "nodePools": ["default", ""] }),
            "spec.nodePools[1]",
            "must not be empty",
        );
        refuses(
            json!({ "nodePools": ["-gpu"] }),
            "spec.nodePools[0]",
            "(got \"-gpu\")",
        );
        refuses(
            json!({ "nodePools": ["gpu", "cpu", "gpu"] }),
            "spec.nodePools[2]",
            "lists \"gpu\" twice",
        );
    }

    #[test]
    fn the_pod_affinity_key_is_a_label_key() {
        accepts(
            json!({ "podAffinity": { "type": "Preferred", "key": "topology.kubernetes.io/zone" } }),
        );
        refuses(
            json!({ "podAffinity": { "type": "Required", "key": "zone/" } }),
            "spec.podAffinity.key",
            "must be a name of at most 63 letters",
        );
    }

    fn tolerating(toleration: Value) -> Value {
        json!({ "tolerations": [toleration] })
    }

    #[test]
    fn only_exists_may_leave_the_key_empty() {
        accepts(tolerating(json!({ "operator": "Exists" })));
        accepts(tolerating(json!({ "operator": "Exists", "key": "" })));
        accepts(tolerating(json!({ "key": "gpu", "value": "true" })));
        for toleration in [
            json!({}),
            json!({ "operator": "Equal" }),
            json!({ "operator": "Equal", "key": "" }),
        ] {
            refuses(
                tolerating(toleration),
                "spec.tolerations[0].key",
                "is required with operator Equal; only Exists may leave it empty",
            );
        }
    }

    #[test]
    fn a_toleration_key_is_a_label_key() {
        accepts(tolerating(
            json!({ "operator": "Exists", "key": "nvidia.com/gpu" }),
        ));
        refuses(
            tolerating(json!({ "operator": "Exists", "key": "a b" })),
            "spec.tolerations[0].key",
            "must be a name of at most 63 letters",
        );
    }

    #[test]
    fn exists_takes_no_value_and_equal_takes_a_label_value() {
        accepts(tolerating(
            json!({ "operator": "Exists", "key": "k", "value": "" }),
        ));
        refuses(
            tolerating(json!({ "operator": "Exists", "key": "k", "value": "v" })),
            "spec.tolerations[0].value",
            "must be empty when operator is Exists (Exists matches any value)",
        );
        accepts(tolerating(
            json!({ "operator": "Equal", "key": "k", "value": "" }),
        ));
        refuses(
            tolerating(json!({ "operator": "Equal", "key": "k", "value": "a b" })),
            "spec.tolerations[0].value",
            "must be at most 63 letters, digits, '-', '_' or '.'",
        );
    }

    #[test]
    fn seconds_are_for_no_execute_and_not_negative() {
        let toleration = |effect: Option<&str>, seconds: i64| {
            tolerating(json!({ "operator": "Exists", "effect": effect, "seconds": seconds }))
        };
        accepts(toleration(Some("NoExecute"), 0));
        accepts(toleration(Some("NoExecute"), 300));
        for effect in [
            None,
            Some("NoSchedule"),
            Some("PreferNoSchedule"),
            Some("Any"),
        ] {
            refuses(
                toleration(effect, 300),
                "spec.tolerations[0].seconds",
                "is only allowed with effect NoExecute (how long to stay on a node",
            );
        }
        refuses(
            toleration(Some("NoExecute"), -1),
            "spec.tolerations[0].seconds",
            "must be at least 0 (got -1)",
        );
    }
}
