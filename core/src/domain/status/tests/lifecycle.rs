//! Suspending, resuming and finishing: the phases a workload passes through once it ran.

use super::*;

#[test]
fn suspending_is_stopping_until_nothing_is_left() {
    let running = observed(
        Some(JobObservation {
            deleting: true,
            ..job("Running")
        }),
        None,
        vec![pod("p-0", Some("n0"), "Running")],
    );
    assert_eq!(
        derive(Phase::Stopped, Phase::Running, &running).phase,
        Phase::Stopping
    );
    assert_eq!(
        derive(Phase::Stopped, Phase::Stopping, &Observed::default()).phase,
        Phase::Stopped
    );
}

#[test]
fn resuming_lasts_until_the_new_job_reports_a_phase() {
    let gone = Observed::default();
    assert_eq!(
        derive(Phase::Running, Phase::Stopped, &gone).phase,
        Phase::Resuming
    );
    let old_going = observed(
        Some(JobObservation {
            deleting: true,
            ..job("Running")
        }),
        None,
        vec![],
    );
    assert_eq!(
        derive(Phase::Running, Phase::Stopping, &old_going).phase,
        Phase::Resuming
    );
    let recreated = observed(Some(job("Pending")), None, vec![]);
    assert_eq!(
        derive(Phase::Running, Phase::Resuming, &recreated).phase,
        Phase::Pending
    );
}

#[test]
fn finished_workloads_stay_finished_when_their_job_is_collected() {
    for phase in [Phase::Completed, Phase::Failed] {
        assert_eq!(
            derive(Phase::Running, phase, &Observed::default()).phase,
            phase
        );
    }
}

#[test]
fn finished_workloads_stay_finished_while_their_job_is_being_collected() {
    // Volcano's TTL (or Tephra's) deletes the Job: it carries a deletionTimestamp first.
    // Before, this read as "resuming" and the training ran a second time.
    let collecting = observed(
        Some(JobObservation {
            deleting: true,
            ..job("Completed")
        }),
        None,
        vec![pod("p", Some("n"), "Succeeded")],
    );
    for phase in [Phase::Completed, Phase::Failed] {
        let d = derive(Phase::Running, phase, &collecting);
        assert_eq!(d.phase, phase);
        assert!(is_final(phase, &collecting));
    }
    assert!(!is_final(Phase::Running, &collecting));
}

#[test]
fn a_job_deleted_by_hand_before_finishing_is_created_again() {
    let d = derive(Phase::Running, Phase::Running, &Observed::default());
    assert_eq!(d.phase, Phase::Resuming);
    assert!(d.reason.unwrap().contains("deleted outside Tephra"));
    assert_eq!(
        derive(Phase::Running, Phase::Creating, &Observed::default()).phase,
        Phase::Creating
    );
}

#[test]
fn an_aborted_job_is_a_suspension_resume_can_undo() {
    for phase in ["Aborting", "Aborted"] {
        let stopped = observed(Some(job(phase)), None, vec![]);
        assert!(stopped_in_cluster(&stopped).unwrap().contains("resume"));
    }
    assert_eq!(
        stopped_in_cluster(&observed(Some(job("Running")), None, vec![])),
        None
    );
}
