//! Repository stories, each run against SQLite and against a real PostgreSQL cluster.

mod access;
mod among;
mod kept;
mod lists;
mod policy;
mod quota;
mod rules;
mod security;

use access::{
    access_rules_are_unique_and_their_changes_audited,
    applications_act_as_their_own_user_and_revoke_once,
    lists_limited_to_some_projects_show_only_theirs,
};
use among::a_list_among_projects_merges_their_pages;
use app::error::AppError;
use kept::kept_logs_are_replaced_read_and_forgotten;
use lists::{
    a_name_search_follows_every_write, counts_follow_every_write,
    holders_and_waiting_gpus_follow_the_start, keyset_pages_walk_every_order_as_offsets_do,
    pending_time_adds_up_every_wait,
};
use policy::{
    a_projects_layers_read_from_it_match_its_scopes,
    policies_protect_nodes_narrow_inward_and_fill_defaults,
};
use quota::{
    a_projects_usage_splits_placed_and_waiting_work_by_user,
    concurrent_submissions_queue_beyond_the_limit,
    edits_are_admitted_without_their_own_use_and_one_of_racing_edits_wins,
    org_units_check_quotas_and_refuse_deleting_what_is_used,
};
use rules::scheduling_rules_are_stored_checked_cleared_and_listed;
use security::{
    an_unreadable_policy_fails_closed, inner_policies_cannot_unlock_what_the_system_locks,
    offered_entries_are_compared_whole, researchers_cannot_reach_past_their_pods,
    strangers_learn_nothing_of_a_projects_policy,
    tenants_cannot_choose_a_namespace_tephra_does_not_own,
};
use serde_json::json;
use server::db::projects::{DEFAULT_PROJECT, NewProject};
use server::db::users::Identity;
use server::db::workloads::{Change, NewWorkload, SortKey, StoredWorkload, WorkloadFilter};
use server::db::{Database, DbError};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::history::{AuditAction, AuditTarget, HistoryAction};
use tephra_core::model::phase::Phase;
use tephra_core::model::principal::Principal;
use tephra_tests::postgres::TempPostgres;
use uuid::Uuid;

/// Keeps what a database lives on alive for the length of a test.
#[allow(dead_code)]
enum Guard {
    Sqlite(tempfile::TempDir),
    Postgres(TempPostgres),
}

async fn sqlite() -> (Database, Guard, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}/nested/data/tephra.db", dir.path().display());
    let db = Database::connect(&url).await.expect("SQLite opens");
    (db, Guard::Sqlite(dir), url)
}

async fn postgres() -> (Database, Guard, String) {
    let pg = TempPostgres::start().expect("PostgreSQL starts (run scripts/setup to install it)");
    let url = pg
        .create_database("tephra")
        .await
        .expect("database created");
    let db = Database::connect(&url).await.expect("PostgreSQL opens");
    (db, Guard::Postgres(pg), url)
}

macro_rules! on_both_engines {
    ($($story:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $story() {
                    let (db, _guard, url) = super::sqlite().await;
                    super::$story(&db, &url).await;
                    db.close().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $story() {
                    let (db, _guard, url) = super::postgres().await;
                    super::$story(&db, &url).await;
                    db.close().await;
                }
            )*
        }
    };
}

