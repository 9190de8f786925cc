//! When each touched workload's status is derived and published: at once if that workload has
//! been quiet, otherwise once its interval since the last publish has passed.
//!
//! The pace is per workload, and only a publish that wrote something starts it. A global pace (everything pending flushed together at most every
//! interval) made one training's pod change wait behind an unrelated training's flush: with a
//! hundred trainings live, a change reached the page 225 ms late instead of 5 ms.
//! Pure: the caller passes the time, so the tests need no clock.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;
use tokio::time::Instant;
use uuid::Uuid;

/// Touched workloads waiting for their turn, and when each was last published.
#[derive(Debug)]
pub struct Pacer {
    every: Duration,
    pending: BTreeSet<Uuid>,
    last: HashMap<Uuid, Instant>,
}

impl Pacer {
    pub fn new(every: Duration) -> Self {
        Self {
            every,
            pending: BTreeSet::new(),
            last: HashMap::new(),
        }
    }

    /// Records that these workloads changed.
    pub fn touch(&mut self, ids: impl IntoIterator<Item = Uuid>) {
        self.pending.extend(ids);
    }

    /// The pending workloads whose turn has come at `now`. Only those the caller then reports
    /// as [`Self::wrote`] wait out the interval: a change that turned out to change nothing
    /// (an annotation on a pod, say) must not hold back the change that follows it.
    pub fn due(&mut self, now: Instant) -> Vec<Uuid> {
        // Entries older than the interval no longer hold anything back; dropping them keeps the
        // map the size of the recently active workloads, not of every workload ever seen.
        let every = self.every;
        self.last.retain(|_, at| now.duration_since(*at) < every);
        let due: Vec<Uuid> = self
            .pending
            .iter()
            .filter(|id| !self.last.contains_key(id))
            .copied()
            .collect();
        for id in &due {
            self.pending.remove(id);
        }
        due
    }

    /// Records that a workload's status was written and broadcast at `now`.
    pub fn wrote(&mut self, id: Uuid, now: Instant) {
        self.last.insert(id, now);
    }

    /// When the next pending workload's turn comes (`now` for one never published); `None`
    /// when nothing waits.
    pub fn next_due(&self, now: Instant) -> Option<Instant> {
        self.pending
            .iter()
            .map(|id| self.last.get(id).map_or(now, |at| *at + self.every))
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY: Duration = Duration::from_millis(250);

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    /// `due`, with every workload it returns written.
    fn publish(pacer: &mut Pacer, now: Instant) -> Vec<Uuid> {
        let due = pacer.due(now);
        for id in &due {
            pacer.wrote(*id, now);
        }
        due
    }

    #[test]
    fn a_quiet_workload_goes_out_at_once() {
        let mut pacer = Pacer::new(EVERY);
        let t0 = Instant::now();
        pacer.touch([id(1)]);
        assert_eq!(publish(&mut pacer, t0), vec![id(1)]);
        assert_eq!(pacer.next_due(t0), None);
    }

    #[test]
    fn another_workloads_publish_does_not_hold_one_back() {
        let mut pacer = Pacer::new(EVERY);
        let t0 = Instant::now();
        pacer.touch([id(1)]);
        assert_eq!(publish(&mut pacer, t0), vec![id(1)]);
        pacer.touch([id(2)]);
        assert_eq!(
            publish(&mut pacer, t0 + Duration::from_millis(10)),
            vec![id(2)]
        );
    }

    #[test]
    fn a_change_that_changed_nothing_holds_nothing_back() {
        let mut pacer = Pacer::new(EVERY);
        let t0 = Instant::now();
        pacer.touch([id(1)]);
        assert_eq!(
            pacer.due(t0),
            vec![id(1)],
            "derived, found unchanged, not written"
        );
        pacer.touch([id(1)]);
        assert_eq!(pacer.due(t0 + Duration::from_millis(17)), vec![id(1)]);
    }

    #[test]
    fn a_busy_workload_waits_for_its_interval() {
        let mut pacer = Pacer::new(EVERY);
        let t0 = Instant::now();
        pacer.touch([id(1)]);
        publish(&mut pacer, t0);
        pacer.touch([id(1)]);
        assert!(pacer.due(t0 + Duration::from_millis(100)).is_empty());
        assert_eq!(pacer.next_due(t0), Some(t0 + EVERY));
        assert_eq!(publish(&mut pacer, t0 + EVERY), vec![id(1)]);
    }

    #[test]
    fn repeated_touches_publish_once() {
        let mut pacer = Pacer::new(EVERY);
        let t0 = Instant::now();
        pacer.touch([id(1), id(1), id(2)]);
        pacer.touch([id(1)]);
        assert_eq!(publish(&mut pacer, t0), vec![id(1), id(2)]);
        assert!(publish(&mut pacer, t0).is_empty());
    }

    #[test]
    fn old_entries_are_forgotten() {
        let mut pacer = Pacer::new(EVERY);
        let t0 = Instant::now();
        pacer.touch((0..100).map(id));
        publish(&mut pacer, t0);
        pacer.due(t0 + EVERY);
        assert!(pacer.last.is_empty());
    }
}
