//! A pod that lost its node. Kubernetes marks such a pod before it deletes it (condition
//! `DisruptionTarget`): `DeletionByPodGC` when its Node object is gone (kube-controller-manager's
//! pod garbage collector, 40 s after the node went), `DeletionByTaintManager` when its node stopped
//! answering and the pod's toleration of that ran out. The gang lost a member, and the Job's
//! `PodFailed` or `PodEvicted` policy restarts it. The pod is deleted at once, so Tephra keeps what
//! it said: the training says why it restarts until it runs again (`domain::status::derive`), and
//! its history keeps the reason of that change of phase.

use k8s_openapi::api::core::v1::Pod;

/// How the node went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeLoss {
    /// Its Node object was deleted (scaled down, replaced, removed by an administrator).
    Deleted,
    /// It stopped answering (NotReady or unreachable) for longer than the pod tolerates.
    Unreachable,
}

/// A pod of the workload's current Job that lost its node, until the Job runs again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostNode {
    pub pod: String,
    pub node: Option<String>,
    pub loss: NodeLoss,
    /// What Kubernetes said ("PodGC: node no longer exists").
    pub message: String,
    /// The Job's retry count when it happened: running again with a higher one means it came
    /// back.
    pub retry: i32,
}

/// How `pod` lost its node and what Kubernetes said, if it did.
pub fn lost_node(pod: &Pod) -> Option<(NodeLoss, String)> {
    let conditions = pod.status.as_ref()?.conditions.as_ref()?;
    conditions.iter().find_map(|c| {
        if c.type_ != "DisruptionTarget" || c.status != "True" {
            return None;
        }
        let loss = match c.reason.as_deref()? {
            "DeletionByPodGC" => NodeLoss::Deleted,
            "DeletionByTaintManager" => NodeLoss::Unreachable,
            _ => return None,
        };
        Some((loss, c.message.clone().unwrap_or_default()))
    })
}

/// The reason a training whose pod lost its node shows until it runs again, before what it now
/// waits on.
pub fn explain(lost: &LostNode, now: Option<&str>) -> String {
    let node = lost
        .node
        .as_deref()
        .map_or_else(|| "its node".to_owned(), |n| format!("node {n}"));
    let how = match lost.loss {
        NodeLoss::Deleted => "was removed from the cluster",
        NodeLoss::Unreachable => "stopped answering",
    };
    let mut reason = format!(
        "pod {} lost its node: {node} {how} ({}); the gang lost a member, and Volcano restarts it",
        lost.pod, lost.message
    );
    if let Some(now) = now {
        reason.push_str("; now ");
        reason.push_str(now);
    }
    reason
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{PodCondition, PodStatus};

    fn pod(reason: &str, message: &str) -> Pod {
        Pod {
            status: Some(PodStatus {
                phase: Some("Failed".into()),
                conditions: Some(vec![PodCondition {
                    type_: "DisruptionTarget".into(),
                    status: "True".into(),
                    reason: Some(reason.into()),
                    message: Some(message.into()),
                    ..PodCondition::default()
                }]),
                ..PodStatus::default()
            }),
            ..Pod::default()
        }
    }

    #[test]
    fn a_pod_collected_after_its_node_went_says_so() {
        // As kube-controller-manager's pod garbage collector leaves it (Kubernetes 1.34).
        let collected = pod("DeletionByPodGC", "PodGC: node no longer exists");
        let (loss, message) = lost_node(&collected).unwrap();
        assert_eq!(loss, NodeLoss::Deleted);
        let lost = LostNode {
            pod: "train-worker-1".into(),
            node: Some("gpu-node-3".into()),
            loss,
            message,
            retry: 0,
        };
        assert_eq!(
            explain(&lost, Some("waiting for 8 free GPUs")),
            "pod train-worker-1 lost its node: node gpu-node-3 was removed from the cluster \
             (PodGC: node no longer exists); the gang lost a member, and Volcano restarts it; \
             now waiting for 8 free GPUs"
        );
        let tainted = pod(
            "DeletionByTaintManager",
            "Taint manager: deleting due to NoExecute taint",
        );
        assert_eq!(lost_node(&tainted).unwrap().0, NodeLoss::Unreachable);
        // Preempted or drained pods lost nothing of their node.
        assert_eq!(lost_node(&pod("PreemptionByScheduler", "volcano")), None);
        assert_eq!(lost_node(&pod("EvictionByEvictionAPI", "drain")), None);
        assert_eq!(lost_node(&Pod::default()), None);
    }
}
