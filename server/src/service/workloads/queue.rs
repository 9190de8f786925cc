//! Where waiting workloads stand: the order the scheduler considers them in, computed from the
//! store for every waiting workload of this cluster (`tephra_core::domain::queue_order`), laid
//! onto a page of a list or a detail page.
//!
//! The order is computed at most once a second and shared by every reader (`shared`): with
//! 10,000 waiting it takes tens of milliseconds, and 10,000 open pages must not each pay it.
//! Volcano's scheduler itself looks once a second, so a place that old is as true as the
//! cluster's own view. A reader asking about a workload the shared order does not hold yet (one
//! submitted a moment ago) computes it afresh.

use super::{Workloads, workload_response};
use crate::db::workloads::{QueueRow, StoredWorkload, WaitingRow, WorkloadListing};
use app::error::AppError;
use std::collections::{BTreeMap, HashMap, HashSet};
use tephra_core::domain::queue_order::{self, QueueShare, Waiting, priority_rank};
use tephra_core::domain::quota::Allowance;
use tephra_core::model::phase::Phase;
use tephra_core::model::queue::{AHEAD_SHOWN, AheadOf, QueuePosition, QueueStanding};
use tephra_core::model::workload::Workload;
use uuid::Uuid;

/// Every waiting workload in the order of consideration, with each one's place.
pub(super) struct Board {
    rows: Vec<WaitingRow>,
    pools: Vec<Vec<String>>,
    ranks: Vec<i32>,
    order: Vec<usize>,
    positions: Vec<QueuePosition>,
    by_id: HashMap<Uuid, usize>,
    project_names: HashMap<Uuid, String>,
}

impl Board {
    fn new(rows: Vec<WaitingRow>, queues: Vec<QueueRow>, default_priority: Option<&str>) -> Board {
        let pools: Vec<Vec<String>> = rows
            .iter()
            .map(|row| {
                row.node_pools
                    .as_deref()
                    .and_then(|text| serde_json::from_str(text).ok())
                    .unwrap_or_default()
            })
            .collect();
        let ranks: Vec<i32> = rows
            .iter()
            .map(|row| {
                priority_rank(
                    row.priority_class
                        .as_deref()
                        .or(default_priority)
                        .unwrap_or(""),
                )
            })
            .collect();
        let keys: Vec<String> = rows.iter().map(|row| row.project_id.to_string()).collect();
        let ids: Vec<String> = rows.iter().map(|row| row.id.to_string()).collect();
        let waiting: Vec<Waiting<'_>> = rows
            .iter()
            .enumerate()
            .map(|(i, row)| Waiting {
                id: &ids[i],
                queue: &keys[i],
                pools: &pools[i],
                priority: priority_rank(
                    row.priority_class
                        .as_deref()
                        .or(default_priority)
                        .unwrap_or(""),
                ),
                created_ms: row.created_at.timestamp_millis(),
                gpus: row.gpus,
            })
            .collect();
        let queue_keys: Vec<String> = queues.iter().map(|q| q.project_id.to_string()).collect();
        let shares: BTreeMap<&str, QueueShare> = queues
            .iter()
            .zip(&queue_keys)
            .map(|(queue, key)| {
                let share = QueueShare {
                    allocated: queue.allocated_gpus,
                    deserved: Allowance::of(&queue.resources).deserved.gpus,
                };
                (key.as_str(), share)
            })
            .collect();
        let order = queue_order::order(&waiting, &shares);
        let positions = queue_order::places(&waiting, &order)
            .into_iter()
            .map(|place| QueuePosition {
                in_project: place.in_queue,
                project_waiting: place.queue_waiting,
                in_pools: place.in_pools,
                pools_waiting: place.pools_waiting,
            })
            .collect();
        drop(waiting);
        Board {
            by_id: rows
                .iter()
                .enumerate()
                .map(|(i, row)| (row.id, i))
                .collect(),
            project_names: queues
                .into_iter()
                .map(|queue| (queue.project_id, queue.project_name))
                .collect(),
            rows,
            pools,
            ranks,
            order,
            positions,
        }
    }

    /// The rows of this order with `acted` brought up to date: each leaves it, and those of
    /// `now` (the ones of `acted` that wait, read after the actions) join it.
    fn rows_after(&self, acted: &[Uuid], now: Vec<WaitingRow>) -> Vec<WaitingRow> {
        let mut rows: Vec<WaitingRow> = self
            .rows
            .iter()
            .filter(|row| !acted.contains(&row.id))
            .cloned()
            .collect();
        rows.extend(now);
        rows
    }

    /// Whether each of `waiting` has a place in it.
    fn holds(&self, waiting: &[Uuid]) -> bool {
        waiting.iter().all(|id| self.by_id.contains_key(id))
    }

    pub(super) fn position(&self, id: Uuid) -> Option<QueuePosition> {
        self.by_id.get(&id).map(|&i| self.positions[i])
    }

