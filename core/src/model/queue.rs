//! Where a waiting workload stands in the order the scheduler considers waiting gangs
//! (`crate::domain::queue_order`), as the API and the pages show it.

use serde::{Deserialize, Serialize};

/// A waiting workload's place; positions count from 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueuePosition {
    /// Among the waiting workloads of its project's queue.
    pub in_project: u32,
    pub project_waiting: u32,
    /// Among the waiting workloads, of every project, that may use one of its node pools: those
    /// that compete with it for the same nodes.
    pub in_pools: u32,
    pub pools_waiting: u32,
}

impl QueuePosition {
    /// How many are considered before it for its nodes.
    pub fn ahead(&self) -> u32 {
        self.in_pools.saturating_sub(1)
    }

    /// "3rd in vision", or "next in vision" when nothing is ahead of it in its project.
    pub fn place(&self, project: &str) -> String {
        if self.in_project <= 1 {
            format!("next in {project}")
        } else {
            format!("{} in {project}", ordinal(self.in_project))
        }
    }
}

/// 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 112th.
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A workload ahead of another, as the viewer may see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AheadOf {
    pub workload_id: String,
    pub name: String,
    pub project_name: String,
    pub created_by: String,
    pub gpus: f64,
    /// Its place among those competing for the same nodes.
    pub in_pools: u32,
}

/// A waiting workload's place with what is ahead of it: those the viewer may read by name (the
/// nearest first, at most [`AHEAD_SHOWN`]), the rest only counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueStanding {
    pub position: QueuePosition,
    pub ahead: Vec<AheadOf>,
    /// Ahead of it but in projects the viewer may not read, or beyond the first shown.
    pub others_ahead: u32,
    /// When it can start, or what would make it sooner; `None` until the nodes are known.
    pub eta: Option<crate::model::eta::StartEstimate>,
}

/// The most workloads ahead a detail page names.
pub const AHEAD_SHOWN: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_read_as_english() {
        let at = |in_project| QueuePosition {
            in_project,
            project_waiting: 200,
            in_pools: in_project + 4,
            pools_waiting: 300,
        };
        assert_eq!(at(1).place("vision"), "next in vision");
        assert_eq!(at(2).place("vision"), "2nd in vision");
        assert_eq!(at(3).place("vision"), "3rd in vision");
        assert_eq!(at(11).place("vision"), "11th in vision");
        assert_eq!(at(21).place("vision"), "21st in vision");
        assert_eq!(at(112).place("vision"), "112th in vision");
        assert_eq!(at(3).ahead(), 6);
        assert_eq!(QueuePosition::default().ahead(), 0);
    }
}
