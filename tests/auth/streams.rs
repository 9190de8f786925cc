//! Event and log streams last as long as what allowed them: a stream ends when the access rule
//! behind it is removed and when its user signs out, and one user holds only so many at once.

use super::Setup;
use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::time::Duration;
use tephra_tests::sse::SseStream;

/// A check every second, and two streams a user.
const SETTINGS: &[&str] = &[
    "--stream-recheck-seconds",
    "1",
    "--streams-per-principal",
    "2",
];

/// The next event that is not a `workload` change, within `seconds`.
async fn next_control_event(
    stream: &mut SseStream,
    seconds: u64,
) -> anyhow::Result<tephra_tests::sse::SseEvent> {
    loop {
        let event = stream.next(Duration::from_secs(seconds)).await?;
        if event.event != "workload" {
            return Ok(event);
        }
    }
}

#[tokio::test]
async fn a_stream_ends_when_its_rule_is_removed_and_at_sign_out() -> anyhow::Result<()> {
    let setup = Setup::start_with(SETTINGS).await?;
    let tephra = &setup.tephra;
    let (ada, grace) = (setup.sign_in("ada").await?, setup.sign_in("grace").await?);
    let rule = json!({"subjectType": "user", "subjectId": "grace-0002", "roleId": 5,
                      "scopeType": "project", "scopeId": "default"});
    let added = ada
        .http
        .post(tephra.url("/api/v1/authorization/access-rules"))
        .json(&rule)
        .send()
        .await?;
    ensure!(added.status() == 201, "{}", added.status());
    let rule: Value = added.json().await?;
    let events = tephra.url("/api/v1/workloads/events?projectId=default");
    let mut stream = SseStream::send(grace.http.get(&events)).await?;
    ensure!(stream.next(Duration::from_secs(5)).await?.event == "resync");

    let removed = ada
        .http
        .delete(tephra.url(&format!(
            "/api/v1/authorization/access-rules/{}",
            rule["id"]
        )))
        .send()
        .await?;
    ensure!(removed.status() == 204, "{}", removed.status());
    let closed = next_control_event(&mut stream, 10).await?;
    ensure!(closed.event == "closed", "{closed:?}");
    ensure!(
        stream.next(Duration::from_secs(5)).await.is_err(),
        "nothing after `closed`: the stream has ended"
    );
    let again = grace.http.get(&events).send().await?;
    ensure!(
        // Holding nothing there now, the project is not there for her: 400 naming projectId.
        again.status() == 400,
        "the project is no longer hers: {}",
        again.status()
    );

    // Every workload she may see (none now), until she signs out.
    let everything = tephra.url("/api/v1/workloads/events");
    let mut stream = SseStream::send(grace.http.get(&everything)).await?;
    ensure!(stream.next(Duration::from_secs(5)).await?.event == "resync");
    let out = grace
        .http
        .post(tephra.url("/auth/logout"))
        .header("origin", tephra.base.as_str())
        .send()
        .await?;
    ensure!(out.status().is_redirection(), "{}", out.status());
    let closed = next_control_event(&mut stream, 10).await?;
    ensure!(
        closed.event == "closed" && closed.data.contains("sign in again"),
        "{closed:?}"
    );
    setup.tephra.stop().await
}

#[tokio::test]
async fn a_user_holds_only_so_many_streams_and_a_closed_one_frees_its_place() -> anyhow::Result<()>
{
    let setup = Setup::start_with(SETTINGS).await?;
    let tephra = &setup.tephra;
    let grace = setup.sign_in("grace").await?;
    let events = tephra.url("/api/v1/workloads/events");
    let first = SseStream::send(grace.http.get(&events)).await?;
    let _second = SseStream::send(grace.http.get(&events)).await?;
    let third = grace.http.get(&events).send().await?;
    ensure!(third.status() == 429, "{}", third.status());
    let body: Value = third.json().await?;
    let message = body["message"].as_str().context("a message")?;
    ensure!(message.contains("--streams-per-principal"), "{message}");
    // Someone else is not counted with her.
    let ada = setup.sign_in("ada").await?;
    SseStream::send(ada.http.get(&events)).await?;

    drop(first);
    tephra_tests::wait_for("a freed place", Duration::from_secs(40), || async {
        let answer = grace.http.get(&events).send().await.ok()?;
        (answer.status() == 200).then_some(())
    })
    .await?;
    setup.tephra.stop().await
}