    /// The waiting workloads considered before `id` that may use one of its node pools, the
    /// nearest last; none when `id` does not wait.
    pub(super) fn ahead_of(&self, id: Uuid) -> impl Iterator<Item = &WaitingRow> {
        let me = self.by_id.get(&id).copied();
        let order = if me.is_some() { &self.order[..] } else { &[] };
        order
            .iter()
            .take_while(move |&&i| Some(i) != me)
            .filter(move |&&i| {
                me.is_some_and(|me| queue_order::overlap(&self.pools[i], &self.pools[me]))
            })
            .map(|&i| &self.rows[i])
    }

    /// Those ahead of `id` for its nodes: by name where `readable` holds their project.
    fn standing(&self, id: Uuid, readable: impl Fn(Uuid) -> bool) -> Option<QueueStanding> {
        let &me = self.by_id.get(&id)?;
        let mut standing = QueueStanding {
            position: self.positions[me],
            ..QueueStanding::default()
        };
        for row in self.ahead_of(id) {
            if standing.ahead.len() < AHEAD_SHOWN && readable(row.project_id) {
                standing.ahead.push(AheadOf {
                    workload_id: row.id.to_string(),
                    name: row.name.clone(),
                    project_name: self
                        .project_names
                        .get(&row.project_id)
                        .cloned()
                        .unwrap_or_default(),
                    created_by: row.creator_name.clone(),
                    gpus: row.gpus,
                    in_pools: self.positions[self.by_id[&row.id]].in_pools,
                });
            } else {
                standing.others_ahead += 1;
            }
        }
        Some(standing)
    }
}

impl Board {
    /// How many waiting workloads a new request of `project` at priority `rank` that may use
    /// `pools` would wait behind: in its project (those of the same or a higher priority), and
    /// among those competing for its nodes (other projects' all).
    fn behind(&self, project: Uuid, pools: &[String], rank: i32) -> (u32, u32) {
        let mut behind = (0, 0);
        for (i, row) in self.rows.iter().enumerate() {
            let ours = row.project_id == project;
            if ours && self.ranks[i] < rank {
                continue;
            }
            if ours {
                behind.0 += 1;
            }
            if queue_order::overlap(&self.pools[i], pools) {
                behind.1 += 1;
            }
        }
        behind
    }
}

impl Workloads {
    /// Fills in the place of each waiting workload of `page`; reads the store only when one
    /// waits.
    pub(super) async fn fill_positions(&self, page: &mut [Workload]) -> Result<(), AppError> {
        let waits = |w: &Workload| w.desired_phase == Phase::Running && w.actual_phase.is_waiting();
        if !page.iter().any(waits) {
            return Ok(());
        }
        let ids: Vec<Uuid> = page
            .iter()
            .filter(|w| waits(w))
            .filter_map(|w| w.workload_id.parse().ok())
            .collect();
        let board = self.board(&ids).await?;
        for w in page.iter_mut() {
            let Ok(id) = w.workload_id.parse() else {
                continue;
            };
            w.queue_position = board.position(id);
            w.ahead = w.queue_position.map(|p| p.ahead());
        }
        Ok(())
    }

    /// How many waiting workloads a request of `project` with priority class `class` (the
    /// profile's default when `None`) that may use `pools` would wait behind now: in its project,
    /// and for its nodes.
    pub(super) async fn behind(
        &self,
        project: Uuid,
        class: Option<&str>,
        pools: &[String],
    ) -> Result<(u32, u32), AppError> {
        let board = self.board(&[]).await?;
        let default = self.profile.default_training_priority.as_deref();
        Ok(board.behind(
            project,
            pools,
            priority_rank(class.or(default).unwrap_or("")),
        ))
    }

    /// `listing` in the API's shape, with its place and its start estimate if it waits.
    pub async fn response(&self, listing: &WorkloadListing) -> Result<Workload, AppError> {
        let mut shown = workload_response(listing);
        let w = &listing.workload;
        if w.desired_phase == Phase::Running && w.actual_phase.is_waiting() {
            let board = self.board(&[w.id]).await?;
            shown.queue_position = board.position(w.id);
            shown.ahead = shown.queue_position.map(|p| p.ahead());
            shown.start_estimate = self.start_estimate(w, &board).await?;
        }
        Ok(shown)
    }

    /// Where waiting workload `w` stands and when it can start, naming those ahead only in
    /// projects whose ids `readable` holds.
    pub(super) async fn queue_standing(
        &self,
        w: &StoredWorkload,
        readable: &HashSet<String>,
    ) -> Result<Option<QueueStanding>, AppError> {
        let board = self.board(&[w.id]).await?;
        let Some(mut standing) =
            board.standing(w.id, |project| readable.contains(&project.to_string()))
        else {
            return Ok(None);
        };
        standing.eta = self.start_estimate(w, &board).await?;
        Ok(Some(standing))
    }
}

/// The projects that have a workload among `rows`, each once.
fn projects_of(rows: &[WaitingRow]) -> Vec<Uuid> {
    let mut projects: Vec<Uuid> = rows.iter().map(|row| row.project_id).collect();
    projects.sort_unstable();
    projects.dedup();
    projects
}

mod acted;
mod shared;
pub(super) use shared::Boards;

#[cfg(test)]
mod tests;