on_both_engines!(
    reopening_keeps_data_and_the_default_project,
    projects_are_unique_by_name_namespace_and_queue,
    users_are_recorded_once_per_identity,
    workloads_round_trip_and_change_phase,
    deleted_workloads_free_their_name_and_leave_lists,
    workload_lists_filter_and_paginate,
    keyset_pages_walk_every_order_as_offsets_do,
    a_list_among_projects_merges_their_pages,
    counts_follow_every_write,
    a_name_search_follows_every_write,
    pending_time_adds_up_every_wait,
    holders_and_waiting_gpus_follow_the_start,
    kept_logs_are_replaced_read_and_forgotten,
    bad_references_store_nothing,
    the_audit_trail_keeps_order,
    racing_transitions_have_exactly_one_winner,
    status_is_written_only_for_the_desired_phase_it_was_derived_for,
    a_finish_is_stamped_once,
    settings_are_created_once,
    bad_input_gets_the_same_400_on_both_engines_and_stores_nothing,
    access_rules_are_unique_and_their_changes_audited,
    applications_act_as_their_own_user_and_revoke_once,
    lists_limited_to_some_projects_show_only_theirs,
    concurrent_submissions_queue_beyond_the_limit,
    org_units_check_quotas_and_refuse_deleting_what_is_used,
    policies_protect_nodes_narrow_inward_and_fill_defaults,
    a_projects_layers_read_from_it_match_its_scopes,
    a_projects_usage_splits_placed_and_waiting_work_by_user,
    edits_are_admitted_without_their_own_use_and_one_of_racing_edits_wins,
    scheduling_rules_are_stored_checked_cleared_and_listed,
    tenants_cannot_choose_a_namespace_tephra_does_not_own,
    inner_policies_cannot_unlock_what_the_system_locks,
    offered_entries_are_compared_whole,
    researchers_cannot_reach_past_their_pods,
    an_unreadable_policy_fails_closed,
    strangers_learn_nothing_of_a_projects_policy,
);

