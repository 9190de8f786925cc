//! The trainings list in a real browser without a cluster: the server renders it, and the page
//! follows the event stream. Every connection to the stream opens with a resync, on which the
//! page reads itself again and puts the server's fresh list in place of the one on screen,
//! without reloading; each row's time reads as its age. (A training that comes, goes or changes
//! phase needs the controller's events: `tests/cluster/dashboard.rs`.)

use serde_json::Value;
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

const WAIT: Duration = Duration::from_secs(15);

#[tokio::test]
async fn the_list_reads_itself_again_on_a_resync_without_reloading() {
    let server = tephra::start_release().expect("the release server starts");
    let base = server.base_url();
    let answer = tephra_tests::http()
        .post(format!("{base}/api/v1/workloads/trainings"))
        .json(&serde_json::json!({
            "name": "listed", "projectId": "default",
            "spec": {"image": "busybox", "command": "sleep 60"},
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 202);
    let body: Value = answer.json().await.unwrap();
    let row = format!(
        "#trainings-live tr[data-workload-id='{}']",
        body["workloadId"].as_str().unwrap()
    );

    let browser = Browser::start().await.expect("Chromium starts");
    browser.open(&format!("{base}/trainings")).await.unwrap();
    // Marks what is on screen now: a reload would lose both marks; reading the list again
    // replaces the list's element and keeps the window's.
    browser.mark_page().await.unwrap();
    browser
        .client
        .execute(
            "document.getElementById('trainings-live').dataset.before = 'read';",
            vec![],
        )
        .await
        .unwrap();
    browser
        .wait_for("#trainings-live:not([data-before])", WAIT)
        .await
        .expect("the resync read the list again and put it in place");
    browser.wait_for(&row, WAIT).await.unwrap();
    let badge = browser
        .text_of(&format!("{row} [data-live=badge]"), WAIT)
        .await
        .unwrap();
    assert!(!badge.is_empty(), "the row shows its phase");

    // The time the server wrote ("2026-11-30 17:02") reads as an age ("3s"), on the list read
    // again too.
    let age = browser.text_of(&format!("{row} time"), WAIT).await.unwrap();
    assert!(!age.contains(':'), "an age, not the timestamp: {age:?}");

    assert!(
        !browser.reloaded().await.unwrap(),
        "the page did not reload"
    );
    browser.close().await.unwrap();
}
