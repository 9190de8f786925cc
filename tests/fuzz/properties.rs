//! Property: a mutated training request sent to a running server gets a 2xx or 4xx answer, never
//! a 5xx or a dropped connection, and every 400 for a body that is valid JSON names the offending
//! fields (`details`, each with a non-empty `field`), so a client can point at them.

use super::mutations::mutated;
use app::draft::Draft;
use app::error::AppError;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;
use tephra_tests::in_process::InProcess;
use tephra_tests::postgres::TempPostgres;

#[path = "../../core/tests/common/strategies.rs"]
mod strategies;

/// Where a generated document is sent, and how it is wrapped.
#[derive(Clone, Copy)]
enum Target {
    Trainings,
    Distributed,
    /// The form's server function: `{"draft": …}`.
    Preview,
}

impl Target {
    fn path(self) -> &'static str {
        match self {
            Target::Trainings => "/api/v1/workloads/trainings",
            Target::Distributed => "/api/v1/workloads/distributed",
            Target::Preview => "/api/fn/preview_training",
        }
    }
}

/// Requests the strategies call valid, in the one project a fresh server has.
fn in_default_project(request: Value) -> Value {
    let mut request = request;
    request["projectId"] = json!("default");
    request
}

/// The form's draft of a request: the request itself, as "Clone" opens it.
fn as_draft(request: &Value) -> Value {
    let mut draft = serde_json::to_value(Draft::from_stored(request)).expect("a draft serializes");
    draft["projectId"] = json!("default");
    draft
}

/// Runs `cases` mutations of `base` against `target` on one server (SQLite, or the PostgreSQL at
/// `database_url`), and returns how many answers each status got.
fn fuzz(
    target: Target,
    database_url: Option<&str>,
    cases: u32,
    base: impl Strategy<Value = Value>,
) -> BTreeMap<u16, u32> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let flags: Vec<&str> = database_url
        .map(|url| vec!["--database-url", url])
        .unwrap_or_default();
    let server = runtime
        .block_on(InProcess::start(&flags))
        .expect("the server starts");
    let client = tephra_tests::http_builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .expect("a client");
    let url = server.url(target.path());
    let statuses = Mutex::new(BTreeMap::<u16, u32>::new());

    let config = Config {
        cases,
        // The shrunk input is printed on failure; regression files would land in the tree.
        failure_persistence: None,
        ..Config::default()
    };
    let result = TestRunner::new(config).run(&mutated(base), |document| {
        let body = match target {
            Target::Preview => serde_json::to_vec(&json!({ "draft": document })),
            _ => serde_json::to_vec(&document),
        }
        .expect("generated JSON serializes");
        let (status, answer) = runtime
            .block_on(async {
                let res = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await?;
                let status = res.status().as_u16();
                Ok::<_, reqwest::Error>((status, res.bytes().await?))
            })
            .map_err(|e| {
                TestCaseError::fail(format!("no answer (a panic drops the connection): {e}"))
            })?;
        *statuses.lock().unwrap().entry(status).or_default() += 1;
        let answer_text = String::from_utf8_lossy(&answer);
        prop_assert!(status < 500, "{status}: {answer_text}");
        // A body past serde_json's nesting limit is rejected as a whole; there is no field to name.
        let parses = serde_json::from_slice::<Value>(&body).is_ok();
        if status == 400 && parses && matches!(target, Target::Preview) {
            // A draft that does not decode is a transport error; a decoded one names its fields.
            if let Ok(AppError::Rejected(errors)) = serde_json::from_slice::<AppError>(&answer) {
                prop_assert!(!errors.is_empty(), "{answer_text}");
                for error in errors {
                    prop_assert!(
                        !error.path.is_empty(),
                        "a field error without a path: {answer_text}"
                    );
                }
            }
        } else if status == 400 && parses {
            let error: Value = serde_json::from_slice(&answer).map_err(|e| {
                TestCaseError::fail(format!("a 400 that is not JSON ({e}): {answer_text}"))
            })?;
            let details = error["details"].as_array().cloned().unwrap_or_default();
            prop_assert!(!details.is_empty(), "a 400 without details: {answer_text}");
            for detail in details {
                let field = detail["field"].as_str().unwrap_or_default();
                prop_assert!(!field.is_empty(), "a detail without a field: {answer_text}");
            }
        }
        Ok(())
    });
    runtime
        .block_on(server.stop())
        .expect("the server stops cleanly");
    let statuses = statuses.into_inner().unwrap();
    eprintln!(
        "{} ({cases} cases): answers by status {statuses:?}",
        target.path()
    );
    if let Err(failure) = result {
        panic!("{failure}");
    }
    statuses
}

#[test]
fn mutated_trainings_never_get_a_server_error() {
    let statuses = fuzz(
        Target::Trainings,
        None,
        1000,
        strategies::training().prop_map(in_default_project),
    );
    // Some mutations leave a valid request; those must still be accepted.
    assert!(statuses.contains_key(&202), "{statuses:?}");
}

#[test]
fn mutated_distributed_trainings_never_get_a_server_error() {
    let statuses = fuzz(
        Target::Distributed,
        None,
        600,
        strategies::distributed().prop_map(in_default_project),
    );
    assert!(statuses.contains_key(&202), "{statuses:?}");
}

#[test]
fn mutated_preview_drafts_never_get_a_server_error() {
    let drafts = prop_oneof![
        strategies::training().prop_map(|r| as_draft(&r)),
        strategies::distributed().prop_map(|r| as_draft(&r)),
    ];
    let statuses = fuzz(Target::Preview, None, 600, drafts);
    assert!(statuses.contains_key(&200), "{statuses:?}");
}

/// PostgreSQL stores the request as `jsonb`, which refuses some strings SQLite keeps (NUL).
#[test]
fn mutated_trainings_never_get_a_server_error_on_postgresql() {
    let pg = TempPostgres::start().expect("PostgreSQL starts (run scripts/setup to install it)");
    let url = tokio::runtime::Runtime::new()
        .expect("a runtime")
        .block_on(pg.create_database("tephra"))
        .expect("database created");
    let statuses = fuzz(
        Target::Trainings,
        Some(&url),
        500,
        strategies::training().prop_map(in_default_project),
    );
    assert!(statuses.contains_key(&202), "{statuses:?}");
}
