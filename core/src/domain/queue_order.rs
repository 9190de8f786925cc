//! The order in which Volcano considers waiting gangs, and each one's place in it: in its
//! project's queue, and among every gang that may use one of its node pools.
//!
//! Tephra models the plugins its scheduler configuration enables (testbed/README.md, and
//! docs/MAPPING.md "Queue position"):
//! - `capacity` orders the queues: the one with the lowest share (allocated over deserved)
//!   goes first, and after each gang it places the share is taken again, so queues take turns;
//!   a best-effort queue (no quota) has share 0, and goes after queues with a quota at equal
//!   shares.
//! - `priority` orders the gangs of one queue by their PriorityClass, highest first.
//! - `gang` puts gangs that are not yet ready first; every waiting gang is not ready.
//! - `drf` orders gangs by their dominant share; a waiting gang holds nothing, so all tie.
//! - Volcano breaks the remaining ties by creation time, then by id.
//!
//! A position is the order of consideration, not a promise: a gang that does not fit the free
//! capacity is passed over in a cycle and the next one may start first.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

/// A gang waiting to start, as ordering needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting<'a> {
    pub id: &'a str,
    /// Its project's queue.
    pub queue: &'a str,
    /// The node pools it may use; empty for any.
    pub pools: &'a [String],
    /// Its priority class's rank ([`priority_rank`]).
    pub priority: i32,
    /// When it was created, in milliseconds since the epoch.
    pub created_ms: i64,
    pub gpus: f64,
}

/// What a queue holds now and what it deserves, in GPUs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QueueShare {
    pub allocated: f64,
    /// `None` or zero when the project has no GPU quota.
    pub deserved: Option<f64>,
}

impl QueueShare {
    /// Volcano's share: allocated over deserved, over the resources the queue deserves; a
    /// queue that deserves nothing (best effort) has none to measure, so its share stays 0.
    fn share(self) -> f64 {
        match self.deserved {
            Some(deserved) if deserved > 0.0 => self.allocated / deserved,
            _ => 0.0,
        }
    }

    fn deserves(self) -> bool {
        self.deserved.is_some_and(|d| d > 0.0)
    }
}

/// The rank of a Run:ai priority class, as the default profile's PriorityClasses order them
/// (`tephra-inference` 10000, `tephra-build` 8000, `tephra-interactive-preemptible` 5000,
/// `tephra-train` 1000); a class Tephra does not know ranks lowest.
pub fn priority_rank(class: &str) -> i32 {
    match class {
        "inference" => 4,
        "build" => 3,
        "interactive-preemptible" => 2,
        "train" => 1,
        _ => 0,
    }
}

/// Where one waiting gang stands; positions count from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub in_queue: u32,
    pub queue_waiting: u32,
    pub in_pools: u32,
    pub pools_waiting: u32,
}

/// The order of consideration: indices into `waiting`, first first.
pub fn order(waiting: &[Waiting<'_>], shares: &BTreeMap<&str, QueueShare>) -> Vec<usize> {
    let mut queues: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, w) in waiting.iter().enumerate() {
        queues.entry(w.queue).or_default().push(i);
    }
    for gangs in queues.values_mut() {
        gangs.sort_by(|&a, &b| within_queue(&waiting[a], &waiting[b]));
        // Popped from the back.
        gangs.reverse();
    }
    let mut turns: BinaryHeap<Turn<'_>> = queues
        .keys()
        .map(|&queue| Turn {
            queue,
            share: shares.get(queue).copied().unwrap_or_default(),
        })
        .collect();
    let mut order = Vec::with_capacity(waiting.len());
    while let Some(mut turn) = turns.pop() {
        let Some(next) = queues.get_mut(turn.queue).and_then(Vec::pop) else {
            continue;
        };
        order.push(next);
        turn.share.allocated += waiting[next].gpus;
        turns.push(turn);
    }
    order
}

/// Within one queue: higher priority first, then older, then by id.
fn within_queue(a: &Waiting<'_>, b: &Waiting<'_>) -> Ordering {
    b.priority
        .cmp(&a.priority)
        .then(a.created_ms.cmp(&b.created_ms))
        .then(a.id.cmp(b.id))
}

/// A queue's turn: the lowest share pops first (a max-heap, so reversed); at equal shares a
/// queue with a quota goes before a best-effort one (as `capacity` does), then by name.
#[derive(Debug)]
struct Turn<'a> {
    queue: &'a str,
    share: QueueShare,
}

impl Ord for Turn<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .share
            .share()
            .total_cmp(&self.share.share())
            .then_with(|| self.share.deserves().cmp(&other.share.deserves()))
            .then_with(|| other.queue.cmp(self.queue))
    }
}

impl PartialOrd for Turn<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Turn<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Turn<'_> {}

/// Whether two gangs compete for a node: either may use any pool, or they share one.
pub fn overlap(a: &[String], b: &[String]) -> bool {
    a.is_empty() || b.is_empty() || a.iter().any(|pool| b.contains(pool))
}

/// Each gang's place, indexed as `waiting`, given the `order` of consideration.
pub fn places(waiting: &[Waiting<'_>], order: &[usize]) -> Vec<Place> {
    let mut places = vec![
        Place {
            in_queue: 0,
            queue_waiting: 0,
            in_pools: 0,
            pools_waiting: 0
        };
        waiting.len()
    ];
    let mut per_queue: BTreeMap<&str, u32> = BTreeMap::new();
    // Gangs seen so far, counted by the set of pools they may use: few distinct sets, so each
    // gang's count of those ahead that compete with it is a short sum.
    let mut per_pools: Vec<(&[String], u32)> = Vec::new();
    for &i in order {
        let w = &waiting[i];
        let seen = per_queue.entry(w.queue).or_default();
        *seen += 1;
        places[i].in_queue = *seen;
        let ahead: u32 = per_pools
            .iter()
            .filter(|(pools, _)| overlap(pools, w.pools))
            .map(|(_, n)| n)
            .sum();
        places[i].in_pools = ahead + 1;
        match per_pools.iter_mut().find(|(pools, _)| *pools == w.pools) {
            Some((_, n)) => *n += 1,
            None => per_pools.push((w.pools, 1)),
        }
    }
    let totals: Vec<(&[String], u32)> = per_pools;
    for (i, w) in waiting.iter().enumerate() {
        places[i].queue_waiting = per_queue.get(w.queue).copied().unwrap_or_default();
        places[i].pools_waiting = totals
            .iter()
            .filter(|(pools, _)| overlap(pools, w.pools))
            .map(|(_, n)| n)
            .sum();
    }
    places
}

#[cfg(test)]
#[path = "queue_order_tests.rs"]
mod tests;
