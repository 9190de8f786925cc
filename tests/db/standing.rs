//! What admission decided, in a workload's history: an entry of Tephra's own right after the act
//! that admitted it over quota, whether that act was a submit or a resume; and a preemption,
//! written with the status that shows it.

use super::quota::{gpus, one_gpu, with_project};
use server::db::Database;
use server::db::audit::AuditEvent;
use server::db::workloads::StatusWrite;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::action::Action;
use tephra_core::model::history::{AuditAction, AuditTarget, HistoryAction};
use tephra_core::model::live::{LiveStatus, Preemption};
use tephra_core::model::phase::Phase;
use uuid::Uuid;

/// A project that deserves one GPU and may use four: a second one-GPU training runs over quota.
/// Its history says so after its submit; the first, suspended and resumed while the second holds
/// the quota, says so after its resume (a resume used to leave no such entry). A training within
/// quota gets no entry.
pub async fn a_workload_admitted_over_quota_says_so_after_the_act_that_admitted_it(
    db: &Database,
    _: &str,
) {
    let (services, root) = with_project(db, "vision", gpus(Some(1.0), Some(4.0))).await;
    let mut ids = Vec::new();
    for name in ["first", "second"] {
        let accepted = services
            .workloads()
            .submit(WorkloadKind::Training, &root, one_gpu(name, "vision"))
            .await
            .expect("within the project's limit");
        ids.push(accepted.listing.workload.id);
    }
    let (first, second) = (ids[0], ids[1]);
    assert_eq!(actions(db, first).await, [HistoryAction::Submit]);
    let events = history(db, second).await;
    assert_eq!(
        actions(db, second).await,
        [HistoryAction::Submit, HistoryAction::OverQuota]
    );
    let noted = &events[1];
    assert_eq!(noted.actor_id, None, "Tephra's own entry: {noted:?}");
    let why = noted.detail["reason"].as_str().unwrap_or_default();
    assert!(why.contains("project \"vision\""), "{why}");

    for action in [Action::Suspend, Action::Resume] {
        services
            .workloads()
            .act(None, action, &root, &first.to_string())
            .await
            .expect("the first training suspends and resumes");
    }
    assert_eq!(
        actions(db, first).await,
        [
            HistoryAction::Submit,
            HistoryAction::Suspend,
            HistoryAction::Resume,
            HistoryAction::OverQuota
        ],
        "the second holds the quota now"
    );
}

/// Volcano evicts a running training: the status write that shows the preemption brings its
/// `workload.preempted` entry, with the phase change, in one transaction; a write derived for a
/// desired phase that has since changed stores neither; a later write of the same preemption
/// adds no second entry.
pub async fn a_preemption_is_in_the_history_with_the_status_that_shows_it(db: &Database, _: &str) {
    let (services, root) = with_project(db, "vision", gpus(Some(1.0), Some(4.0))).await;
    let accepted = services
        .workloads()
        .submit(WorkloadKind::Training, &root, one_gpu("evicted", "vision"))
        .await
        .unwrap();
    let id = accepted.listing.workload.id;
    let workloads = db.workloads();
    let running = LiveStatus::default();
    let write = |from, to, status| StatusWrite::new(Phase::Running, from, to, None, status);
    workloads
        .record_status(id, write(Phase::Creating, Phase::Running, &running))
        .await
        .unwrap()
        .expect("running");
    let evicted = LiveStatus {
        preemption: Some(Preemption {
            at: Some("2026-12-02T06:00:00Z".into()),
            message: "Pod is evicted, because of reclaim".into(),
            count: 1,
            episode: "job-uid/0".into(),
        }),
        ..LiveStatus::default()
    };
    let stale = StatusWrite {
        preempted: true,
        ..StatusWrite::new(
            Phase::Stopped,
            Phase::Running,
            Phase::Pending,
            None,
            &evicted,
        )
    };
    assert_eq!(workloads.record_status(id, stale).await.unwrap(), None);
    assert!(!actions(db, id).await.contains(&HistoryAction::Preempted));
    let shown = StatusWrite {
        preempted: true,
        ..write(Phase::Running, Phase::Pending, &evicted)
    };
    workloads
        .record_status(id, shown)
        .await
        .unwrap()
        .expect("written");
    let events = history(db, id).await;
    let [.., phase, preempted] = &events[..] else {
        panic!("{events:?}");
    };
    assert_eq!(phase.action, AuditAction::Workload(HistoryAction::Phase));
    assert_eq!(
        preempted.action,
        AuditAction::Workload(HistoryAction::Preempted)
    );
    assert_eq!(preempted.id, phase.id + 1, "written together");
    assert_eq!(
        preempted.detail["reason"],
        "Pod is evicted, because of reclaim"
    );
    assert_eq!(preempted.detail["count"], 1);
    // Still preempted, the pods' next change is written without a second entry.
    workloads
        .record_status(id, write(Phase::Pending, Phase::Pending, &evicted))
        .await
        .unwrap()
        .expect("written");
    assert_eq!(history(db, id).await.len(), events.len());
}

async fn history(db: &Database, id: Uuid) -> Vec<AuditEvent> {
    db.audit()
        .for_target(AuditTarget::Workload, id)
        .await
        .expect("history reads")
}

/// The workload actions of `id`'s history, in order.
async fn actions(db: &Database, id: Uuid) -> Vec<HistoryAction> {
    history(db, id)
        .await
        .into_iter()
        .filter_map(|e| match e.action {
            AuditAction::Workload(action) => Some(action),
            _ => None,
        })
        .collect()
}
