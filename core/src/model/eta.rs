//! When a waiting workload can start (`crate::domain::eta`), as the API and the detail page show
//! it: a range with what it rests on, or why it cannot be bounded, and what would make it start
//! sooner.

use serde::{Deserialize, Serialize};

/// How firmly the start can be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum EtaBound {
    /// There is room for it now; the scheduler places it within a cycle or two.
    Now,
    /// It starts within a range, if what is in its way runs no longer than its time limit.
    Within,
    /// Something in its way has no time limit, so no end can be told.
    Unbounded,
    /// It can never start as asked.
    Never,
}

/// A waiting workload's start, estimated from what Tephra knows now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StartEstimate {
    pub bound: EtaBound,
    /// The range's ends, in seconds from when it was estimated (`Within` only): the start if the
    /// gangs ahead of it took nothing, and if they all started first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest_seconds: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_seconds: Option<u64>,
    /// The same ends as times (RFC 3339), filled in by the service.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest: Option<String>,
    /// One line: "it starts in 5 min to 32 min, …", "its start cannot be bounded: …", "it can
    /// never start as asked: …".
    pub summary: String,
    /// What the estimate rests on: the time limits in its way, reclaim, the capacity counted.
    pub rests_on: Vec<String>,
    /// What would make it start sooner.
    pub sooner: Vec<String>,
}
