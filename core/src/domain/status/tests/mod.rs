use super::*;

mod lifecycle;

fn job(phase: &str) -> JobObservation {
    JobObservation {
        name: "train".into(),
        phase: phase.into(),
        min_available: 2,
        ..JobObservation::default()
    }
}

#[test]
fn a_generic_jobs_verdict_decides_whatever_volcano_says() {
    use crate::domain::finish::{Outcome, Verdict};
    for (outcome, phase) in [
        (Outcome::Succeeded, Phase::Completed),
        (Outcome::Failed, Phase::Failed),
    ] {
        let observed = Observed {
            job: Some(JobObservation {
                verdict: Some(Verdict {
                    outcome,
                    reason: "rule 1 holds".into(),
                }),
                ..job("Running")
            }),
            ..Observed::default()
        };
        assert_eq!(
            derive(Phase::Running, Phase::Running, &observed),
            Derived::new(phase, Some("rule 1 holds".into()))
        );
    }
}

#[test]
fn a_gang_with_a_failed_member_and_nothing_to_place_still_runs() {
    let bound = |name: &str, phase: &str| pod(name, Some("n"), phase);
    let mut observed = Observed {
        job: Some(job("Running")),
        pod_group: Some(pod_group("Unknown")),
        pods: [bound("a", "Failed"), bound("b", "Running")]
            .into_iter()
            .collect(),
        ..Observed::default()
    };
    assert_eq!(
        derive(Phase::Running, Phase::Running, &observed),
        Derived::new(
            Phase::Running,
            Some("1 pod(s) failed; the others run on".into())
        )
    );
    observed.pods.extend([bound("c", "Pending")]);
    assert_eq!(
        derive(Phase::Running, Phase::Running, &observed).phase,
        Phase::Unknown
    );
}

fn pod_group(phase: &str) -> PodGroupObservation {
    PodGroupObservation {
        name: "train-uid".into(),
        phase: phase.into(),
        min_member: 2,
        queue: "tephra-default".into(),
        ..PodGroupObservation::default()
    }
}

fn pod(name: &str, node: Option<&str>, phase: &str) -> PodInfo {
    PodInfo {
        name: name.into(),
        task: "worker".into(),
        node: node.map(str::to_owned),
        phase: phase.into(),
        restarts: 0,
        created_at: None,
        gpus: 0,
        containers: Vec::new(),
        kubelet: Default::default(),
    }
}

fn observed(
    job: Option<JobObservation>,
    pg: Option<PodGroupObservation>,
    pods: Vec<PodInfo>,
) -> Observed {
    Observed {
        job,
        pod_group: pg,
        pods: pods.into_iter().collect(),
        ..Observed::default()
    }
}

#[test]
fn a_preempted_training_says_so_until_it_runs_again() {
    let mut seen = observed(Some(job("Restarting")), None, Vec::new());
    seen.preempted = Some(Box::new(Preempted {
        at: None,
        message: "Pod is evicted, because of reclaim".into(),
        retry: 0,
        episode: "uid/0".into(),
    }));
    let d = derive(Phase::Running, Phase::Running, &seen);
    assert_eq!(d.phase, Phase::Resuming);
    let reason = d.reason.unwrap();
    assert!(
        reason.starts_with("preempted: Volcano took back GPUs"),
        "{reason}"
    );
    assert!(
        reason.ends_with("now Volcano is restarting the Job (retry 0)"),
        "{reason}"
    );
    // Running again: nothing to explain. Suspended by the user: that is the reason.
    seen.job = Some(job("Running"));
    assert_eq!(derive(Phase::Running, Phase::Resuming, &seen).reason, None);
    seen.job = Some(job("Restarting"));
    let suspended = derive(Phase::Stopped, Phase::Resuming, &seen);
    assert!(!suspended.reason.unwrap().contains("preempted"));
}

#[test]
fn a_training_whose_pod_lost_its_node_says_so_until_it_runs_again() {
    use crate::domain::node_loss::{LostNode, NodeLoss};
    let mut seen = observed(Some(job("Restarting")), None, Vec::new());
    seen.lost_node = Some(Box::new(LostNode {
        pod: "train-worker-1".into(),
        node: Some("gpu-node-3".into()),
        loss: NodeLoss::Deleted,
        message: "PodGC: node no longer exists".into(),
        retry: 0,
    }));
    let reason = derive(Phase::Running, Phase::Running, &seen)
        .reason
        .unwrap();
    assert!(
        reason.starts_with("pod train-worker-1 lost its node: node gpu-node-3 was removed"),
        "{reason}"
    );
    assert!(reason.ends_with("now Volcano is restarting the Job (retry 0)"));
    // A Job that failed for it says so too; one running again has nothing to explain.
    seen.job = Some(job("Failed"));
    let failed = derive(Phase::Running, Phase::Running, &seen);
    assert_eq!(failed.phase, Phase::Failed);
    assert!(
        failed
            .reason
            .unwrap()
            .starts_with("pod train-worker-1 lost its node")
    );
    seen.job = Some(job("Running"));
    assert_eq!(derive(Phase::Running, Phase::Resuming, &seen).reason, None);
}

#[test]
fn a_new_workload_without_a_job_is_creating() {
    let d = derive(Phase::Running, Phase::Creating, &Observed::default());
    assert_eq!(d.phase, Phase::Creating);
}

