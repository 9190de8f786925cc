//! When a waiting gang can start, from what Tephra knows: the GPUs of the node pools it may use
//! and its project's limit (each a [`Level`] it must fit under), the running workloads that hold
//! them with their time limits, the gangs considered before it (`crate::domain::queue_order`),
//! and what Volcano's reclaim takes back for a gang within its project's quota.
//!
//! Each level is played forward: the gangs ahead start, in order, whenever they fit (Volcano
//! passes over a gang that does not fit and tries the next, so a smaller one may start first);
//! the running ones end at their time limits. The gang starts once it fits under every level.
//! The range runs from that start with the gangs ahead taking nothing to that start with all of
//! them first. It holds only if nothing new arrives ahead of it and the nodes stay; a workload
//! that ends early only makes it sooner. A workload without a time limit can run for ever, so
//! where one is in the way no end can be told, and the estimate says what would help instead.

use crate::model::eta::{EtaBound, StartEstimate};
use crate::model::waits::duration;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

const EPSILON: f64 = 1e-9;

/// A running workload in the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Holder {
    pub name: String,
    pub gpus: f64,
    /// Seconds until its time limit stops it; `None` when it has none.
    pub ends_in: Option<f64>,
}

/// A waiting gang considered before it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ahead {
    pub gpus: f64,
    /// Its time limit in seconds, if it sets one.
    pub runs_for: Option<f64>,
}

/// What a level bounds.
#[derive(Debug, Clone, PartialEq)]
pub enum LevelKind {
    /// The node pools it may use (their names; empty for every pool).
    Pools(Vec<String>),
    /// Its project's GPU limit (its queue's capability).
    ProjectLimit(String),
}

/// One bound the gang must fit under, with what holds it now.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub kind: LevelKind,
    pub capacity: f64,
    pub holders: Vec<Holder>,
    pub ahead: Vec<Ahead>,
    /// GPUs Volcano's reclaim frees for it at once: what other projects borrow beyond their
    /// quotas, when it is within its own project's quota.
    pub reclaimable: f64,
}

/// The gang's shape: its GPUs in all, how many pods ask them, and what each asks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Asked {
    pub gpus: f64,
    pub pods: u32,
    pub per_pod: f64,
    /// The most GPUs one node of its pools has, if the nodes are known.
    pub largest_node: Option<f64>,
    /// How many of its pods the schedulable nodes of its pools could hold at once: when empty,
    /// and with the GPUs free on each now (`None` when its pods ask no GPUs).
    pub node_room: Option<NodeRoom>,
}

/// How many pods of its size fit on the nodes of its pools, one node at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRoom {
    pub empty: u32,
    pub now: u32,
}

/// A node pool it does not list, with its free GPUs.
#[derive(Debug, Clone, PartialEq)]
pub struct Elsewhere {
    pub pool: String,
    pub free: f64,
}

/// An end still to come, the soonest first in a [`BinaryHeap`]: seconds from now, the GPUs it
/// frees, and the holder's index (none for a gang ahead that started).
struct End(f64, f64, Option<usize>);

impl PartialEq for End {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}
impl Eq for End {}
impl PartialOrd for End {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for End {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0)
    }
}

/// When the gang starts under one level: seconds from now, or `None` when something in its way
/// has no end; with the holders whose ends it waited for.
fn play(level: &Level, gpus: f64, with_ahead: bool) -> (Option<f64>, Vec<usize>) {
    let held: f64 = level.holders.iter().map(|h| h.gpus).sum();
    let mut free = level.capacity + level.reclaimable - held;
    let mut ends: BinaryHeap<End> = level
        .holders
        .iter()
        .enumerate()
        .filter_map(|(i, h)| h.ends_in.map(|end| End(end.max(0.0), h.gpus, Some(i))))
        .collect();
    // A gang that asks no GPUs takes none of the room.
    let mut queue: VecDeque<Ahead> = level
        .ahead
        .iter()
        .filter(|gang| with_ahead && gang.gpus > EPSILON)
        .copied()
        .collect();
    // No gang ahead asks less, so a scan stops once the room is smaller: thousands wait behind
    // one that does not fit, and each end frees room for a few.
    let smallest = queue.iter().map(|g| g.gpus).fold(f64::INFINITY, f64::min);
    let mut waited = Vec::new();
    let mut now = 0.0;
    loop {
        let mut i = 0;
        while i < queue.len() && free + EPSILON >= smallest {
            if queue[i].gpus <= free + EPSILON {
                let Some(gang) = queue.remove(i) else { break };
                free -= gang.gpus;
                if let Some(runs) = gang.runs_for {
                    ends.push(End(now + runs, gang.gpus, None));
                }
            } else {
                i += 1;
            }
        }
        if gpus <= free + EPSILON {
            return (Some(now), waited);
        }
        let Some(End(at, freed, holder)) = ends.pop() else {
            return (None, waited);
        };
        now = at.max(now);
        free += freed;
        waited.extend(holder);
    }
}

