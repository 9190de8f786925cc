//! A workload's life in the store: submitted, moved between phases by racing writers, given
//! its status and its finish once.

use super::{acted, submitted, suspended, training, user};
use serde_json::json;
use server::db::{Database, DbError};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::history::AuditTarget;
use tephra_core::model::phase::Phase;
use uuid::Uuid;

pub async fn racing_transitions_have_exactly_one_winner(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "racer").await;
    for round in 0..10 {
        let w = suspended(db, training(project.id, creator, &format!("race-{round}"))).await;
        // A resume and a delete read "Stopped" at the same moment; only one may apply.
        let workloads = db.workloads();
        let (resume, delete) = tokio::join!(
            workloads.transition(
                w.id,
                Phase::Stopped,
                Phase::Running,
                acted("workload.resume")
            ),
            workloads.transition(
                w.id,
                Phase::Stopped,
                Phase::Deleting,
                acted("workload.delete")
            ),
        );
        let (resume, delete) = (resume.unwrap(), delete.unwrap());
        assert!(
            resume.is_some() != delete.is_some(),
            "round {round}: exactly one wins (resume {}, delete {})",
            resume.is_some(),
            delete.is_some()
        );
        let now = db.workloads().get(w.id).await.unwrap();
        let expected = if delete.is_some() {
            Phase::Deleting
        } else {
            Phase::Running
        };
        assert_eq!(now.desired_phase, expected);
        let history = db
            .audit()
            .for_target(AuditTarget::Workload, w.id)
            .await
            .unwrap();
        let actions: Vec<&str> = history.iter().map(|e| e.action.as_str()).collect();
        assert_eq!(actions.len(), 3, "the loser leaves no history: {actions:?}");
    }
}

pub async fn status_is_written_only_for_the_desired_phase_it_was_derived_for(
    db: &Database,
    _: &str,
) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "tracker").await;
    let w = suspended(db, training(project.id, creator, "watched")).await;
    // Derived while the workload was still wanted Running: stale, not written.
    let stale = db
        .workloads()
        .record_status(
            w.id,
            super::moved(Phase::Running, Phase::Creating, Phase::Running),
        )
        .await
        .unwrap();
    assert_eq!(stale, None);
    // The same phase is written in one statement, not a transaction: it is guarded all the same.
    let same_phase = db
        .workloads()
        .record_status(
            w.id,
            server::db::workloads::StatusWrite::new(
                Phase::Running,
                Phase::Creating,
                Phase::Creating,
                Some("stale reason"),
                &Default::default(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(same_phase, None);
    let now = db.workloads().get(w.id).await.unwrap();
    assert_eq!(now.actual_phase, Phase::Creating);
    assert_eq!(now.phase_reason, None);
}

pub async fn a_finish_is_stamped_once(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "finisher").await;
    let mut new = training(project.id, creator, "finite");
    new.job_ttl_seconds = Some(30);
    let w = db
        .workloads()
        .insert(&new, submitted(creator))
        .await
        .unwrap();
    let idle = tephra_core::model::workload::LiveStatus::default();
    let workloads = db.workloads();
    let record = |previous, phase| {
        workloads.record_status(
            w.id,
            server::db::workloads::StatusWrite::new(Phase::Running, previous, phase, None, &idle),
        )
    };
    let done = record(Phase::Creating, Phase::Completed)
        .await
        .unwrap()
        .unwrap();
    let first = done.finished_at.expect("stamped when it finished");
    let again = record(Phase::Completed, Phase::Completed)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.finished_at, Some(first), "the first finish counts");
    assert_eq!(again.job_ttl_seconds, Some(30));
    let intents = db.workloads().intents().await.unwrap();
    let intent = intents.iter().find(|i| i.id == w.id).unwrap();
    assert_eq!(intent.finished_at, Some(first));
    let history = db
        .audit()
        .for_target(AuditTarget::Workload, w.id)
        .await
        .unwrap();
    let phases = history
        .iter()
        .filter(|e| e.action == "workload.phase")
        .count();
    assert_eq!(phases, 1, "one history entry per change of phase");
}

