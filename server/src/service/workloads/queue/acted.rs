//! The actions taken on this replica that the kept order of the waiting workloads may be
//! behind on (`shared`): a reader brings the order up to date with them.

use uuid::Uuid;

/// How many actions an order may be behind on and still be patched rather than computed again.
/// Past it (many actions while nobody reads) the actions are let go and the order with them.
pub(super) const ACTED_KEPT: usize = 256;

/// The actions taken here: how many, and the workload of each one an order may still be behind
/// on, numbered.
#[derive(Default)]
pub(super) struct Acted {
    /// How many actions were taken.
    pub(super) count: u64,
    /// Every action numbered above this is in `ids`.
    floor: u64,
    ids: Vec<(u64, Uuid)>,
}

impl Acted {
    /// An action on `id`, taken after its write committed.
    pub(super) fn record(&mut self, id: Uuid) {
        self.count += 1;
        self.ids.push((self.count, id));
        if self.ids.len() > ACTED_KEPT {
            self.ids.clear();
            self.floor = self.count;
        }
    }

    /// Lets go of the actions an order holding the first `held` holds; an order older than
    /// that is computed again.
    pub(super) fn held(&mut self, held: u64) {
        self.ids.retain(|(n, _)| *n > held);
        self.floor = self.floor.max(held);
    }

    /// The count now and the workloads acted on after the `since`-th action, each once; `None`
    /// when some of them were let go.
    pub(super) fn since(&self, since: u64) -> Option<(u64, Vec<Uuid>)> {
        if since < self.floor {
            return None;
        }
        let mut ids: Vec<Uuid> = self
            .ids
            .iter()
            .filter(|(n, _)| *n > since)
            .map(|(_, id)| *id)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        Some((self.count, ids))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_behind_on_more_actions_than_are_kept_is_computed_again() {
        let mut acted = Acted::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        acted.record(a);
        acted.record(b);
        acted.record(a);
        assert_eq!(acted.since(0), Some((3, sorted(vec![a, b]))));
        assert_eq!(acted.since(2), Some((3, vec![a])));
        for _ in 0..ACTED_KEPT {
            acted.record(b);
        }
        assert_eq!(acted.since(3), None, "those actions were let go");
        let count = acted.count;
        acted.record(a);
        assert_eq!(acted.since(count), Some((count + 1, vec![a])));

        acted.record(b);
        acted.held(count + 1);
        assert_eq!(acted.since(count + 1), Some((count + 2, vec![b])));
        assert_eq!(acted.since(count), None, "an order older than the one kept");
    }

    fn sorted(mut ids: Vec<Uuid>) -> Vec<Uuid> {
        ids.sort_unstable();
        ids
    }
}