/// Why it can never start under `level`, if so.
fn never(asked: &Asked, level: &Level) -> Option<String> {
    if asked.gpus <= level.capacity + EPSILON {
        return None;
    }
    let asks = gpus_word(asked.gpus);
    Some(match &level.kind {
        LevelKind::Pools(pools) if pools.is_empty() => {
            format!(
                "it asks {asks} and the cluster's schedulable nodes have {}",
                level.capacity
            )
        }
        LevelKind::Pools(pools) => format!(
            "it asks {asks} and its node pools ({}) have {}: a pool it names may no longer \
             exist, or its nodes are cordoned",
            pools.join(", "),
            level.capacity
        ),
        LevelKind::ProjectLimit(project) => format!(
            "it asks {asks}, beyond project {project:?}'s limit of {}",
            level.capacity
        ),
    })
}

fn gpus_word(gpus: f64) -> String {
    let n = if gpus.fract() == 0.0 {
        format!("{gpus:.0}")
    } else {
        format!("{gpus}")
    };
    format!("{n} GPU{}", if gpus == 1.0 { "" } else { "s" })
}

fn never_estimate(why: String, sooner: Vec<String>) -> StartEstimate {
    StartEstimate {
        bound: EtaBound::Never,
        earliest_seconds: None,
        latest_seconds: None,
        earliest: None,
        latest: None,
        summary: format!("it can never start as asked: {why}"),
        rests_on: Vec::new(),
        sooner,
    }
}

/// Why the gang can never start on its pools' nodes, if so: a pod larger than every node, or more
/// pods than the nodes hold at once; with what would fit.
fn never_on_nodes(asked: &Asked) -> Option<StartEstimate> {
    if let Some(largest) = asked.largest_node.filter(|l| asked.per_pod > l + EPSILON) {
        return Some(never_estimate(
            format!(
                "each pod asks {} and the largest node in its pools has {}",
                gpus_word(asked.per_pod),
                largest
            ),
            vec![format!(
                "pods of at most {} fit its largest node: fewer GPUs a pod, and more workers \
                 for the same total",
                gpus_word(largest)
            )],
        ));
    }
    if let Some(room) = asked.node_room.filter(|room| room.empty < asked.pods) {
        let fewer = (room.empty >= 1).then(|| {
            format!(
                "its nodes hold {} pods of {} at once: with {} pods instead of {} (fewer \
                 workers) it can start",
                room.empty,
                gpus_word(asked.per_pod),
                room.empty,
                asked.pods
            )
        });
        return Some(never_estimate(
            format!(
                "its {} pods of {} each need a node's room apiece, and the nodes of its pools \
                 hold at most {} such pods at once",
                asked.pods,
                gpus_word(asked.per_pod),
                room.empty
            ),
            fewer.into_iter().collect(),
        ));
    }
    None
}

