//! What the watchers have seen, by workload: the Job, the PodGroup, the pods and recent events.
//! Fed by watch events (including the re-lists after a reconnect), read by the reconciler to
//! decide what to create or delete and by the tracker to derive each workload's status.

use crate::domain::labels::WORKLOAD_ID;
use crate::domain::status::{JobObservation, Observed, PodGroupObservation};
use crate::domain::volcano::Job;
use app::model::workload::{EventInfo, PodInfo};
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::ResourceExt;
use std::collections::{HashMap, HashSet, VecDeque};
use uuid::Uuid;

use super::objects::PodGroup;

/// How many events a workload keeps (newest last).
const EVENTS_KEPT: usize = 20;

/// The kinds of object the index tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Job,
    PodGroup,
    Pod,
}

type Key = (Kind, String, String);

/// One workload's objects.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    pub observed: Observed,
    pub events: VecDeque<EventInfo>,
}

#[derive(Debug, Default)]
pub struct Index {
    entries: HashMap<Uuid, Entry>,
    /// (kind, namespace, name) of every tracked object to its workload, for deletes and events.
    owners: HashMap<Key, Uuid>,
    /// Namespaces of the Jobs by workload (Jobs may belong to another installation's rows).
    job_namespaces: HashMap<Uuid, String>,
    /// Objects listed since the last `Init` of each kind, to drop what vanished while the watch
    /// was down.
    relisting: HashMap<Kind, HashSet<Key>>,
}

/// The workload id on an object's labels.
pub fn workload_id(labels: &std::collections::BTreeMap<String, String>) -> Option<Uuid> {
    labels.get(WORKLOAD_ID).and_then(|v| v.parse().ok())
}

impl Index {
    pub fn observed(&self, id: Uuid) -> Option<&Entry> {
        self.entries.get(&id)
    }

    /// Every workload with a Job, with the Job's namespace.
    pub fn jobs(&self) -> impl Iterator<Item = (Uuid, &str)> {
        self.job_namespaces
            .iter()
            .map(|(id, ns)| (*id, ns.as_str()))
    }

    /// Starts a re-list of `kind`: objects not listed again before [`Self::relisted`] are gone.
    pub fn relist_started(&mut self, kind: Kind) {
        self.relisting.insert(kind, HashSet::new());
    }

    /// Ends a re-list: forgets objects of `kind` that were not listed again. Returns the
    /// workloads that changed.
    pub fn relisted(&mut self, kind: Kind) -> Vec<Uuid> {
        let Some(seen) = self.relisting.remove(&kind) else {
            return Vec::new();
        };
        let stale: Vec<Key> = self
            .owners
            .keys()
            .filter(|key| key.0 == kind && !seen.contains(*key))
            .cloned()
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
            Kind::Job => {
                if entry.observed.job.as_ref().is_some_and(|j| j.name == key.2) {
                    entry.observed.job = None;
                    self.job_namespaces.remove(&id);
                }
            }
            Kind::PodGroup => {
                if entry
                    .observed
                    .pod_group
                    .as_ref()
                    .is_some_and(|pg| pg.name == key.2)
                {
                    entry.observed.pod_group = None;
                }
            }
            Kind::Pod => {
                entry.observed.pods.remove(&key.2);
            }
        }
        Some(id)
    }

    pub fn apply_job(&mut self, job: &Job) -> Option<Uuid> {
        let id = workload_id(job.labels())?;
        let key = (Kind::Job, job.namespace()?, job.name_any());
        self.note_listed(&key);
        let status = job.status.clone().unwrap_or_default();
        let observation = JobObservation {
            name: key.2.clone(),
            phase: status.state.phase,
            message: status.state.message.filter(|m| !m.is_empty()),
            retry_count: status.retry_count,
            min_available: job.spec.min_available.unwrap_or_default(),
            deleting: job.metadata.deletion_timestamp.is_some(),
        };
        self.job_namespaces.insert(id, key.1.clone());
        self.owners.insert(key, id);
        self.entry(id).observed.job = Some(observation);
        Some(id)
    }

    pub fn delete_job(&mut self, job: &Job) -> Option<Uuid> {
        self.forget(&(Kind::Job, job.namespace()?, job.name_any()))
    }

    pub fn apply_pod_group(&mut self, pg: &PodGroup) -> Option<Uuid> {
        let id = workload_id(pg.labels())?;
        let key = (Kind::PodGroup, pg.namespace()?, pg.name_any());
        self.note_listed(&key);
        let status = pg.status.clone().unwrap_or_default();
        let unschedulable = status
            .conditions
            .iter()
            .rev()
            .find(|c| c.type_ == "Unschedulable" && c.status == "True")
            .and_then(|c| c.message.clone());
        let observation = PodGroupObservation {
            name: key.2.clone(),
            phase: status.phase,
            min_member: pg.spec.min_member,
            queue: pg.spec.queue.clone(),
            min_resources: pg
                .spec
                .min_resources
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.0.clone()))
                .collect(),
            unschedulable,
        };
        self.owners.insert(key, id);
        self.entry(id).observed.pod_group = Some(observation);
        Some(id)
    }

    pub fn delete_pod_group(&mut self, pg: &PodGroup) -> Option<Uuid> {
        self.forget(&(Kind::PodGroup, pg.namespace()?, pg.name_any()))
    }

    pub fn apply_pod(&mut self, pod: &Pod) -> Option<Uuid> {
        let id = workload_id(pod.labels())?;
        let key = (Kind::Pod, pod.namespace()?, pod.name_any());
        self.note_listed(&key);
        let status = pod.status.as_ref();
        let info = PodInfo {
            name: key.2.clone(),
            task: pod
                .labels()
                .get("volcano.sh/task-spec")
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
        };
        self.owners.insert(key.clone(), id);
        self.entry(id).observed.pods.insert(key.2, info);
        Some(id)
    }

    pub fn delete_pod(&mut self, pod: &Pod) -> Option<Uuid> {
        self.forget(&(Kind::Pod, pod.namespace()?, pod.name_any()))
    }

    /// Records an event about a tracked object; events about anything else are ignored.
    pub fn apply_event(&mut self, event: &Event) -> Option<Uuid> {
        let object = &event.involved_object;
        let kind = match object.kind.as_deref()? {
            "Job" => Kind::Job,
            "PodGroup" => Kind::PodGroup,
            "Pod" => Kind::Pod,
            _ => return None,
        };
        let key = (kind, object.namespace.clone()?, object.name.clone()?);
        let id = *self.owners.get(&key)?;
        let at = event
            .last_timestamp
            .as_ref()
            .map(|t| t.0.to_string())
            .or_else(|| event.event_time.as_ref().map(|t| t.0.to_string()));
        let info = EventInfo {
            at,
            kind: event.type_.clone().unwrap_or_else(|| "Normal".into()),
            reason: event.reason.clone().unwrap_or_default(),
            message: event.message.clone().unwrap_or_default(),
            object: format!("{}/{}", object.kind.as_deref().unwrap_or_default(), key.2),
            count: event.count.unwrap_or(1),
        };
        let events = &mut self.entry(id).events;
        // A repeated event (same object and reason) replaces its older copy.
        events.retain(|e| !(e.object == info.object && e.reason == info.reason));
        events.push_back(info);
        while events.len() > EVENTS_KEPT {
            events.pop_front();
        }
        Some(id)
    }

    /// Forgets a workload entirely (it was deleted and everything of it is gone).
    pub fn remove(&mut self, id: Uuid) {
        self.entries.remove(&id);
        self.job_namespaces.remove(&id);
        self.owners.retain(|_, owner| *owner != id);
    }
}