async fn racing_transitions_have_exactly_one_winner(db: &Database, _: &str) {
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

async fn status_is_written_only_for_the_desired_phase_it_was_derived_for(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "tracker").await;
    let w = suspended(db, training(project.id, creator, "watched")).await;
    // Derived while the workload was still wanted Running: stale, not written.
    let stale = db
        .workloads()
        .record_status(
            w.id,
            Phase::Running,
            Phase::Creating,
            Phase::Running,
            None,
            &Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(stale, None);
    // The same phase is written in one statement, not a transaction: it is guarded all the same.
    let same_phase = db
        .workloads()
        .record_status(
            w.id,
            Phase::Running,
            Phase::Creating,
            Phase::Creating,
            Some("stale reason"),
            &Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(same_phase, None);
    let now = db.workloads().get(w.id).await.unwrap();
    assert_eq!(now.actual_phase, Phase::Creating);
    assert_eq!(now.phase_reason, None);
}

async fn a_finish_is_stamped_once(db: &Database, _: &str) {
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
        workloads.record_status(w.id, Phase::Running, previous, phase, None, &idle)
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

async fn settings_are_created_once(db: &Database, _: &str) {
    let first = db
        .settings()
        .get_or_create("owner-key", || "one".into())
        .await
        .unwrap();
    let second = db
        .settings()
        .get_or_create("owner-key", || "two".into())
        .await
        .unwrap();
    assert_eq!((first.as_str(), second.as_str()), ("one", "one"));
}

pub(crate) async fn user(db: &Database, subject: &str) -> Uuid {
    let identity = Identity {
        issuer: "https://idp.example".into(),
        subject: subject.into(),
        display_name: format!("User {subject}"),
        email: Some(format!("{subject}@example.com")),
        uid: None,
        gid: None,
        groups: Vec::new(),
    };
    db.users().upsert(&identity).await.expect("user stored").id
}

fn training(project_id: Uuid, created_by: Uuid, name: &str) -> NewWorkload {
    NewWorkload {
        project_id,
        name: name.into(),
        requested_name: name.into(),
        cluster_id: "default".into(),
        kind: WorkloadKind::Training,
        spec: json!({ "image": "pytorch/pytorch:2.4", "compute": { "gpuDevicesRequest": 1 } }),
        created_by,
        job_ttl_seconds: None,
        starts_paused: false,
        demand: Default::default(),
    }
}

/// The history entry of a submit.
fn submitted(actor: Uuid) -> Change {
    Change {
        actor: Some(actor),
        action: HistoryAction::Submit,
        detail: json!({}),
    }
}

/// Submits a workload and suspends it.
async fn suspended(db: &Database, new: NewWorkload) -> StoredWorkload {
    let w = db
        .workloads()
        .insert(&new, submitted(new.created_by))
        .await
        .unwrap();
    db.workloads()
        .transition(
            w.id,
            Phase::Running,
            Phase::Stopped,
            acted("workload.suspend"),
        )
        .await
        .unwrap()
        .unwrap()
}

fn acted(action: &'static str) -> Change {
    Change {
        actor: None,
        action: AuditAction::parse(action)
            .and_then(AuditAction::on_workload)
            .expect("a workload's action"),
        detail: json!({}),
    }
}

/// Deletes workload `id` as a delete does: asked for (Deleting), then marked deleted once its
/// objects are gone.
pub(crate) async fn delete_workload(db: &Database, id: Uuid) {
    db.workloads()
        .transition(
            id,
            Phase::Running,
            Phase::Deleting,
            acted("workload.delete"),
        )
        .await
        .unwrap();
    db.workloads().mark_deleted(id).await.unwrap();
}

async fn reopening_keeps_data_and_the_default_project(db: &Database, url: &str) {
    let first = db.projects().ensure_default().await.unwrap();
    assert_eq!(first.name, DEFAULT_PROJECT);
    assert_eq!(first.namespace, "tephra-default");
    assert_eq!(first.queue, "tephra-default");

    // A second process (or a restart) migrates again and finds the same project.
    let again = Database::connect(url)
        .await
        .expect("migrations are idempotent");
    let second = again.projects().ensure_default().await.unwrap();
    assert_eq!(first, second);
    assert_eq!(again.projects().count().await.unwrap(), 1);
    again.ping().await.unwrap();
    again.close().await;
}

async fn projects_are_unique_by_name_namespace_and_queue(db: &Database, _: &str) {
    let vision = db
        .projects()
        .create(&NewProject::named("vision"))
        .await
        .unwrap();
    assert_eq!(db.projects().by_name("vision").await.unwrap(), vision);
    assert_eq!(db.projects().get(vision.id).await.unwrap(), vision);

    let err = db
        .projects()
        .create(&NewProject::named("vision"))
        .await
        .unwrap_err();
    match err {
        DbError::Conflict(message) => assert!(message.contains("\"vision\""), "{message}"),
        other => panic!("expected a conflict, got {other:?}"),
    }
    let mut same_queue = NewProject::named("speech");
    same_queue.queue = vision.queue.clone();
    assert!(matches!(
        db.projects().create(&same_queue).await,
        Err(DbError::Conflict(_))
    ));

    db.projects()
        .create(&NewProject::named("audio"))
        .await
        .unwrap();
    let names: Vec<String> = db
        .projects()
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.project.name)
        .collect();
    assert_eq!(names, ["audio", "vision"]);
    assert!(matches!(
        db.projects().by_name("nope").await,
        Err(DbError::NotFound)
    ));
}

async fn users_are_recorded_once_per_identity(db: &Database, _: &str) {
    let mut identity = Identity {
        issuer: "https://idp.example".into(),
        subject: "u-1".into(),
        display_name: "Ada".into(),
        email: None,
        uid: Some(1000),
        gid: None,
        groups: vec!["ml-team".into()],
    };
    let first = db.users().upsert(&identity).await.unwrap();
    assert_eq!(first.groups.0, ["ml-team"]);
    identity.display_name = "Ada Lovelace".into();
    identity.email = Some("ada@example.com".into());
    identity.groups = vec!["vision".into(), "speech".into()];
    let second = db.users().upsert(&identity).await.unwrap();
    assert_eq!(first.id, second.id, "the same identity keeps its id");
    assert_eq!(second.display_name, "Ada Lovelace");
    assert_eq!(second.email.as_deref(), Some("ada@example.com"));
    assert_eq!(
        second.groups.0,
        ["vision", "speech"],
        "the groups of the last sign-in"
    );
    assert!(second.last_seen_at >= first.last_seen_at);
    assert_eq!(second.created_at, first.created_at);

    // The same subject at another issuer is another person.
    identity.issuer = "https://other.example".into();
    let other = db.users().upsert(&identity).await.unwrap();
    assert_ne!(other.id, first.id);
    assert_eq!(db.users().count().await.unwrap(), 2);
    assert_eq!(db.users().get(first.id).await.unwrap(), second);
}

async fn workloads_round_trip_and_change_phase(db: &Database, _: &str) {
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
            Phase::Running,
            Phase::Creating,
            Phase::Pending,
            Some("the gang needs 4 GPUs; 3 are free"),
            &tephra_core::model::workload::LiveStatus {
                job_phase: Some("Pending".into()),
                retry_count: 1,
                ..Default::default()
            },
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
            Phase::Running,
            Phase::Pending,
            Phase::Running,
            None,
            &Default::default(),
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
                Phase::Running,
                Phase::Running,
                Phase::Failed,
                None,
                &Default::default()
            )
            .await
            .unwrap(),
        None,
        "nothing to write"
    );
}

