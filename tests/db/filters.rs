//! What a list of workloads shows: its filters and offset pages (keyset pages are `lists`), and
//! workloads leaving it once deleted.

use super::{acted, submitted, training, user};
use server::db::projects::NewProject;
use server::db::workloads::{SortKey, WorkloadFilter};
use server::db::{Database, DbError};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::phase::Phase;
use uuid::Uuid;

pub async fn deleted_workloads_free_their_name_and_leave_lists(db: &Database, _: &str) {
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

pub async fn workload_lists_filter_and_paginate(db: &Database, _: &str) {
    let default = db.projects().ensure_default().await.unwrap();
    let other = db
        .projects()
        .create(&NewProject::named("nlp"), None)
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
            super::moved(Phase::Running, Phase::Creating, Phase::Running),
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