#[test]
fn a_gang_the_queue_has_not_admitted_says_what_it_needs() {
    let mut pg = pod_group("Pending");
    pg.min_member = 5;
    pg.min_resources = [
        ("nvidia.com/gpu".to_owned(), "40".to_owned()),
        ("requests.nvidia.com/gpu".to_owned(), "40".to_owned()),
        ("count/pods".to_owned(), "5".to_owned()),
    ]
    .into();
    pg.min_resources.sort();
    let d = derive(
        Phase::Running,
        Phase::Creating,
        &observed(Some(job("Pending")), Some(pg), vec![]),
    );
    assert_eq!(d.phase, Phase::Pending);
    let reason = d.reason.unwrap();
    assert!(
        reason.contains("needs 5 pod(s) at once with 40 nvidia.com/gpu;"),
        "{reason}"
    );
    assert!(reason.contains("queue tephra-default"), "{reason}");
}

/// The reason of an admitted (Inqueue) gang of two pending pods whose PodGroup carries the
/// scheduler's `message`.
fn inqueue_reason(message: &str) -> String {
    let mut pg = pod_group("Inqueue");
    pg.unschedulable = Some(message.into());
    let pods = vec![pod("p-0", None, "Pending"), pod("p-1", None, "Pending")];
    let d = derive(
        Phase::Running,
        Phase::Pending,
        &observed(Some(job("Pending")), Some(pg), pods),
    );
    assert_eq!(d.phase, Phase::Pending);
    d.reason.unwrap()
}

#[test]
fn a_gang_its_queue_holds_back_says_so_not_that_the_nodes_are_full() {
    // Volcano on the testbed, a project at its limit of 2 GPUs with a third training (and a
    // cluster whose 32 GPUs are all taken): the gang is Inqueue and its message names no node.
    let reason = inqueue_reason(
        "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; \
         Pending: 2 Unschedulable",
    );
    assert!(
        reason.starts_with(
            "waiting for queue tephra-default to admit the gang: what it may use is taken"
        ),
        "{reason}"
    );
}

#[test]
fn an_unschedulable_gang_gives_the_schedulers_reason_in_plain_words() {
    let reason = inqueue_reason(
        "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; \
         Pending: 2 Unschedulable, 2 Schedulable. Origin reason is p-1: 0/4 nodes are \
         unavailable: 4 Insufficient nvidia.com/gpu.",
    );
    assert!(
        reason.starts_with(
            "the scheduler cannot place the gang of 2 pod(s) at once: 2 of 2 pods cannot be placed"
        ),
        "{reason}"
    );
}

#[test]
fn a_bound_gang_is_initializing_until_the_job_runs() {
    let pods = vec![
        pod("p-0", Some("n0"), "Pending"),
        pod("p-1", Some("n1"), "Running"),
    ];
    let d = derive(
        Phase::Running,
        Phase::Pending,
        &observed(
            Some(job("Pending")),
            Some(pod_group("Inqueue")),
            pods.clone(),
        ),
    );
    assert_eq!(d.phase, Phase::Initializing);
    let d = derive(
        Phase::Running,
        Phase::Initializing,
        &observed(Some(job("Running")), Some(pod_group("Running")), pods),
    );
    assert_eq!(d, Derived::new(Phase::Running, None));
}

#[test]
fn a_job_changed_by_hand_is_drift() {
    let created = observed(
        Some(JobObservation {
            generation: 1,
            ..job("Running")
        }),
        None,
        vec![],
    );
    assert_eq!(drift(&created), None);
    let edited = observed(
        Some(JobObservation {
            generation: 3,
            ..job("Running")
        }),
        None,
        vec![],
    );
    assert!(drift(&edited).unwrap().contains("2 change(s)"));
    let edited_by_tephra = observed(
        Some(JobObservation {
            generation: 3,
            edited_generation: Some(3),
            ..job("Running")
        }),
        None,
        vec![],
    );
    assert_eq!(
        drift(&edited_by_tephra),
        None,
        "Tephra's own edits are no drift"
    );
    let then_by_hand = observed(
        Some(JobObservation {
            generation: 4,
            edited_generation: Some(3),
            ..job("Running")
        }),
        None,
        vec![],
    );
    assert!(drift(&then_by_hand).unwrap().contains("1 change(s)"));
}

#[test]
fn volcano_phases_map_to_user_phases() {
    let cases = [
        ("Completed", Phase::Completed),
        ("Failed", Phase::Failed),
        ("Terminated", Phase::Failed),
        ("Aborting", Phase::Stopping),
        ("Aborted", Phase::Stopped),
        ("Restarting", Phase::Resuming),
        ("Completing", Phase::Running),
        ("Terminating", Phase::Stopping),
        ("Surprising", Phase::Unknown),
    ];
    for (volcano, expected) in cases {
        let d = derive(
            Phase::Running,
            Phase::Running,
            &observed(Some(job(volcano)), None, vec![]),
        );
        assert_eq!(d.phase, expected, "Volcano {volcano}");
    }
}

#[test]
fn deleting_wins_over_everything() {
    let d = derive(
        Phase::Deleting,
        Phase::Running,
        &observed(
            Some(job("Running")),
            None,
            vec![pod("p", Some("n"), "Running")],
        ),
    );
    assert_eq!(d.phase, Phase::Deleting);
}

#[test]
fn tasks_are_counted_by_pod_phase() {
    let pods: Pods = [
        pod("a", Some("n"), "Running"),
        pod("b", Some("n"), "Succeeded"),
        pod("c", None, "Pending"),
    ]
    .into_iter()
    .collect();
    let counts = task_counts(&pods);
    assert_eq!(
        counts["worker"],
        TaskCounts {
            pending: 1,
            running: 1,
            succeeded: 1,
            failed: 0,
            unknown: 0
        }
    );
}

#[test]
fn messages_without_the_gang_prefix_are_kept() {
    assert_eq!(
        plain_unschedulable("0/4 nodes are available: 4 Insufficient nvidia.com/gpu."),
        "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
    );
}