async fn deleted_workloads_free_their_name_and_leave_lists(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "bob").await;
    let first = db
        .workloads()
        .insert(&training(project.id, creator, "bert"), submitted(creator))
        .await
        .unwrap();
    match db
        .workloads()
        .insert(&training(project.id, creator, "bert"), submitted(creator))
        .await
    {
        Err(DbError::Conflict(message)) => assert!(message.contains("\"bert\""), "{message}"),
        other => panic!("expected a conflict, got {other:?}"),
    }

    assert_eq!(
        db.workloads().mark_deleted(first.id).await.unwrap(),
        None,
        "only a workload whose deletion was asked for is marked deleted"
    );
    db.workloads()
        .transition(
            first.id,
            Phase::Running,
            Phase::Deleting,
            acted("workload.delete"),
        )
        .await
        .unwrap()
        .unwrap();
    let deleted = db
        .workloads()
        .mark_deleted(first.id)
        .await
        .unwrap()
        .unwrap();
    assert!(deleted.deleted_at.is_some());
    assert_eq!(
        deleted,
        db.workloads().get(first.id).await.unwrap(),
        "the row marking it deleted returns is the row as stored"
    );
    assert_eq!(db.workloads().mark_deleted(first.id).await.unwrap(), None);
    let second = db
        .workloads()
        .insert(&training(project.id, creator, "bert"), submitted(creator))
        .await
        .unwrap();

    let live = db
        .workloads()
        .list(&WorkloadFilter::default())
        .await
        .unwrap();
    assert_eq!(
        live.iter().map(|l| l.workload.id).collect::<Vec<_>>(),
        [second.id]
    );
    assert_eq!(live[0].project_name, "default");
    assert_eq!(
        live[0].creator_name, "bob@example.com",
        "the email, as the API shows it"
    );
    let all = db
        .workloads()
        .list(&WorkloadFilter {
            include_deleted: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(
        db.workloads().count_by_phase(None).await.unwrap(),
        vec![(Phase::Creating, 1)]
    );
    let counts = db.projects().list().await.unwrap();
    assert_eq!(counts[0].workloads, 1, "deleted workloads are not counted");
}

async fn workload_lists_filter_and_paginate(db: &Database, _: &str) {
    let default = db.projects().ensure_default().await.unwrap();
    let other = db
        .projects()
        .create(&NewProject::named("nlp"))
        .await
        .unwrap();
    let creator = user(db, "carol").await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let project = if i % 2 == 0 { default.id } else { other.id };
        ids.push(
            db.workloads()
                .insert(
                    &training(project, creator, &format!("job-{i}")),
                    submitted(creator),
                )
                .await
                .unwrap()
                .id,
        );
    }
    let newest_first: Vec<Uuid> = ids.iter().rev().copied().collect();

    let page = |limit, offset| WorkloadFilter {
        limit: Some(limit),
        offset,
        ..Default::default()
    };
    let mut paged = Vec::new();
    for offset in [0, 2, 4] {
        let page = db.workloads().list(&page(2, offset)).await.unwrap();
        paged.extend(page.iter().map(|l| l.workload.id));
    }
    assert_eq!(paged, newest_first);

    let in_nlp = db
        .workloads()
        .list(&WorkloadFilter {
            project_id: Some(other.id),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(in_nlp.len(), 2);
    assert!(in_nlp.iter().all(|l| l.project_name == "nlp"));

    // Filters combine, and the count ignores the page.
    let others = user(db, "zed").await;
    let mut distributed = training(default.id, others, "ddp_100%");
    distributed.kind = WorkloadKind::Distributed;
    let ddp = db
        .workloads()
        .insert(&distributed, submitted(others))
        .await
        .unwrap();
    db.workloads()
        .record_status(
            ddp.id,
            Phase::Running,
            Phase::Creating,
            Phase::Running,
            None,
            &Default::default(),
        )
        .await
        .unwrap();
    let only = |filter: WorkloadFilter| async move {
        let listed = db.workloads().list(&filter).await.unwrap();
        if filter.limit.is_none() {
            let count = db.workloads().count(&filter).await.unwrap();
            assert_eq!(count as usize, listed.len(), "count agrees with the list");
        }
        listed
            .into_iter()
            .map(|l| l.workload.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        only(WorkloadFilter {
            kind: Some(WorkloadKind::Distributed),
            ..Default::default()
        })
        .await,
        ["ddp_100%"]
    );
    assert_eq!(
        only(WorkloadFilter {
            actual_phase: Some(Phase::Running),
            ..Default::default()
        })
        .await,
        ["ddp_100%"]
    );
    for creator in ["zed@example.com", "User zed"] {
        let filter = WorkloadFilter {
            creator: Some(creator.into()),
            ..Default::default()
        };
        assert_eq!(only(filter).await, ["ddp_100%"], "by {creator}");
    }
    // LIKE's wildcards in the search text match themselves only.
    for (part, expected) in [
        ("DDP_1", 1),
        ("0%", 1),
        ("_", 1),
        ("%", 1),
        ("job-", 5),
        ("b-3", 1),
    ] {
        let filter = WorkloadFilter {
            name_contains: Some(part.into()),
            ..Default::default()
        };
        assert_eq!(
            only(filter).await.len(),
            expected,
            "names containing {part:?}"
        );
    }
    let by_name = only(WorkloadFilter {
        sort: SortKey::Name,
        ascending: true,
        limit: Some(3),
        offset: 1,
        ..Default::default()
    })
    .await;
    assert_eq!(by_name, ["job-0", "job-1", "job-2"], "ddp_100% sorts first");
    assert_eq!(
        db.workloads()
            .count(&WorkloadFilter::default())
            .await
            .unwrap(),
        6
    );
}

async fn bad_references_store_nothing(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "dave").await;
    let orphan = training(Uuid::new_v4(), creator, "orphan");
    let err = db
        .workloads()
        .insert(&orphan, submitted(creator))
        .await
        .unwrap_err();
    assert!(
        matches!(err, DbError::NotFound),
        "a missing project is not a name conflict: {err:?}"
    );
    let ghost = training(project.id, Uuid::new_v4(), "ghost");
    assert!(
        db.workloads()
            .insert(&ghost, acted("workload.submit"))
            .await
            .is_err()
    );
    let listed = db
        .workloads()
        .list(&WorkloadFilter {
            include_deleted: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(listed.is_empty(), "nothing was stored: {listed:?}");
}

async fn the_audit_trail_keeps_order(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let actor = user(db, "erin").await;
    let workload = db
        .workloads()
        .insert(&training(project.id, actor, "gpt"), submitted(actor))
        .await
        .unwrap();
    // The submit's history entry was written with the row.
    db.audit()
        .record(
            None,
            AuditAction::parse("workload.phase").unwrap(),
            AuditTarget::Workload,
            workload.id,
            json!({ "to": "Running" }),
        )
        .await
        .unwrap();
    db.audit()
        .record(
            Some(actor),
            AuditAction::parse("workload.suspend").unwrap(),
            AuditTarget::Workload,
            workload.id,
            json!({}),
        )
        .await
        .unwrap();
    db.audit()
        .record(
            Some(actor),
            AuditAction::parse("workload.submit").unwrap(),
            AuditTarget::Workload,
            Uuid::new_v4(),
            json!({}),
        )
        .await
        .unwrap();

    let trail = db
        .audit()
        .for_target(AuditTarget::Workload, workload.id)
        .await
        .unwrap();
    let actions: Vec<&str> = trail.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        ["workload.submit", "workload.phase", "workload.suspend"]
    );
    assert_eq!(trail[1].actor_id, None);
    assert_eq!(trail[1].detail, json!({ "to": "Running" }));
    assert!(trail.windows(2).all(|w| w[0].at <= w[1].at));
}

/// What PostgreSQL cannot store (U+0000) and numbers Kubernetes cannot hold are refused by the
/// service before the database sees them, so both engines answer alike. Without the check,
/// PostgreSQL failed the insert with a 500 while SQLite stored the NUL.
async fn bad_input_gets_the_same_400_on_both_engines_and_stores_nothing(db: &Database, _: &str) {
    db.projects().ensure_default().await.unwrap();
    let user_id = user(db, "mallory").await;
    let services = quota::services(db).await;
    let principal = Principal {
        user_id: user_id.to_string(),
        subject: "mallory".into(),
        display_name: "Mallory".into(),
        email: None,
        groups: Vec::new(),
        admin: true,
        dev_login: true,
        application: None,
        uid: None,
        gid: None,
        grants: vec![tephra_core::model::principal::Grant {
            role: tephra_core::domain::authz::Role::SystemAdministrator,
            scope: tephra_core::domain::authz::Scope::System,
            scope_name: String::new(),
        }],
    };
    let nul = "must not contain a NUL character (\\u0000)";
    let training = |spec: serde_json::Value| {
        let mut spec = spec;
        spec["image"] = json!("pytorch/pytorch:2.4");
        json!({ "name": "bad", "projectId": "default", "spec": spec })
    };
    let cases = [
        (
            WorkloadKind::Training,
            training(json!({ "command": "python\u{0} train.py" })),
            "spec.command",
            nul.to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(json!({ "environmentVariables": [{ "name": "A", "value": "x\u{0}" }] })),
            "spec.environmentVariables[0].value",
            nul.to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(
                json!({ "probes": { "readiness": { "periodSeconds": 4294967297u64,
                "handler": { "httpGet": { "port": 8080 } } } } }),
            ),
            "spec.probes.readiness.periodSeconds",
            "must be between 1 and 2147483647 (got 4294967297)".to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(json!({ "compute": { "cpuMemoryRequest": "1e400" } })),
            "spec.compute.cpuMemoryRequest",
            "must be below 8Ei (2^63 base units, the most Kubernetes can count) (got \"1e400\")"
                .to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(json!({ "parallelism": 3000000 })),
            "spec.parallelism",
            "asks for 3000000 pods at once; this Tephra allows at most 1000 per workload \
             (--max-pods-per-workload)"
                .to_owned(),
        ),
        (
            // Looked up before the request is parsed; PostgreSQL cannot even query it.
            WorkloadKind::Training,
            json!({ "name": "bad", "projectId": "\u{0}", "spec": { "image": "x" } }),
            "projectId",
            nul.to_owned(),
        ),
        (
            WorkloadKind::Distributed,
            json!({ "name": "bad", "projectId": "default", "spec": {
                "image": "x", "distributedFramework": "PyTorch", "numWorkers": 1,
                "master": { "image": "y", "args": "\u{0}" } } }),
            "spec.master.args",
            nul.to_owned(),
        ),
    ];
    for (kind, body, field, message) in cases {
        for preview in [false, true] {
            let err = if preview {
                services
                    .workloads()
                    .preview(kind, &principal, &body)
                    .await
                    .unwrap_err()
            } else {
                services
                    .workloads()
                    .submit(kind, &principal, body.clone())
                    .await
                    .unwrap_err()
            };
            let errors = err.field_errors();
            assert!(matches!(err, AppError::Rejected(_)), "{err:?}");
            let details: Vec<(&str, &str)> = errors
                .iter()
                .map(|d| (d.path.as_str(), d.message.as_str()))
                .collect();
            assert_eq!(details, [(field, message.as_str())], "{body}");
        }
    }
    let stored = db
        .workloads()
        .list(&WorkloadFilter {
            include_deleted: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(stored.is_empty(), "nothing was stored: {stored:?}");

    // The same path stores a valid request on this engine.
    let fine = training(json!({ "command": "python train.py", "parallelism": 1000 }));
    services
        .workloads()
        .submit(WorkloadKind::Training, &principal, fine)
        .await
        .expect("a valid request is stored");
}

#[tokio::test]
async fn sqlite_creates_its_directory_and_uses_wal() {
    let (db, _guard, url) = sqlite().await;
    let path = url.trim_start_matches("sqlite:");
    assert!(std::path::Path::new(path).exists(), "{path} was created");
    let Database::Sqlite(server::db::SqliteDb { pool, .. }) = &db else {
        panic!("expected SQLite")
    };
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    db.close().await;
}
