//! What the watchers have seen, by workload: the Job, the PodGroup, the pods and recent events.
//! Fed by watch events (including the re-lists after a reconnect), read by the controller to
//! decide what to create or delete and to derive each workload's status.
//!
//! Only what is provably Tephra's counts: a Job whose owner signature verifies
//! (`domain::ownership`), and PodGroups and pods whose controller is such a Job. Objects that
//! merely carry Tephra's labels are ignored, so a Job labelled by hand can neither change a
//! workload's status nor be taken for its Job. A pod seen before its Job waits until the Job is.

use k8s_openapi::api::core::v1::{Event, Pod};
use kube::ResourceExt;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tephra_core::domain::labels::WORKLOAD_ID;
use tephra_core::domain::node_loss::{self, LostNode};
use tephra_core::domain::ownership::OwnerKey;
use tephra_core::domain::preemption::{Preempted, evicted_by_scheduler};
use tephra_core::domain::volcano::Job;
use tephra_core::model::workload::{EventInfo, EventType};
use uuid::Uuid;

use super::objects::PodGroup;
use super::observe;
pub use entry::Entry;
use owners::{Key, Owners};

mod entry;
mod owners;

/// The kinds of object the index tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    Job = 0,
    PodGroup = 1,
    Pod = 2,
}

#[derive(Debug, Default)]
pub struct Index {
    /// Verifies Job ownership; without it (no cluster configured) nothing is tracked.
    key: Option<OwnerKey>,
    /// Boxed: an entry is about 450 bytes, and the table keeps up to half its slots empty.
    entries: HashMap<Uuid, Box<Entry>>,
    /// The workload of every tracked object, for deletes and events.
    owners: Owners,
    /// Namespaces of the Jobs by workload (Jobs may belong to another installation's rows),
    /// shared with `owners`.
    job_namespaces: HashMap<Uuid, Arc<str>>,
    /// Jobs that carry a workload id label but no valid owner signature, by (namespace, name):
    /// reported, never tracked, adopted or deleted.
    unsigned: HashMap<(String, String), Uuid>,
    /// Objects listed since the last `Init` of each kind, to drop what vanished while the watch
    /// was down.
    relisting: HashMap<ObjectKind, HashSet<Key>>,
}

/// The workload id on an object's labels.
pub fn workload_id(labels: &std::collections::BTreeMap<String, String>) -> Option<Uuid> {
    labels.get(WORKLOAD_ID).and_then(|v| v.parse().ok())
}

impl Index {
    pub fn new(key: OwnerKey) -> Self {
        Index {
            key: Some(key),
            ..Index::default()
        }
    }

    pub fn observed(&self, id: Uuid) -> Option<&Entry> {
        self.entries.get(&id).map(Box::as_ref)
    }

    /// Every workload with a Job, with the Job's namespace.
    pub fn jobs(&self) -> impl Iterator<Item = (Uuid, &str)> {
        self.job_namespaces
            .iter()
            .map(|(id, ns)| (*id, ns.as_ref()))
    }

    /// Jobs with Tephra's workload label that Tephra did not sign: (namespace, name, labelled id).
    pub fn unsigned_jobs(&self) -> impl Iterator<Item = (&str, &str, Uuid)> {
        self.unsigned
            .iter()
            .map(|((ns, name), id)| (ns.as_str(), name.as_str(), *id))
    }

    /// Starts a re-list of `kind`: objects not listed again before [`Self::relisted`] are gone.
    pub fn relist_started(&mut self, kind: ObjectKind) {
        self.relisting.insert(kind, HashSet::new());
    }

    /// Ends a re-list: forgets objects of `kind` that were not listed again. Returns the
    /// workloads that changed.
    pub fn relisted(&mut self, kind: ObjectKind) -> Vec<Uuid> {
        let Some(seen) = self.relisting.remove(&kind) else {
            return Vec::new();
        };
        if kind == ObjectKind::Job {
            self.unsigned.retain(|(ns, name), _| {
                seen.contains(&(ObjectKind::Job, ns.clone(), name.clone()))
            });
        }
        let stale: Vec<Key> = self
            .owners
            .keys_of(kind)
            .filter(|key| !seen.contains(key))
            .collect();
        stale
            .into_iter()
            .filter_map(|key| self.forget(&key))
            .collect()
    }

