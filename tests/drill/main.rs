//! Failure drills: Tephra serving from a real PostgreSQL that is stopped under it and started
//! again (issue 12). During the outage every request must fail fast with 503 and say why; once
//! PostgreSQL is back, the same process serves again, and every training stored before the outage
//! is there exactly once.

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tephra_tests::in_process::InProcess;
use tephra_tests::postgres::TempPostgres;

const TRAININGS: &str = "/api/v1/workloads/trainings";
/// What an outage may cost a request: the pool's acquire timeout (3 s) plus slack for a busy
/// machine. sqlx's default would be 30 s.
const FAIL_FAST: Duration = Duration::from_secs(8);

fn training(name: &str) -> Value {
    json!({
        "name": name, "projectId": "default",
        "spec": { "image": "busybox", "command": "sleep 60", "compute": { "gpuDevicesRequest": 1 } },
    })
}

/// The names of all trainings, each with how many times it is listed.
async fn listed_names(client: &reqwest::Client, server: &InProcess) -> BTreeMap<String, usize> {
    let res = client
        .get(server.url(&format!("{TRAININGS}?limit=500")))
        .send()
        .await
        .expect("the list answers");
    assert_eq!(res.status(), StatusCode::OK);
    let page: Value = res.json().await.expect("a JSON page");
    let mut names = BTreeMap::new();
    for training in page["trainings"].as_array().expect("a trainings array") {
        let name = training["requestedName"]
            .as_str()
            .expect("requestedName")
            .to_owned();
        *names.entry(name).or_default() += 1;
    }
    names
}

/// Sends `request` and returns its status, body and how long it took.
async fn timed(request: reqwest::RequestBuilder) -> (StatusCode, Value, Duration) {
    let started = Instant::now();
    let res = request.send().await.expect("the server answers");
    let status = res.status();
    let body = res.json().await.unwrap_or(Value::Null);
    (status, body, started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_answers_503_at_once_and_service_resumes_when_it_is_back() {
    let pg = TempPostgres::start().expect("PostgreSQL starts (run scripts/setup to install it)");
    let url = pg
        .create_database("tephra")
        .await
        .expect("database created");
    let server = InProcess::start(&["--database-url", &url])
        .await
        .expect("Tephra starts on PostgreSQL");
    let client = tephra_tests::http_builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();

    let before: Vec<String> = (0..5).map(|i| format!("before-outage-{i}")).collect();
    for name in &before {
        let res = client
            .post(server.url(TRAININGS))
            .json(&training(name))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::ACCEPTED, "{name}");
    }

    pg.stop().expect("pg_ctl stop -m fast");

    // Concurrently, so the drill costs one acquire timeout rather than one per request.
    let during = [
        client
            .post(server.url(TRAININGS))
            .json(&training("during-outage")),
        client.get(server.url(TRAININGS)),
        client.get(server.url("/api/v1/workloads/distributed")),
        client.get(server.url("/api/v1/org-unit/projects")),
    ];
    for (status, body, took) in join_all(during.map(timed)).await {
        eprintln!("during the outage: {status} in {took:?}: {body}");
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["code"], 503, "{body}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("the database is unavailable: "),
            "{message:?}"
        );
        assert!(took < FAIL_FAST, "the answer took {took:?}");
    }
    // `/readyz` reads the answer a background task keeps (asked every second, trusted for 3 s),
    // so it may say ready for a moment into the outage; it must say why it is not within that.
    let began = Instant::now();
    let (body, took) = loop {
        let (status, body, took) = timed(client.get(server.url("/readyz"))).await;
        assert!(took < FAIL_FAST, "readyz took {took:?}");
        if status == StatusCode::SERVICE_UNAVAILABLE {
            break (body, took);
        }
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "readyz still said ready {:?} into the outage",
            began.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    eprintln!(
        "readyz said unavailable {:?} into the outage, in {took:?}: {body}",
        began.elapsed()
    );
    assert!(
        body["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("database"),
        "{body}"
    );
    // The process itself is fine: a supervisor must not restart it for a database outage.
    let (status, _, _) = timed(client.get(server.url("/healthz"))).await;
    assert_eq!(status, StatusCode::OK);

    pg.start_again().expect("PostgreSQL starts again");
    let back = Instant::now();

    // The pool reconnects on its own; no restart of Tephra.
    let recovered =
        tephra_tests::wait_for("/readyz to answer 200", Duration::from_secs(20), || {
            let request = client.get(server.url("/readyz"));
            async move { (request.send().await.ok()?.status() == StatusCode::OK).then_some(()) }
        })
        .await;
    recovered.expect("Tephra recovers without a restart");
    eprintln!("ready again {:?} after PostgreSQL started", back.elapsed());
    let res = client
        .post(server.url(TRAININGS))
        .json(&training("after-outage"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);

    let names = listed_names(&client, &server).await;
    let mut expected: BTreeMap<String, usize> = before.iter().map(|n| (n.clone(), 1)).collect();
    expected.insert("after-outage".into(), 1);
    // Exactly the trainings accepted: none lost, none doubled, and the one refused with 503
    // was not half-stored.
    assert_eq!(names, expected);

    server.stop().await.expect("Tephra stops cleanly");
}
