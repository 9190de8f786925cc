//! The kept last lines of a failing training's logs on both engines: replaced whole when read
//! again, read back as kept, and dropped after the retention or once the workload is deleted.

use super::{delete_workload, submitted, training, user};
use chrono::{Duration, Utc};
use server::db::Database;
use server::db::projects::NewProject;
use tephra_core::model::kept::{HintKind, KeptLog, LogHint};

fn tail(pod: &str, lines: &[&str]) -> KeptLog {
    KeptLog {
        pod: pod.to_owned(),
        container: "train".to_owned(),
        previous: pod.ends_with('1'),
        lines: lines.iter().map(|l| (*l).to_owned()).collect(),
        taken_at: String::new(),
        hints: vec![LogHint {
            kind: HintKind::Nccl,
            line: lines[0].to_owned(),
            meaning: "NCCL".to_owned(),
        }],
    }
}

pub(crate) async fn kept_logs_are_replaced_read_and_forgotten(db: &Database, _: &str) {
    let project = db
        .projects()
        .create(&NewProject::named("kept"), None)
        .await
        .unwrap();
    let creator = user(db, "keeper").await;
    let insert = |name: &'static str| {
        let db = db.clone();
        async move {
            db.workloads()
                .insert(&training(project.id, creator, name), submitted(creator))
                .await
                .unwrap()
                .id
        }
    };
    let (failed, doomed) = (insert("failed").await, insert("doomed").await);
    let workloads = db.workloads();
    let first = [tail("p-0", &["NCCL WARN one", "x"]), tail("p-1", &["two"])];
    workloads
        .keep_logs(failed, &first, Utc::now())
        .await
        .unwrap();
    let read = workloads.kept_logs(failed).await.unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].lines, ["NCCL WARN one", "x"]);
    assert!(read[1].previous && !read[0].previous);
    assert_eq!(read[0].hints, first[0].hints);
    assert!(!read[0].taken_at.is_empty());
    // Read again, the new tails replace the old ones whole.
    workloads
        .keep_logs(failed, &[tail("p-2", &["three"])], Utc::now())
        .await
        .unwrap();
    let read = workloads.kept_logs(failed).await.unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].pod, "p-2");
    // A deleted workload's tails go at the next pass; the others stay until the retention.
    workloads
        .keep_logs(doomed, &[tail("d-0", &["four"])], Utc::now())
        .await
        .unwrap();
    delete_workload(db, doomed).await;
    let gone = workloads
        .forget_kept_logs(Utc::now() - Duration::days(30))
        .await
        .unwrap();
    assert_eq!(gone, 1);
    assert!(workloads.kept_logs(doomed).await.unwrap().is_empty());
    assert_eq!(workloads.kept_logs(failed).await.unwrap().len(), 1);
    let gone = workloads
        .forget_kept_logs(Utc::now() + Duration::seconds(1))
        .await
        .unwrap();
    assert_eq!(gone, 1, "past the retention");
    assert!(workloads.kept_logs(failed).await.unwrap().is_empty());
}