/// When the gang `asked` starts under every one of `levels`, and what would make it sooner;
/// `elsewhere` are the pools it does not list.
pub fn estimate(asked: &Asked, levels: &[Level], elsewhere: &[Elsewhere]) -> StartEstimate {
    if let Some(never) = never_on_nodes(asked) {
        return never;
    }
    if let Some(why) = levels.iter().find_map(|level| never(asked, level)) {
        return never_estimate(why, Vec::new());
    }
    let mut earliest = Some(0.0_f64);
    let mut latest = Some(0.0_f64);
    let mut rests_on = Vec::new();
    for level in levels {
        let (first, _) = play(level, asked.gpus, false);
        let (last, waited) = play(level, asked.gpus, true);
        earliest = earliest.zip(first).map(|(a, b)| a.max(b));
        latest = latest.zip(last).map(|(a, b)| a.max(b));
        rests_on.extend(grounds(level, &waited, last));
    }
    let sooner = sooner(asked, levels, elsewhere);
    let spread = asked.node_room.filter(|room| room.now < asked.pods);
    let (bound, summary) = match (earliest, latest) {
        (Some(_), Some(last)) if last <= EPSILON && spread.is_some() => (
            EtaBound::Unbounded,
            format!(
                "its start cannot be bounded: enough GPUs are free in all, but spread over the \
                 nodes, so only {} of its {} pods fit now; it starts when running pods free \
                 whole nodes",
                spread.map_or(0, |room| room.now),
                asked.pods
            ),
        ),
        (Some(_), Some(last)) if last <= EPSILON => (
            EtaBound::Now,
            "there is room for it now: the scheduler places it within a cycle or two".to_owned(),
        ),
        (Some(first), Some(last)) => (EtaBound::Within, within(first, last)),
        _ => (EtaBound::Unbounded, unbounded(levels, asked.gpus)),
    };
    let seconds = |s: Option<f64>| {
        s.filter(|_| bound == EtaBound::Within)
            .map(|s| s.ceil() as u64)
    };
    StartEstimate {
        bound,
        earliest_seconds: seconds(earliest),
        latest_seconds: seconds(latest),
        earliest: None,
        latest: None,
        summary,
        rests_on,
        sooner,
    }
}

fn within(first: f64, last: f64) -> String {
    let first = first.ceil() as u64;
    let last = last.ceil() as u64;
    let words = if first == last {
        format!("it starts in {}", duration(last))
    } else {
        format!("it starts in {} to {}", duration(first), duration(last))
    };
    format!("{words}, if those in its way run to their time limits (sooner if they end early)")
}

/// What a level's estimate rests on: the capacity counted, reclaim, and the time limits it
/// waited for.
fn grounds(level: &Level, waited: &[usize], last: Option<f64>) -> Vec<String> {
    let mut lines = vec![match &level.kind {
        LevelKind::Pools(pools) if pools.is_empty() => {
            format!(
                "{} on the cluster's schedulable nodes",
                gpus_word(level.capacity)
            )
        }
        LevelKind::Pools(pools) => {
            format!(
                "{} in node pools {}",
                gpus_word(level.capacity),
                pools.join(", ")
            )
        }
        LevelKind::ProjectLimit(project) => {
            format!(
                "project {project:?}'s limit of {}",
                gpus_word(level.capacity)
            )
        }
    }];
    if level.reclaimable > EPSILON {
        lines.push(format!(
            "{} that other projects borrow beyond their quotas, which Volcano's reclaim takes back",
            gpus_word(level.reclaimable)
        ));
    }
    if last.is_some() {
        for &i in waited {
            let holder = &level.holders[i];
            let end = holder.ends_in.unwrap_or_default().max(0.0).ceil() as u64;
            lines.push(format!(
                "{} ({}) reaches its time limit in {}",
                holder.name,
                gpus_word(holder.gpus),
                duration(end)
            ));
        }
    }
    let ahead: f64 = level.ahead.iter().map(|a| a.gpus).sum();
    if !level.ahead.is_empty() {
        lines.push(format!(
            "{} ahead of it asking {}",
            match level.ahead.len() {
                1 => "1 gang".to_owned(),
                n => format!("{n} gangs"),
            },
            gpus_word(ahead)
        ));
    }
    lines
}

/// Why no end can be told: the workloads without a time limit in its way.
fn unbounded(levels: &[Level], gpus: f64) -> String {
    let mut names: Vec<&str> = Vec::new();
    for level in levels {
        if play(level, gpus, true).0.is_some() {
            continue;
        }
        for holder in level.holders.iter().filter(|h| h.ends_in.is_none()) {
            if !names.contains(&holder.name.as_str()) {
                names.push(&holder.name);
            }
        }
    }
    let shown: Vec<&str> = names.iter().copied().take(3).collect();
    let more = names.len().saturating_sub(shown.len());
    let mut who = shown.join(", ");
    if more > 0 {
        who.push_str(&format!(" and {more} more"));
    }
    match names.len() {
        0 => "its start cannot be bounded: the gangs ahead of it have no time limits".to_owned(),
        1 => format!("its start cannot be bounded: {who} in its way has no time limit"),
        _ => format!("its start cannot be bounded: {who} in its way have no time limits"),
    }
}

mod sooner;
use sooner::sooner;

#[cfg(test)]
mod tests;