    fn note_listed(&mut self, key: &Key) {
        if let Some(seen) = self.relisting.get_mut(&key.0) {
            seen.insert(key.clone());
        }
    }

    fn entry(&mut self, id: Uuid) -> &mut Entry {
        self.entries.entry(id).or_default()
    }

    /// Removes one object; returns its workload.
    fn forget(&mut self, key: &Key) -> Option<Uuid> {
        let id = self.owners.remove(key)?;
        let entry = self.entries.get_mut(&id)?;
        match key.0 {
            ObjectKind::Job => {
                if entry.observed.job.as_ref().is_some_and(|j| j.name == key.2) {
                    entry.observed.job = None;
                    entry.observed.preempted = None;
                    entry.observed.lost_node = None;
                    self.job_namespaces.remove(&id);
                }
            }
            ObjectKind::PodGroup => {
                if entry
                    .observed
                    .pod_group
                    .as_ref()
                    .is_some_and(|pg| pg.name == key.2)
                {
                    entry.observed.pod_group = None;
                }
                if entry
                    .held_pod_group
                    .as_ref()
                    .is_some_and(|held| held.1.name == key.2)
                {
                    entry.held_pod_group = None;
                }
            }
            ObjectKind::Pod => {
                entry.observed.pods.remove(&key.2);
                entry.held_pods.retain(|(_, held)| held.name != key.2);
            }
        }
        Some(id)
    }

    pub fn apply_job(&mut self, job: &Job) -> Option<Uuid> {
        let key = (ObjectKind::Job, job.namespace()?, job.name_any());
        self.note_listed(&key);
        let Some(id) = self.key.as_ref()?.owner(&job.metadata) else {
            if let Some(labelled) = workload_id(job.labels()) {
                self.unsigned.insert((key.1, key.2), labelled);
            }
            return None;
        };
        let observation = observe::job(job, key.2.clone());
        let namespace = self.owners.insert(&key, id);
        self.job_namespaces.insert(id, namespace);
        let entry = self.entry(id);
        // Running on a later retry than the one preempted, or whose pod lost its node: it came
        // back.
        let back = |retry: i32| observation.phase == "Running" && observation.retry_count > retry;
        if entry
            .observed
            .preempted
            .as_ref()
            .is_some_and(|p| back(p.retry))
        {
            entry.observed.preempted = None;
        }
        if entry
            .observed
            .lost_node
            .as_ref()
            .is_some_and(|l| back(l.retry))
        {
            entry.observed.lost_node = None;
        }
        entry.observed.job = Some(observation);
        if let Some(uid) = job.metadata.uid.clone() {
            entry.own_job(uid);
            entry.release_held();
        }
        Some(id)
    }

    pub fn delete_job(&mut self, job: &Job) -> Option<Uuid> {
        self.unsigned.remove(&(job.namespace()?, job.name_any()));
        self.forget(&(ObjectKind::Job, job.namespace()?, job.name_any()))
    }

    pub fn apply_pod_group(&mut self, pg: &PodGroup) -> Option<Uuid> {
        let id = workload_id(pg.labels())?;
        let key = (ObjectKind::PodGroup, pg.namespace()?, pg.name_any());
        self.note_listed(&key);
        let observation = observe::pod_group(pg, key.2.clone());
        self.owners.insert(&key, id);
        let controller = observe::controller_uid(&pg.metadata).unwrap_or_default();
        let entry = self.entry(id);
        if entry.owned_jobs.contains(&controller) {
            entry.observed.pod_group = Some(observation);
        } else {
            entry.held_pod_group = Some(Box::new((controller, observation)));
        }
        Some(id)
    }

    pub fn delete_pod_group(&mut self, pg: &PodGroup) -> Option<Uuid> {
        self.forget(&(ObjectKind::PodGroup, pg.namespace()?, pg.name_any()))
    }

