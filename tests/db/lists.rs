//! Keyset pages: following each page's last row (`After`) walks a list in every order and
//! direction exactly as offsets do, with the filters still applied.

use super::{acted, delete_workload, submitted, training, user};
use server::db::Database;
use server::db::projects::NewProject;
use server::db::workloads::{After, SortKey, WorkloadFilter};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::phase::Phase;
use uuid::Uuid;

pub(crate) async fn keyset_pages_walk_every_order_as_offsets_do(db: &Database, _: &str) {
    let project = db
        .projects()
        .create(&NewProject::named("vision"), None)
        .await
        .unwrap();
    let elsewhere = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "keys").await;
    // Names out of creation order, phases repeating, and a row in another project.
    for (i, name) in [
        "delta", "alpha", "echo", "bravo", "golf", "charlie", "foxtrot",
    ]
    .iter()
    .enumerate()
    {
        let id = submit(db, project.id, creator, name).await;
        set_phase(
            db,
            id,
            Phase::Creating,
            [Phase::Running, Phase::Failed, Phase::Completed][i % 3],
        )
        .await;
    }
    submit(db, elsewhere.id, creator, "other").await;
    let orders = [
        SortKey::CreatedAt,
        SortKey::Name,
        SortKey::ActualPhase,
        SortKey::UpdatedAt,
    ];
    for sort in orders {
        for ascending in [true, false] {
            let filter = WorkloadFilter {
                project_id: Some(project.id),
                sort,
                ascending,
                ..WorkloadFilter::default()
            };
            let whole = ids(db, &filter).await;
            assert_eq!(whole.len(), 7, "{sort:?}");
            let (walked, after) = walk(db, &filter, 3).await;
            assert_eq!(walked, whole, "{sort:?}, ascending {ascending}");
            let count = db
                .workloads()
                .count(&WorkloadFilter { after, ..filter })
                .await
                .unwrap();
            assert_eq!(count, 7, "the count ignores where the page starts");
        }
    }
    // Ties in the first column are broken by the next, so a filtered walk loses nothing either.
    let failed = WorkloadFilter {
        project_id: Some(project.id),
        actual_phase: Some(Phase::Failed),
        sort: SortKey::ActualPhase,
        limit: Some(1),
        ..WorkloadFilter::default()
    };
    let first = db.workloads().list(&failed).await.unwrap();
    let second = db
        .workloads()
        .list(&WorkloadFilter {
            after: Some(After::of(SortKey::ActualPhase, &first[0].workload)),
            ..failed.clone()
        })
        .await
        .unwrap();
    assert_eq!(first.len() + second.len(), 2);
    assert_ne!(first[0].workload.id, second[0].workload.id);
}

/// The counts a list answers are kept by triggers: they agree with the rows through inserts,
/// phase changes, a write that keeps the phase, and deletion.
pub(crate) async fn counts_follow_every_write(db: &Database, _: &str) {
    let project = db
        .projects()
        .create(&NewProject::named("nlp"), None)
        .await
        .unwrap();
    let creator = user(db, "counter").await;
    let mut stored = Vec::new();
    for i in 0..6 {
        stored.push(submit(db, project.id, creator, &format!("c-{i}")).await);
    }
    for (i, id) in stored.iter().enumerate().take(4) {
        let phase = if i < 2 { Phase::Running } else { Phase::Failed };
        set_phase(db, *id, Phase::Creating, phase).await;
    }
    // Written again in the same phase: no change to count.
    set_phase(db, stored[0], Phase::Running, Phase::Running).await;
    db.workloads()
        .transition(
            stored[5],
            Phase::Running,
            Phase::Deleting,
            acted("workload.delete"),
        )
        .await
        .unwrap();
    assert!(
        db.workloads()
            .mark_deleted(stored[5])
            .await
            .unwrap()
            .is_some()
    );
    for (phase, expected) in [
        (None, 5),
        (Some(Phase::Running), 2),
        (Some(Phase::Failed), 2),
        (Some(Phase::Creating), 1),
        (Some(Phase::Completed), 0),
    ] {
        let filter = WorkloadFilter {
            project_id: Some(project.id),
            kind: Some(WorkloadKind::Training),
            actual_phase: phase,
            ..WorkloadFilter::default()
        };
        let counted = db.workloads().count(&filter).await.unwrap();
        assert_eq!(counted, expected, "{phase:?}");
        assert_eq!(ids(db, &filter).await.len() as i64, counted, "{phase:?}");
    }
    let everything = db
        .workloads()
        .count(&WorkloadFilter::default())
        .await
        .unwrap();
    let listed = ids(db, &WorkloadFilter::default()).await.len() as i64;
    assert_eq!(everything, listed);
    let among = WorkloadFilter {
        projects_among: Some(vec!["nlp".into()]),
        ..WorkloadFilter::default()
    };
    assert_eq!(db.workloads().count(&among).await.unwrap(), 5);
    let none = WorkloadFilter {
        projects_among: Some(Vec::new()),
        ..WorkloadFilter::default()
    };
    assert_eq!(db.workloads().count(&none).await.unwrap(), 0);
}

