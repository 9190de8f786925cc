//! Why a gang waits, in plain words: the queue has not admitted it (and what it needs), the
//! scheduler cannot place it (its message made readable), or its pods are placed and starting.

use super::{Derived, JobObservation, Observed};
use crate::model::phase::Phase;

pub(super) fn pending(job: &JobObservation, observed: &Observed) -> Derived {
    let Some(pg) = &observed.pod_group else {
        return Derived::new(
            Phase::Pending,
            Some("waiting for Volcano to create the gang's PodGroup".into()),
        );
    };
    let gang = pg.min_member.max(job.min_available);
    if pg.phase == "Pending" || pg.phase.is_empty() {
        let needs = needs(gang, &pg.min_resources);
        let reason = match &pg.unschedulable {
            Some(message) => format!(
                "queue {} has not admitted the gang: it {needs}; {}",
                pg.queue,
                plain_unschedulable(message)
            ),
            None => format!(
                "waiting for queue {} to admit the gang: it {needs}; it stays here while the \
                 queue or the cluster cannot give that much",
                pg.queue
            ),
        };
        return Derived::new(Phase::Pending, Some(reason));
    }
    let bound = observed.pods.iter().filter(|p| p.node.is_some()).count();
    if gang > 0 && bound >= gang as usize {
        let running = observed
            .pods
            .iter()
            .filter(|p| p.phase == "Running")
            .count();
        return Derived::new(
            Phase::Initializing,
            Some(format!(
                "{bound} pod(s) placed on nodes, {running} running; containers are starting"
            )),
        );
    }
    let reason = match &pg.unschedulable {
        Some(message) if held_by_queue(message) => format!(
            "waiting for queue {} to admit the gang: what it may use is taken (its project's or \
             department's limit, or the cluster's GPUs in all), so the scheduler does not try \
             the nodes yet; it {}",
            pg.queue,
            needs(gang, &pg.min_resources)
        ),
        Some(message) => format!(
            "the scheduler cannot place the gang of {gang} pod(s) at once: {}; it {}",
            plain_unschedulable(message),
            needs(gang, &pg.min_resources)
        ),
        None => format!(
            "admitted by queue {}; waiting for the scheduler to place {gang} pod(s) at once",
            pg.queue
        ),
    };
    Derived::new(Phase::Pending, Some(reason))
}

/// Whether the gang message of an admitted (Inqueue) gang says its queue held it back: Volcano's
/// `allocate` skips a task its queue cannot take (the `capacity` plugin's real capability: the
/// queue's capability, bounded by the cluster's total) before trying any node, so the message has
/// the gang's counts and no node's reason ("Origin reason is …: 0/4 nodes are unavailable: …"),
/// as the testbed shows for a project at its limit and for a cluster full in all.
fn held_by_queue(message: &str) -> bool {
    message.contains("tasks in gang unschedulable")
        && !message.contains("Origin reason")
        && !message.contains("nodes are unavailable")
        && !message.contains("node(s)")
}

/// "needs 5 pods at once with 40 nvidia.com/gpu, 20 cpu".
fn needs(gang: i32, resources: &[(String, String)]) -> String {
    let mut text = format!("needs {gang} pod(s) at once");
    let listed: Vec<String> = resources
        .iter()
        // Volcano also lists quota forms (`count/pods`, `requests.nvidia.com/gpu`) of the same
        // resources; the plain names say it all.
        .filter(|(name, _)| {
            name.as_str() != "pods" && !name.starts_with("count/") && !name.starts_with("requests.")
        })
        .map(|(name, quantity)| format!("{quantity} {name}"))
        .collect();
    if !listed.is_empty() {
        text.push_str(" with ");
        text.push_str(&listed.join(", "));
    }
    text
}

/// The scheduler's gang message made readable: Volcano writes
/// `2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 Unschedulable`
/// followed by the node fit errors; the counts and the fit errors are what a user needs.
pub fn plain_unschedulable(message: &str) -> String {
    let message = message.trim();
    let (head, rest) = match message.split_once(": ") {
        Some((head, rest)) if head.contains("tasks in gang unschedulable") => (Some(head), rest),
        _ => (None, message),
    };
    let mut out = match head.and_then(|h| h.split_whitespace().next()) {
        Some(counts) => match counts.split_once('/') {
            Some((unplaced, total)) => format!("{unplaced} of {total} pods cannot be placed"),
            None => counts.to_owned(),
        },
        None => String::new(),
    };
    let rest = rest.trim();
    if !rest.is_empty() {
        if !out.is_empty() {
            out.push_str(" (");
            out.push_str(rest);
            out.push(')');
        } else {
            out.push_str(rest);
        }
    }
    out
}
