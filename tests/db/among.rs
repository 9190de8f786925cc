//! A list among a few projects (a researcher's) is read project by project and merged: every
//! order and direction, every page by offset and by keyset, and a phase filter give the rows of
//! those projects exactly as the list of every project orders them.

use super::lists::{ids, set_phase, submit, walk};
use super::user;
use server::db::Database;
use server::db::projects::NewProject;
use server::db::workloads::{SortKey, WorkloadFilter};
use tephra_core::model::phase::Phase;

pub(crate) async fn a_list_among_projects_merges_their_pages(db: &Database, _: &str) {
    let creator = user(db, "among").await;
    let mut projects = Vec::new();
    for name in ["mine", "big", "also-mine"] {
        projects.push(
            db.projects()
                .create(&NewProject::named(name), None)
                .await
                .unwrap(),
        );
    }
    // Interleaved across the three, names and phases out of creation order.
    for i in 0..12 {
        let project = &projects[i % 3];
        let name = format!("{}-{}", ["kilo", "alpha", "echo", "bravo"][i % 4], i);
        let id = submit(db, project.id, creator, &name).await;
        let phase = [Phase::Running, Phase::Failed, Phase::Completed][i % 3 / 2 + i % 2];
        set_phase(db, id, Phase::Creating, phase).await;
    }
    let mine: Vec<String> = vec!["mine".into(), "also-mine".into()];
    let theirs = |listed: &[server::db::workloads::WorkloadListing]| {
        listed
            .iter()
            .filter(|l| l.project_name != "big")
            .map(|l| l.workload.id)
            .collect::<Vec<_>>()
    };
    for sort in [
        SortKey::CreatedAt,
        SortKey::Name,
        SortKey::ActualPhase,
        SortKey::UpdatedAt,
    ] {
        for ascending in [true, false] {
            for phase in [None, Some(Phase::Failed)] {
                let every = WorkloadFilter {
                    sort,
                    ascending,
                    actual_phase: phase,
                    ..WorkloadFilter::default()
                };
                let expected = theirs(&db.workloads().list(&every).await.unwrap());
                let among = WorkloadFilter {
                    projects_among: Some(mine.clone()),
                    ..every.clone()
                };
                let case = format!("{sort:?}, ascending {ascending}, {phase:?}");
                assert_eq!(ids(db, &among).await, expected, "unpaged: {case}");
                for offset in 0..=expected.len() as i64 {
                    let page = WorkloadFilter {
                        limit: Some(3),
                        offset,
                        ..among.clone()
                    };
                    let want: Vec<_> = expected.iter().skip(offset as usize).take(3).collect();
                    let got = ids(db, &page).await;
                    assert_eq!(
                        got.iter().collect::<Vec<_>>(),
                        want,
                        "offset {offset}: {case}"
                    );
                }
                let (walked, _) = walk(db, &among, 2).await;
                assert_eq!(walked, expected, "keyset: {case}");
            }
        }
    }
    // A project that does not exist among them adds nothing.
    let with_unknown = WorkloadFilter {
        projects_among: Some(vec!["mine".into(), "nowhere".into()]),
        limit: Some(50),
        ..WorkloadFilter::default()
    };
    assert_eq!(ids(db, &with_unknown).await.len(), 4);
}
