//! A training's time limit (`maxRunTimeSeconds`): how long each run may last before Tephra stops
//! it. Volcano has none (volcano#2761), so Tephra's controller applies it: the run is stopped as a
//! suspend stops it (the Job is deleted and each pod gets its grace period to checkpoint), and
//! the reason says which limit it reached. Resuming starts a new run with the same limit.

use crate::model::waits::duration;

/// Seconds left of a run that began `ran` seconds ago under a limit of `limit` seconds; zero
/// once it is reached.
pub fn left(limit: i64, ran: f64) -> u64 {
    (limit as f64 - ran).max(0.0).ceil() as u64
}

/// Why a run was stopped at its limit, in the words its reason and history carry.
pub fn stop_reason(limit: i64) -> String {
    format!(
        "stopped at its time limit: it ran {} (maxRunTimeSeconds {limit}); resume it to run \
         again",
        duration(u64::try_from(limit).unwrap_or_default())
    )
}

/// What the page says of a running training's limit: "stops in 1 h 12 min (its time limit of
/// 2 h)".
pub fn countdown(limit: i64, ran: f64) -> String {
    let limit_words = duration(u64::try_from(limit).unwrap_or_default());
    match left(limit, ran) {
        0 => format!("is being stopped: it reached its time limit of {limit_words}"),
        seconds => format!(
            "stops in {} (its time limit of {limit_words})",
            duration(seconds)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_counts_down_to_its_limit() {
        assert_eq!(left(7200, 0.0), 7200);
        assert_eq!(left(7200, 3599.5), 3601);
        assert_eq!(left(7200, 7200.0), 0);
        assert_eq!(left(60, 1e9), 0);
        assert_eq!(
            countdown(7200, 2880.0),
            "stops in 1 h 12 min (its time limit of 2 h)"
        );
        assert_eq!(
            countdown(60, 61.0),
            "is being stopped: it reached its time limit of 1 min"
        );
        assert_eq!(
            stop_reason(5400),
            "stopped at its time limit: it ran 1 h 30 min (maxRunTimeSeconds 5400); resume it \
             to run again"
        );
    }
}
