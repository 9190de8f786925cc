//! What a workload's waiting leaves behind: the time it waited, and whether it holds GPUs or waits
//! for them, each kept by the writes that move it.

use super::lists::{set_phase, submit};
use super::{submitted, training, user};
use server::db::Database;
use server::db::projects::NewProject;
use tephra_core::model::phase::Phase;

/// The time a workload waits to run is kept by its status writes: from its submit, through
/// Pending, stopped when it runs, and counted again when it waits after a preemption. The sleeps
/// only make each wait long enough to see; nothing here bounds how long a write takes.
pub(crate) async fn pending_time_adds_up_every_wait(db: &Database, _: &str) {
    let project = db
        .projects()
        .create(&NewProject::named("waits"), None)
        .await
        .unwrap();
    let creator = user(db, "waiter").await;
    let id = submit(db, project.id, creator, "w").await;
    let fresh = db.workloads().get(id).await.unwrap();
    assert!(fresh.pending_since.is_some(), "it waits from its submit");
    assert_eq!(fresh.pending_seconds, 0.0);
    set_phase(db, id, Phase::Creating, Phase::Pending).await;
    let pending = db.workloads().get(id).await.unwrap();
    assert_eq!(
        pending.pending_since, fresh.pending_since,
        "the same wait goes on"
    );
    let pause = std::time::Duration::from_millis(50);
    tokio::time::sleep(pause).await;
    set_phase(db, id, Phase::Pending, Phase::Running).await;
    let running = db.workloads().get(id).await.unwrap();
    assert!(running.pending_since.is_none(), "running ends the wait");
    assert!(pending.running_since.is_none(), "a run begins when it runs");
    let began = running.running_since.expect("its run began");
    let first = running.pending_seconds;
    assert!((0.05..3600.0).contains(&first), "{first}");
    assert_eq!(running.pending_time(chrono::Utc::now()), first);
    set_phase(db, id, Phase::Running, Phase::Running).await;
    let still = db.workloads().get(id).await.unwrap();
    assert_eq!(still.pending_seconds, first, "running adds nothing");
    assert_eq!(still.running_since, Some(began), "the same run goes on");
    set_phase(db, id, Phase::Running, Phase::Pending).await;
    let again = db.workloads().get(id).await.unwrap();
    assert!(again.pending_since.is_some(), "preempted, it waits again");
    assert!(again.running_since.is_none(), "and its run ended");
    tokio::time::sleep(pause).await;
    assert!(again.pending_time(chrono::Utc::now()) >= first + 0.05);
    set_phase(db, id, Phase::Pending, Phase::Completed).await;
    let done = db.workloads().get(id).await.unwrap();
    assert!(done.pending_since.is_none());
    assert!(
        done.pending_seconds >= first + 0.05,
        "{}",
        done.pending_seconds
    );
}

/// What a start estimate and a training's page read: the workloads that hold GPUs, with the time
/// limit and node pools read from their requests inside the database, and the GPUs of those that
/// wait to start. A workload moves from one to the other as it starts.
pub(crate) async fn holders_and_waiting_gpus_follow_the_start(db: &Database, _: &str) {
    let project = db
        .projects()
        .create(&NewProject::named("holds"), None)
        .await
        .unwrap();
    let creator = user(db, "holder").await;
    let mut new = training(project.id, creator, "limited");
    new.spec = serde_json::json!({ "name": "limited", "projectId": "holds",
                       "spec": { "image": "x", "maxRunTimeSeconds": 600, "nodePools": ["a"] } });
    new.demand.gpus = 2.0;
    let id = db
        .workloads()
        .insert(&new, submitted(creator))
        .await
        .unwrap()
        .id;
    let waits = |db: &Database| {
        let db = db.clone();
        async move {
            db.workloads()
                .waiting_gpus(project.department_id, project.id)
                .await
                .unwrap()
        }
    };
    let (in_project, in_department) = waits(db).await;
    assert_eq!(in_project, 2.0);
    assert!(in_department >= 2.0, "{in_department}");
    let holders = db.workloads().holding("default").await.unwrap();
    assert!(holders.iter().all(|h| h.id != id), "it waits: {holders:?}");
    // The waiting row, as each engine hands it over (SQLite packs all of them in one value).
    let waiting = db.workloads().waiting("default").await.unwrap();
    let row = waiting
        .iter()
        .find(|w| w.id == id)
        .expect("it is among the waiting");
    let stored = db.workloads().get(id).await.unwrap();
    assert_eq!(
        (row.project_id, row.name.as_str(), row.creator_name.as_str()),
        (project.id, "limited", "User holder")
    );
    assert_eq!(row.created_at, stored.created_at);
    assert_eq!((row.gpus, row.max_run_seconds), (2.0, Some(600)));
    assert_eq!(row.priority_class, None);
    let pools: Vec<String> = serde_json::from_str(row.node_pools.as_deref().unwrap()).unwrap();
    assert_eq!(pools, ["a"]);
    // The same row read alone, as the kept order reads those acted on; an unknown id is none.
    let ids = [uuid::Uuid::new_v4(), id];
    let among = db.workloads().waiting_among("default", &ids).await.unwrap();
    assert_eq!(among, std::slice::from_ref(row));
    set_phase(db, id, Phase::Creating, Phase::Running).await;
    let among = db
        .workloads()
        .waiting_among("default", &[id])
        .await
        .unwrap();
    assert!(among.is_empty(), "it no longer waits: {among:?}");
    let holders = db.workloads().holding("default").await.unwrap();
    let held = holders
        .iter()
        .find(|h| h.id == id)
        .expect("it holds its GPUs");
    assert_eq!(held.gpus, 2.0);
    assert_eq!(held.max_run_seconds, Some(600));
    assert!(held.running_since.is_some());
    let pools: Vec<String> = serde_json::from_str(held.node_pools.as_deref().unwrap()).unwrap();
    assert_eq!(pools, ["a"]);
    assert_eq!(waits(db).await.0, 0.0, "it no longer waits");
}
