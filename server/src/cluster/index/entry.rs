//! One workload's objects as the index holds them: what was observed, its recent events, and
//! what waits for its Job's signature to verify.

use std::collections::VecDeque;
use tephra_core::domain::status::{Observed, PodGroupObservation};
use tephra_core::model::workload::{EventInfo, PodInfo};

/// How many events a workload keeps (newest last).
const EVENTS_KEPT: usize = 20;

/// One workload's objects. The index holds one per workload in the cluster, so what is rare
/// is boxed or kept in a list sized to what it holds.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    pub observed: Observed,
    pub events: VecDeque<EventInfo>,
    /// Uids of every Job of this workload whose signature verified (old ones included, since
    /// their pods may outlive them). Usually one.
    pub(super) owned_jobs: Vec<String>,
    /// Pods and PodGroups whose controlling Job has not been verified yet, with that Job's uid.
    pub(super) held_pods: Vec<(String, PodInfo)>,
    pub(super) held_pod_group: Option<Box<(String, PodGroupObservation)>>,
}

impl Entry {
    /// Moves what was held for a Job that has now been verified into what is observed.
    pub(super) fn release_held(&mut self) {
        let owned = &self.owned_jobs;
        let (ready, held): (Vec<_>, Vec<_>) = self
            .held_pods
            .drain(..)
            .partition(|(uid, _)| owned.contains(uid));
        self.held_pods = held;
        for (_, info) in ready {
            self.observed.pods.insert(info);
        }
        if self
            .held_pod_group
            .as_ref()
            .is_some_and(|held| owned.contains(&held.0))
        {
            self.observed.pod_group = self.held_pod_group.take().map(|held| held.1);
        }
    }

    pub(super) fn own_job(&mut self, uid: String) {
        if !self.owned_jobs.contains(&uid) {
            self.owned_jobs.reserve_exact(1);
            self.owned_jobs.push(uid);
        }
    }

    pub(super) fn hold_pod(&mut self, controller: String, info: PodInfo) {
        self.held_pods.retain(|(_, held)| held.name != info.name);
        self.held_pods.push((controller, info));
    }

    /// Keeps `info`, replacing an older copy of the same event (same object and reason), and
    /// the newest [`EVENTS_KEPT`].
    pub(super) fn record_event(&mut self, info: EventInfo) {
        let events = &mut self.events;
        events.retain(|e| !(e.object == info.object && e.reason == info.reason));
        if events.len() == EVENTS_KEPT {
            events.pop_front();
        }
        // One at a time: most workloads see a handful of events, and room for four more
        // would be held for each of them.
        events.reserve_exact(1);
        events.push_back(info);
    }
}