pub(crate) async fn submit(db: &Database, project: Uuid, creator: Uuid, name: &str) -> Uuid {
    let new = training(project, creator, name);
    db.workloads()
        .insert(&new, submitted(creator))
        .await
        .unwrap()
        .id
}

/// Records the cluster's report that `id` went from `previous` to `phase`.
pub(crate) async fn set_phase(db: &Database, id: Uuid, previous: Phase, phase: Phase) {
    let status = Default::default();
    db.workloads()
        .record_status(
            id,
            server::db::workloads::StatusWrite::new(Phase::Running, previous, phase, None, &status),
        )
        .await
        .unwrap();
}

/// Every row of `filter`'s list, page by page of `size` following each page's last row; and
/// where the walk ended.
pub(crate) async fn walk(
    db: &Database,
    filter: &WorkloadFilter,
    size: i64,
) -> (Vec<Uuid>, Option<After>) {
    let mut walked = Vec::new();
    let mut after = None;
    loop {
        let page = db
            .workloads()
            .list(&WorkloadFilter {
                limit: Some(size),
                after: after.clone(),
                ..filter.clone()
            })
            .await
            .unwrap();
        let Some(last) = page.last() else {
            return (walked, after);
        };
        after = Some(After::of(filter.sort, &last.workload));
        walked.extend(page.iter().map(|l| l.workload.id));
    }
}

pub(crate) async fn ids(db: &Database, filter: &WorkloadFilter) -> Vec<Uuid> {
    let listed = db.workloads().list(filter).await.unwrap();
    listed.iter().map(|l| l.workload.id).collect()
}

/// A name search answers from the trigram index for three characters or more and by comparing
/// names below that, with the same results: any case, quotes and LIKE's wildcards taken as
/// text, deleted rows left out, and a removed row's name gone from the index with it (a row
/// that takes its place must not match the old name).
pub(crate) async fn a_name_search_follows_every_write(db: &Database, _: &str) {
    let project = db
        .projects()
        .create(&NewProject::named("search"), None)
        .await
        .unwrap();
    let creator = user(db, "seeker").await;
    let mut stored = Vec::new();
    for name in ["resnet-50", "resnet-101", "bert-large", "gpt-2"] {
        stored.push(submit(db, project.id, creator, name).await);
    }
    let found = |part: &'static str| {
        let filter = WorkloadFilter {
            name_contains: Some(part.into()),
            sort: SortKey::Name,
            ascending: true,
            ..WorkloadFilter::default()
        };
        async move {
            let listed = db.workloads().list(&filter).await.unwrap();
            let names: Vec<String> = listed.into_iter().map(|l| l.workload.name).collect();
            let counted = db.workloads().count(&filter).await.unwrap();
            assert_eq!(counted as usize, names.len(), "the count of {part:?}");
            names
        }
    };
    assert_eq!(found("RESNET").await, ["resnet-101", "resnet-50"]);
    assert_eq!(found("net-1").await, ["resnet-101"]);
    assert_eq!(
        found("t-").await.len(),
        4,
        "two characters: every name compared"
    );
    for nothing in ["re\"s", "\"", "%net", "net_", "resnet-5o"] {
        assert!(found(nothing).await.is_empty(), "{nothing:?}");
    }
    // Deleted: gone from the search; the name submitted again is found once.
    delete_workload(db, stored[0]).await;
    assert_eq!(found("resnet").await, ["resnet-101"]);
    submit(db, project.id, creator, "resnet-50").await;
    assert_eq!(found("resnet").await, ["resnet-101", "resnet-50"]);
    // A project's removal drops its rows; the next row may reuse a removed one's place.
    let gone = db
        .projects()
        .create(&NewProject::named("gone"), None)
        .await
        .unwrap();
    let doomed = submit(db, gone.id, creator, "resnet-gone").await;
    delete_workload(db, doomed).await;
    db.projects().delete(&gone, None).await.unwrap().unwrap();
    submit(db, project.id, creator, "plain").await;
    assert_eq!(found("resnet").await, ["resnet-101", "resnet-50"]);
    assert_eq!(found("plain").await, ["plain"]);
    // With the other conditions beside it (SQLite counts from the matches, then the rows):
    // only this project's, only this creator's (a join), only the live ones.
    let other = user(db, "other").await;
    submit(db, project.id, other, "resnet-other").await;
    let mine = |part: &str, creator: &str| WorkloadFilter {
        name_contains: Some(part.into()),
        project_id: Some(project.id),
        creator: Some(creator.into()),
        ..WorkloadFilter::default()
    };
    for (part, creator, expected) in [
        ("resnet", "seeker@example.com", 2),
        ("resnet", "User other", 1),
        ("net-1", "seeker@example.com", 1),
        ("gone", "seeker@example.com", 0),
        ("et", "seeker@example.com", 2),
    ] {
        let filter = mine(part, creator);
        let counted = db.workloads().count(&filter).await.unwrap();
        let listed = db.workloads().list(&filter).await.unwrap().len();
        assert_eq!(
            (counted, listed),
            (expected, expected as usize),
            "{part:?} by {creator}"
        );
    }
}
