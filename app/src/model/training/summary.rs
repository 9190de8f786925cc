//! What lists of trainings show about each one.

use crate::model::phase::Phase;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrainingSummary {
    pub id: String,
    pub name: String,
    pub project: String,
    pub created_by: String,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    /// RFC 3339.
    pub created_at: String,
}
