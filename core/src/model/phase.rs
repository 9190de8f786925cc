//! The phases a workload shows to users, after Run:ai's `actualPhase`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Phase {
    Creating,
    Pending,
    Initializing,
    Running,
    Stopping,
    Stopped,
    Resuming,
    Completed,
    Failed,
    Deleting,
    Unknown,
}

impl Phase {
    pub const ALL: [Phase; 11] = [
        Phase::Creating,
        Phase::Pending,
        Phase::Initializing,
        Phase::Running,
        Phase::Stopping,
        Phase::Stopped,
        Phase::Resuming,
        Phase::Completed,
        Phase::Failed,
        Phase::Deleting,
        Phase::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Creating => "Creating",
            Phase::Pending => "Pending",
            Phase::Initializing => "Initializing",
            Phase::Running => "Running",
            Phase::Stopping => "Stopping",
            Phase::Stopped => "Stopped",
            Phase::Resuming => "Resuming",
            Phase::Completed => "Completed",
            Phase::Failed => "Failed",
            Phase::Deleting => "Deleting",
            Phase::Unknown => "Unknown",
        }
    }

    /// Whether the workload has reached an end and will not change on its own.
    pub fn is_finished(self) -> bool {
        matches!(self, Phase::Completed | Phase::Failed)
    }

    /// Whether the workload waits to run: its Job is being made, or its gang waits for the
    /// scheduler. What Run:ai's pending time counts.
    pub fn is_waiting(self) -> bool {
        matches!(self, Phase::Creating | Phase::Pending | Phase::Resuming)
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown phase {0:?}; expected one of Creating, Pending, Initializing, Running, Stopping, Stopped, Resuming, Completed, Failed, Deleting, Unknown"
)]
pub struct UnknownPhase(pub String);

impl FromStr for Phase {
    type Err = UnknownPhase;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Phase::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownPhase(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phase_round_trips_through_its_name() {
        for phase in Phase::ALL {
            assert_eq!(phase.as_str().parse::<Phase>(), Ok(phase));
        }
    }

    #[test]
    fn unknown_names_are_rejected_with_the_allowed_list() {
        let err = "running".parse::<Phase>().unwrap_err();
        assert!(err.to_string().contains("Running"), "{err}");
    }
}