pub async fn workloads_round_trip_and_change_phase(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "alice").await;
    let mut new = training(project.id, creator, "resnet");
    new.spec = json!({
        "image": "pytorch/pytorch:2.4",
        "command": "torchrun train.py",
        "environmentVariables": [{ "name": "EPOCHS", "value": "10" }],
        "compute": { "gpuDevicesRequest": 2, "cpuCoreRequest": 1.5 },
        "nested": { "list": [1, 2.5, null, true, "ü"] }
    });
    let stored = db
        .workloads()
        .insert(&new, submitted(creator))
        .await
        .unwrap();
    assert_eq!(stored.desired_phase, Phase::Running);
    assert_eq!(stored.actual_phase, Phase::Creating);
    assert_eq!(
        db.workloads().get(stored.id).await.unwrap(),
        stored,
        "what is read equals what was written"
    );

    let pending = db
        .workloads()
        .record_status(
            stored.id,
            server::db::workloads::StatusWrite::new(
                Phase::Running,
                Phase::Creating,
                Phase::Pending,
                Some("the gang needs 4 GPUs; 3 are free"),
                &tephra_core::model::workload::LiveStatus {
                    job_phase: Some("Pending".into()),
                    retry_count: 1,
                    ..Default::default()
                },
            ),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pending.status.job_phase.as_deref(), Some("Pending"));
    assert_eq!(
        pending.status.retry_count, 1,
        "the live status is stored with the phase"
    );
    assert_eq!(pending.actual_phase, Phase::Pending);
    assert_eq!(
        pending.phase_reason.as_deref(),
        Some("the gang needs 4 GPUs; 3 are free")
    );
    assert!(pending.updated_at >= stored.updated_at);

    let running = db
        .workloads()
        .record_status(
            stored.id,
            super::moved(Phase::Running, Phase::Pending, Phase::Running),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(running.phase_reason, None);
    assert_eq!(running.finished_at, None);
    assert_eq!(
        running,
        db.workloads().get(stored.id).await.unwrap(),
        "the row a status write returns is the row as stored"
    );
    let stopping = db
        .workloads()
        .transition(
            stored.id,
            Phase::Running,
            Phase::Stopped,
            acted("workload.suspend"),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stopping.desired_phase, Phase::Stopped);
    assert_eq!(stopping.actual_phase, Phase::Running);
    assert_eq!(
        stopping,
        db.workloads().get(stored.id).await.unwrap(),
        "the row a transition returns is the row as stored"
    );

    assert_eq!(
        db.workloads().count_by_phase(None).await.unwrap(),
        vec![(Phase::Running, 1)]
    );
    assert!(matches!(
        db.workloads().get(Uuid::new_v4()).await,
        Err(DbError::NotFound)
    ));
    assert_eq!(
        db.workloads()
            .record_status(
                Uuid::new_v4(),
                super::moved(Phase::Running, Phase::Running, Phase::Failed)
            )
            .await
            .unwrap(),
        None,
        "nothing to write"
    );
}

/// With no cluster configured, a submitted workload is stored saying why it is not created yet,
/// in the same transaction as the row: its first read already says so, and a paused one (which
/// waits for no cluster) says nothing.
pub async fn a_workload_stored_without_a_cluster_says_why_from_the_start(db: &Database, _: &str) {
    db.projects().ensure_default().await.unwrap();
    let services = super::quota::services(db).await;
    let root = super::quota::admin(user(db, "root").await);
    let request = |name: &str, spec: serde_json::Value| json!({ "name": name, "projectId": "default", "spec": spec });
    let accepted = services
        .workloads()
        .submit(
            WorkloadKind::Training,
            &root,
            request("waits", json!({ "image": "pytorch/pytorch:2.4" })),
        )
        .await
        .expect("accepted");
    let stored = db
        .workloads()
        .get(accepted.listing.workload.id)
        .await
        .unwrap();
    assert_eq!(
        (stored.desired_phase, stored.actual_phase),
        (Phase::Running, Phase::Creating)
    );
    assert_eq!(
        stored.phase_reason.as_deref(),
        Some(server::cluster::NO_CLUSTER)
    );
    assert_eq!(stored.created_at, stored.updated_at, "written once");

    let pause = json!({
        "replicaSpecs": [{ "type": "worker", "spec": { "image": "busybox" } }],
        "runMode": { "pause": { "enabled": true } },
    });
    let paused = services
        .workloads()
        .submit(WorkloadKind::Generic, &root, request("paused", pause))
        .await
        .expect("a paused generic job is accepted");
    let stored = db
        .workloads()
        .get(paused.listing.workload.id)
        .await
        .unwrap();
    assert_eq!(stored.actual_phase, Phase::Stopped);
    assert_eq!(
        stored.phase_reason, None,
        "a paused workload waits for no cluster"
    );
}
