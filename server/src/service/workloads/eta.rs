//! When a waiting workload can start (`tephra_core::domain::eta`): the levels it must fit under
//! read from the node index (its pools' GPUs) and the store (the workloads that hold GPUs, the
//! gangs ahead of it on the [`Board`], its project's limit and quota).
//!
//! What it counts is Tephra's own workloads: a pool's holders are those that may use one of its
//! pools, so a holder that may also use another pool is counted in both; other pods on the nodes
//! are not counted. The department's limit is not a level (admission keeps a department within
//! it for work that fits).

use super::Workloads;
use super::admission::stored_demand;
use super::queue::Board;
use crate::db::workloads::{HoldingRow, StoredWorkload};
use app::error::AppError;
use chrono::{DateTime, Utc};
use tephra_core::domain::eta::{self, Ahead, Asked, Elsewhere, Holder, Level, LevelKind, NodeRoom};
use tephra_core::domain::queue_order;
use tephra_core::domain::quota::Allowance;
use tephra_core::model::eta::StartEstimate;

fn pools_of(text: Option<&str>) -> Vec<String> {
    text.and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_default()
}

/// Seconds until a holder's time limit stops its run, if it has one.
fn ends_in(row: &HoldingRow, now: DateTime<Utc>) -> Option<f64> {
    let (limit, since) = row.max_run_seconds.zip(row.running_since)?;
    Some(limit as f64 - (now - since).num_milliseconds() as f64 / 1000.0)
}

/// A holder as the estimate of a workload of `project` may name it: whoever reads that estimate
/// may read `project`, not necessarily the others, so another project's workload is not named
/// (as the queue's "ahead" names only readable projects').
fn holder(row: &HoldingRow, now: DateTime<Utc>, project: uuid::Uuid) -> Holder {
    Holder {
        name: if row.project_id == project {
            row.name.clone()
        } else {
            "a workload of another project".to_owned()
        },
        gpus: row.gpus,
        ends_in: ends_in(row, now),
    }
}

/// The range's ends as times, beside their seconds.
fn stamped(mut estimate: StartEstimate, now: DateTime<Utc>) -> StartEstimate {
    let at = |seconds: Option<u64>| {
        seconds.map(|s| (now + chrono::Duration::seconds(s as i64)).to_rfc3339())
    };
    estimate.earliest = at(estimate.earliest_seconds);
    estimate.latest = at(estimate.latest_seconds);
    estimate
}

impl Workloads {
    /// When `w`, which waits on `board`, can start; `None` when it does not wait, its request
    /// no longer parses, or the nodes are not known yet.
    pub(super) async fn start_estimate(
        &self,
        w: &StoredWorkload,
        board: &Board,
    ) -> Result<Option<StartEstimate>, AppError> {
        let Some(demand) = stored_demand(w.kind, &w.spec) else {
            return Ok(None);
        };
        let (capacity, known) = self.gpu_capacity(&demand.pools);
        if !known || board.position(w.id).is_none() {
            return Ok(None);
        }
        let now = Utc::now();
        let holding = self.db.workloads().holding(&self.cluster.id).await?;
        let ahead: Vec<_> = board.ahead_of(w.id).collect();
        let runs = |row: &&crate::db::workloads::WaitingRow| Ahead {
            gpus: row.gpus,
            runs_for: row.max_run_seconds.map(|s| s as f64),
        };
        let project = self.db.projects().get(w.project_id).await?;
        let allowance = Allowance::of(&project.resources);
        let gpus = demand.total.gpus;
        let ours: f64 = holding
            .iter()
            .filter(|h| h.project_id == w.project_id)
            .map(|h| h.gpus)
            .sum();
        let in_quota = allowance
            .deserved
            .gpus
            .is_some_and(|deserved| ours + gpus <= deserved + 1e-9);
        let reclaimable = if in_quota {
            self.borrowed_by_others(w.project_id).await?
        } else {
            0.0
        };
        let mut levels = vec![Level {
            kind: LevelKind::Pools(demand.pools.clone()),
            capacity,
            holders: holding
                .iter()
                .filter(|h| queue_order::overlap(&pools_of(h.node_pools.as_deref()), &demand.pools))
                .map(|h| holder(h, now, w.project_id))
                .collect(),
            ahead: ahead.iter().map(runs).collect(),
            reclaimable,
        }];
        if let Some(limit) = allowance.limit.gpus {
            levels.push(Level {
                kind: LevelKind::ProjectLimit(project.name.clone()),
                capacity: limit,
                holders: holding
                    .iter()
                    .filter(|h| h.project_id == w.project_id)
                    .map(|h| holder(h, now, w.project_id))
                    .collect(),
                ahead: ahead
                    .iter()
                    .filter(|row| row.project_id == w.project_id)
                    .map(runs)
                    .collect(),
                reclaimable: 0.0,
            });
        }
        let (node_room, elsewhere) = self.on_nodes(&demand.pools, demand.largest_pod.gpus);
        let asked = Asked {
            gpus,
            pods: pods(demand.total.gpus, demand.largest_pod.gpus),
            per_pod: demand.largest_pod.gpus,
            largest_node: self.largest_node(&demand.pools),
            node_room,
        };
        Ok(Some(stamped(
            eta::estimate(&asked, &levels, &elsewhere),
            now,
        )))
    }

    /// The most GPUs one node of `pools` (every pool when empty) has, once the nodes are listed.
    fn largest_node(&self, pools: &[String]) -> Option<f64> {
        self.cluster
            .largest_nodes()
            .into_iter()
            .filter(|(pool, _)| pools.is_empty() || pools.contains(pool))
            .map(|(_, size)| size.gpus)
            .reduce(f64::max)
    }

    /// What the schedulable nodes hold for pods asking `per_pod` GPUs of `pools` (every pool
    /// when empty), from one look at the nodes and at what Tephra's bound pods use on each: how
    /// many such pods fit, empty and now (none when the pods ask no GPUs), and the GPUs free in
    /// each other pool.
    fn on_nodes(&self, pools: &[String], per_pod: f64) -> (Option<NodeRoom>, Vec<Elsewhere>) {
        let shared = &self.cluster.shared;
        let used = shared.index().gpus_by_node(None);
        let nodes = shared.nodes.read().unwrap_or_else(|e| e.into_inner());
        let mut room = NodeRoom { empty: 0, now: 0 };
        let mut elsewhere: Vec<Elsewhere> = Vec::new();
        let fits = |gpus: f64| (gpus / per_pod + 1e-9).floor().max(0.0) as u32;
        for (name, size) in nodes.nodes() {
            if !size.schedulable {
                continue;
            }
            let all = size.allocatable.gpus;
            let free = all - used.get(name).copied().unwrap_or(0.0);
            if pools.is_empty() || pools.contains(&size.pool) {
                if per_pod > 0.0 {
                    room.empty += fits(all);
                    room.now += fits(free);
                }
            } else {
                match elsewhere.iter_mut().find(|p| p.pool == size.pool) {
                    Some(pool) => pool.free += free.max(0.0),
                    None => elsewhere.push(Elsewhere {
                        pool: size.pool.clone(),
                        free: free.max(0.0),
                    }),
                }
            }
        }
        ((per_pod > 0.0).then_some(room), elsewhere)
    }
}

/// How many pods ask the GPUs: all of them over the largest pod's, at least one.
fn pods(total: f64, per_pod: f64) -> u32 {
    if per_pod > 0.0 {
        (total / per_pod).round().max(1.0) as u32
    } else {
        1
    }
}
