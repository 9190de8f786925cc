//! What a user may do to a workload once it exists, and in which phases. The server enforces
//! this (409 otherwise); the dashboard uses the same rule to disable buttons that would fail.

use crate::model::phase::Phase;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    Suspend,
    Resume,
    Delete,
}

impl Action {
    pub const ALL: [Action; 3] = [Action::Suspend, Action::Resume, Action::Delete];

    pub fn verb(self) -> &'static str {
        match self {
            Action::Suspend => "suspend",
            Action::Resume => "resume",
            Action::Delete => "delete",
        }
    }

    /// The new desired phase, or why the action does not apply now.
    pub fn apply(self, desired: Phase, actual: Phase) -> Result<Phase, String> {
        match (self, desired) {
            (_, Phase::Deleting) => Err("it is being deleted".into()),
            (Action::Delete, _) => Ok(Phase::Deleting),
            (Action::Suspend, Phase::Stopped) => Err("it is already suspended".into()),
            (Action::Suspend, _) if actual.is_finished() => {
                Err(format!("it has finished ({actual})"))
            }
            (Action::Suspend, _) => Ok(Phase::Stopped),
            (Action::Resume, Phase::Stopped) => Ok(Phase::Running),
            (Action::Resume, _) => Err(format!("it is not suspended (it is {actual})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_is_only_for_suspended_workloads() {
        assert_eq!(
            Action::Resume.apply(Phase::Stopped, Phase::Stopped),
            Ok(Phase::Running)
        );
        let why = Action::Resume
            .apply(Phase::Running, Phase::Running)
            .unwrap_err();
        assert!(why.contains("not suspended"), "{why}");
    }

    #[test]
    fn finished_or_suspended_workloads_cannot_be_suspended() {
        assert!(
            Action::Suspend
                .apply(Phase::Running, Phase::Completed)
                .is_err()
        );
        assert!(
            Action::Suspend
                .apply(Phase::Stopped, Phase::Stopping)
                .is_err()
        );
        assert_eq!(
            Action::Suspend.apply(Phase::Running, Phase::Pending),
            Ok(Phase::Stopped)
        );
    }

    #[test]
    fn anything_but_a_deletion_can_be_deleted() {
        assert_eq!(
            Action::Delete.apply(Phase::Stopped, Phase::Stopped),
            Ok(Phase::Deleting)
        );
        assert!(
            Action::Delete
                .apply(Phase::Deleting, Phase::Running)
                .is_err()
        );
    }
}