    pub fn apply_pod(&mut self, pod: &Pod) -> Option<Uuid> {
        let id = workload_id(pod.labels())?;
        let key = (ObjectKind::Pod, pod.namespace()?, pod.name_any());
        self.note_listed(&key);
        let info = observe::pod(pod, key.2.clone());
        self.owners.insert(&key, id);
        let controller = observe::controller_uid(&pod.metadata).unwrap_or_default();
        let entry = self.entry(id);
        if entry.owned_jobs.contains(&controller) {
            if let Some((at, message)) = evicted_by_scheduler(pod) {
                let retry = job_retry(pod, entry);
                let episode = format!("{controller}/{retry}");
                if entry
                    .observed
                    .preempted
                    .as_ref()
                    .is_none_or(|p| p.episode != episode)
                {
                    entry.observed.preempted = Some(Box::new(Preempted {
                        at,
                        message,
                        retry,
                        episode,
                    }));
                }
            }
            if let Some((loss, message)) = node_loss::lost_node(pod) {
                let retry = job_retry(pod, entry);
                entry.observed.lost_node = Some(Box::new(LostNode {
                    pod: key.2.clone(),
                    node: pod.spec.as_ref().and_then(|s| s.node_name.clone()),
                    loss,
                    message,
                    retry,
                }));
            }
            entry.observed.pods.insert(info);
        } else {
            entry.hold_pod(controller, info);
        }
        Some(id)
    }

    pub fn delete_pod(&mut self, pod: &Pod) -> Option<Uuid> {
        self.forget(&(ObjectKind::Pod, pod.namespace()?, pod.name_any()))
    }

    /// Records an event about a tracked object; events about anything else are ignored.
    pub fn apply_event(&mut self, event: &Event) -> Option<Uuid> {
        let object = &event.involved_object;
        let kind = match object.kind.as_deref()? {
            "Job" => ObjectKind::Job,
            "PodGroup" => ObjectKind::PodGroup,
            "Pod" => ObjectKind::Pod,
            _ => return None,
        };
        let key = (kind, object.namespace.clone()?, object.name.clone()?);
        let id = self.owners.get(&key)?;
        let at = event
            .last_timestamp
            .as_ref()
            .map(|t| t.0.to_string())
            .or_else(|| event.event_time.as_ref().map(|t| t.0.to_string()));
        let info = EventInfo {
            at,
            kind: EventType::parse(event.type_.as_deref()),
            reason: event.reason.clone().unwrap_or_default(),
            message: event.message.clone().unwrap_or_default(),
            object: format!("{}/{}", object.kind.as_deref().unwrap_or_default(), key.2),
            count: event.count.unwrap_or(1),
        };
        self.entry(id).record_event(info);
        Some(id)
    }

    /// GPUs that Tephra's pods hold on each node: bound, neither finished nor failed; with a
    /// `namespace`, only the pods of the Jobs in it (one project's).
    pub fn gpus_by_node(&self, namespace: Option<&str>) -> std::collections::BTreeMap<String, f64> {
        let mut by_node = std::collections::BTreeMap::new();
        let pods = self
            .entries
            .iter()
            .filter(|(id, _)| {
                namespace.is_none_or(|ns| self.job_namespaces.get(*id).is_some_and(|n| &**n == ns))
            })
            .flat_map(|(_, e)| e.observed.pods.iter());
        for pod in pods.filter(|p| matches!(p.phase.as_str(), "Pending" | "Running")) {
            if let Some(node) = &pod.node {
                *by_node.entry(node.clone()).or_insert(0.0) += f64::from(pod.gpus);
            }
        }
        by_node
    }

    /// Forgets a workload entirely (it was deleted and everything of it is gone).
    pub fn remove(&mut self, id: Uuid) {
        self.entries.remove(&id);
        self.job_namespaces.remove(&id);
        self.owners.forget_workload(id);
    }
}

#[cfg(test)]
mod tests;

/// The retry of the Job that made `pod`: its own annotation first, as the Job's status may
/// already count the restart the pod's end caused.
fn job_retry(pod: &Pod, entry: &Entry) -> i32 {
    pod.annotations()
        .get("volcano.sh/job-retry-count")
        .and_then(|r| r.parse().ok())
        .or_else(|| entry.observed.job.as_ref().map(|j| j.retry_count))
        .unwrap_or_default()
}
