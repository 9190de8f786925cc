//! The home page's numbers.

use super::phase::Phase;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overview {
    pub projects: i64,
    pub users: i64,
    /// Trainings that are not deleted, by their current phase (phases with none are left out).
    pub trainings_by_phase: Vec<(Phase, i64)>,
}

impl Overview {
    pub fn trainings(&self) -> i64 {
        self.trainings_by_phase.iter().map(|(_, n)| n).sum()
    }

    pub fn in_phase(&self, phase: Phase) -> i64 {
        self.trainings_by_phase
            .iter()
            .find(|(p, _)| *p == phase)
            .map_or(0, |(_, n)| *n)
    }
}
