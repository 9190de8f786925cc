//! What a workload waited for before it ran, and how long: its phase changes, each wait named by
//! its cause, summed per cause. The detail page says "waited 42 min for queue vision to admit it,
//! 3 min for room on the nodes".

use crate::model::phase::Phase;
use serde::{Deserialize, Serialize};

/// Why a workload waits to run, as its reason says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum WaitCause {
    /// Tephra is making its Job (or making it again to resume it).
    Creating,
    /// Its queue has not admitted the gang: the project's or department's quota or limit.
    Queue,
    /// Admitted, but the scheduler cannot place the whole gang on the nodes yet.
    Placement,
    /// Volcano has not made its PodGroup yet, or gave no reason.
    Scheduler,
}

impl WaitCause {
    /// The cause of a wait in `phase` with `reason`; `None` when the phase is no wait.
    pub fn of(phase: Phase, reason: Option<&str>) -> Option<Self> {
        if !phase.is_waiting() {
            return None;
        }
        let reason = reason.unwrap_or_default();
        Some(match phase {
            Phase::Creating | Phase::Resuming => WaitCause::Creating,
            _ if reason.contains("admit the gang") || reason.contains("has not admitted") => {
                WaitCause::Queue
            }
            _ if reason.contains("cannot place") || reason.contains("to place") => {
                WaitCause::Placement
            }
            _ => WaitCause::Scheduler,
        })
    }

    /// What it waited for, in words after "waited ... for".
    pub fn label(self) -> &'static str {
        match self {
            WaitCause::Creating => "its Job to be created",
            WaitCause::Queue => "its queue to admit it (quota or limit)",
            WaitCause::Placement => "room on the nodes for the whole gang",
            WaitCause::Scheduler => "the scheduler",
        }
    }
}

/// How long a workload waited for one cause, in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Wait {
    pub cause: WaitCause,
    pub seconds: u64,
}

impl Wait {
    /// "42 min for its queue to admit it (quota or limit)".
    pub fn said(&self) -> String {
        format!("{} for {}", duration(self.seconds), self.cause.label())
    }
}

/// "42 s", "3 min", "3 min 20 s", "1 h 5 min".
pub fn duration(seconds: u64) -> String {
    match (seconds / 3600, seconds % 3600 / 60, seconds % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

/// The waits in `changes` (each phase change's time in seconds on any clock, the phase it moved
/// to and its reason, oldest first), the last one lasting until `now` on the same clock: the
/// seconds per cause, causes in the order they were first met, ones under a second left out.
pub fn waits(changes: &[(f64, Phase, Option<&str>)], now: f64) -> Vec<Wait> {
    let mut total: Vec<(WaitCause, f64)> = Vec::new();
    for (i, (at, phase, reason)) in changes.iter().enumerate() {
        let Some(cause) = WaitCause::of(*phase, *reason) else {
            continue;
        };
        let until = changes.get(i + 1).map_or(now, |next| next.0);
        let lasted = (until - at).max(0.0);
        match total.iter_mut().find(|(c, _)| *c == cause) {
            Some((_, seconds)) => *seconds += lasted,
            None => total.push((cause, lasted)),
        }
    }
    total
        .into_iter()
        .map(|(cause, seconds)| Wait {
            cause,
            seconds: seconds.round() as u64,
        })
        .filter(|w| w.seconds > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUEUE: &str = "waiting for queue vision to admit the gang: it needs 1 pod(s) at once";
    const PLACE: &str = "the scheduler cannot place the gang of 2 pod(s) at once: 2 of 2 pods \
                         cannot be placed";

    #[test]
    fn each_cause_is_told_apart_by_its_reason() {
        assert_eq!(
            WaitCause::of(Phase::Creating, None),
            Some(WaitCause::Creating)
        );
        assert_eq!(
            WaitCause::of(Phase::Pending, Some(QUEUE)),
            Some(WaitCause::Queue)
        );
        assert_eq!(
            WaitCause::of(Phase::Pending, Some(PLACE)),
            Some(WaitCause::Placement)
        );
        assert_eq!(
            WaitCause::of(Phase::Pending, None),
            Some(WaitCause::Scheduler)
        );
        assert_eq!(WaitCause::of(Phase::Running, Some(QUEUE)), None);
    }

    #[test]
    fn waits_are_summed_per_cause_and_the_last_lasts_until_now() {
        let changes = [
            (0.0, Phase::Creating, None),
            (0.4, Phase::Pending, Some(QUEUE)),
            (2520.4, Phase::Pending, Some(PLACE)),
            (2700.4, Phase::Running, None),
            // Preempted: back in the queue until now.
            (4000.0, Phase::Pending, Some(QUEUE)),
        ];
        assert_eq!(
            waits(&changes, 4060.0),
            [
                Wait {
                    cause: WaitCause::Queue,
                    seconds: 2580
                },
                Wait {
                    cause: WaitCause::Placement,
                    seconds: 180
                },
            ],
            "under a second of creating is left out"
        );
        assert!(waits(&[], 10.0).is_empty());
        assert_eq!(
            waits(&changes, 4060.0)[0].said(),
            "43 min for its queue to admit it (quota or limit)"
        );
    }
}
