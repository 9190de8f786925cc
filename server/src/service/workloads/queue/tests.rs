//! The shared order of the waiting workloads: fresh orders serve as they are, stale ones while
//! the next is computed behind the reader, older ones not at all. Ages are set by hand (an
//! order's `at` moved back), so nothing here depends on how long anything takes.

use super::shared::{BOARD_FRESH, BOARD_STALE, KEEP_WARM};
use crate::db::Database;
use crate::service::testing::{database, default_project, person};
use crate::service::workloads::Workloads;
use crate::service::workloads::tests::workloads;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_core::domain::authz::Role;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::action::Action;
use uuid::Uuid;

async fn submit(service: &Workloads, db: &Database, name: &str) -> Uuid {
    let researcher = person(db, "ada", Role::Researcher, default_project(db).await).await;
    let request = json!({ "name": name, "projectId": "default", "spec": { "image": "busybox" } });
    let accepted = service
        .submit(WorkloadKind::Training, &researcher, request)
        .await
        .expect("the submit is accepted");
    accepted.listing.workload.id
}

/// Makes the order `service` holds `by` older.
fn age(service: &Workloads, by: Duration) {
    service.boards.age(by);
}

#[tokio::test]
async fn a_stale_order_serves_while_the_next_is_computed_behind_the_reader() {
    let db = database().await;
    let (here, there) = (workloads(&db), workloads(&db));
    let first = submit(&here, &db, "first").await;
    let board = here.board(&[first]).await.unwrap();
    assert!(board.position(first).is_some());
    assert!(
        Arc::ptr_eq(&board, &here.board(&[]).await.unwrap()),
        "a fresh order serves the next reader as it is"
    );

    // Another replica's submit: this one has no action of its own to forget its order by.
    let second = submit(&there, &db, "second").await;
    age(&here, BOARD_FRESH);
    let stale = here.board(&[]).await.unwrap();
    assert!(
        Arc::ptr_eq(&board, &stale),
        "the stale order answers at once"
    );
    assert!(stale.position(second).is_none());
    // The refresh it started brings the other replica's submit in.
    let mut refreshed = None;
    for _ in 0..500 {
        let now = here.board(&[]).await.unwrap();
        if now.position(second).is_some() {
            refreshed = Some(now);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let refreshed = refreshed.expect("the refresh behind the reader replaced the stale order");
    assert_eq!(refreshed.position(second).map(|p| p.ahead()), Some(1));
}

#[tokio::test]
async fn an_order_too_old_or_missing_a_known_waiting_workload_is_computed_by_its_reader() {
    let db = database().await;
    let (here, there) = (workloads(&db), workloads(&db));
    let first = submit(&here, &db, "first").await;
    let board = here.board(&[first]).await.unwrap();

    let second = submit(&there, &db, "second").await;
    let asked = here.board(&[second]).await.unwrap();
    assert!(
        asked.position(second).is_some(),
        "a reader asking about a workload the order lacks computes it afresh"
    );
    assert!(!Arc::ptr_eq(&board, &asked));

    let third = submit(&there, &db, "third").await;
    age(&here, BOARD_STALE);
    let old = here.board(&[]).await.unwrap();
    assert!(
        old.position(third).is_some(),
        "an order older than {BOARD_STALE:?} serves no one: the reader computed the next"
    );
}

#[tokio::test]
async fn after_an_action_here_the_next_reader_brings_the_order_up_to_date_with_it() {
    let db = database().await;
    let (here, there) = (workloads(&db), workloads(&db));
    let first = submit(&here, &db, "first").await;
    let board = here.board(&[first]).await.unwrap();
    // Another replica's submit: only a computed order holds it.
    let elsewhere = submit(&there, &db, "elsewhere").await;
    let second = submit(&here, &db, "second").await;
    let next = here.board(&[]).await.unwrap();
    assert!(!Arc::ptr_eq(&board, &next));
    assert!(next.position(second).is_some(), "whoever acted sees it");
    assert_eq!(next.position(second).map(|p| p.ahead()), Some(1));
    assert!(
        next.position(elsewhere).is_none(),
        "the order was brought up to date with the action here, not computed again"
    );

    let researcher = person(&db, "ada", Role::Researcher, default_project(&db).await).await;
    here.act(None, Action::Suspend, &researcher, &first.to_string())
        .await
        .expect("the suspend is accepted");
    let after = here.board(&[]).await.unwrap();
    assert!(
        after.position(first).is_none(),
        "a suspended workload waits no more"
    );
    assert_eq!(after.position(second).map(|p| p.ahead()), Some(0));
    assert!(
        Arc::ptr_eq(&after, &here.board(&[]).await.unwrap()),
        "the order brought up to date serves the next reader as it is"
    );

    // A reader that knows a workload the order lacks still computes it.
    let computed = here.board(&[elsewhere]).await.unwrap();
    assert_eq!(computed.position(elsewhere).map(|p| p.ahead()), Some(0));
    assert_eq!(computed.position(second).map(|p| p.ahead()), Some(1));
}

#[tokio::test]
async fn an_order_read_within_a_minute_is_kept_computed_and_one_nobody_reads_is_not() {
    let db = database().await;
    let (here, there) = (workloads(&db), workloads(&db));
    let first = submit(&here, &db, "first").await;
    let board = here.board(&[first]).await.unwrap();

    // Another replica's submit, and an order a second old: the task computes the next.
    let second = submit(&there, &db, "second").await;
    age(&here, BOARD_FRESH);
    here.keep_order_once().await.unwrap();
    let kept = here.boards.kept().expect("an order is kept");
    assert!(!Arc::ptr_eq(&board, &kept), "the task computed the order");
    assert!(kept.position(second).is_some());
    here.keep_order_once().await.unwrap();
    assert!(
        Arc::ptr_eq(&kept, &here.boards.kept().unwrap()),
        "a fresh order is not computed again"
    );

    // Nobody has read it for a minute: it ages.
    let third = submit(&there, &db, "third").await;
    age(&here, BOARD_FRESH);
    here.boards.unread_for(KEEP_WARM);
    here.keep_order_once().await.unwrap();
    let unread = here.boards.kept().unwrap();
    assert!(Arc::ptr_eq(&kept, &unread), "an order nobody reads is left");
    assert!(unread.position(third).is_none());
}
