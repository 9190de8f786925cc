//! The pod settings of Run:ai's current schema, checked: restart policy, preemptibility, required
//! node affinity, related links and the grace period.

use crate::model::training::request::{MatchOperator, Preemptibility, RestartPolicy};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodSettings {
    /// A label value.
    pub category: Option<String>,
    /// Any one term must match; empty when the request requires nothing.
    pub node_affinity: Vec<NodeTerm>,
    pub preemptibility: Option<Preemptibility>,
    /// Without the excluded ones.
    pub related_urls: Vec<RelatedLink>,
    pub restart_policy: Option<RestartPolicy>,
    pub termination_grace_period_seconds: Option<i64>,
    /// Within [`MAX_RUN_TIME_SECONDS`].
    pub max_run_time_seconds: Option<i64>,
}

/// The shortest and longest time limit a training may set: a minute to a year.
pub const MAX_RUN_TIME_SECONDS: std::ops::RangeInclusive<i64> = 60..=31_536_000;

/// Requirements that all hold on a matching node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeTerm(pub Vec<NodeRequirement>);

#[derive(Debug, Clone, PartialEq)]
pub struct NodeRequirement {
    /// A label key.
    pub key: String,
    pub operator: MatchOperator,
    /// As many as the operator takes: some for In and NotIn, none for Exists and DoesNotExist,
    /// one integer for Gt and Lt.
    pub values: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RelatedLink {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    /// An http or https URL.
    pub url: String,
}
