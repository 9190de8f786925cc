//! schemathesis generates requests for every operation in `/api/openapi.json` (valid and invalid
//! ones, from the schema alone) and fails on any 5xx, on SQLite and on PostgreSQL (which refuses
//! what SQLite stores, such as a NUL in text). scripts/setup installs it into
//! `$TEPHRA_CACHE/venv`; without it this test fails and says so, because CI must run it.

use std::path::PathBuf;
use std::time::Duration;
use tephra_tests::in_process::InProcess;
use tephra_tests::postgres::TempPostgres;

/// Cases per operation in the fuzzing phase (15 operations). The coverage phase adds its own
/// boundary and wrong-type cases (about 4,400, independent of this); in all about 4,800 cases in
/// about 40 seconds.
const MAX_EXAMPLES: &str = "25";
/// A fixed seed keeps CI repeatable; set `TEPHRA_FUZZ_SEED` to explore other cases.
const DEFAULT_SEED: &str = "12";

fn schemathesis() -> PathBuf {
    let venv = std::env::var_os("TEPHRA_VENV")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("TEPHRA_CACHE").map(|c| PathBuf::from(c).join("venv")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/tephra/venv")))
        .expect("HOME is set");
    let bin = venv.join("bin/schemathesis");
    assert!(
        bin.exists(),
        "{} is missing: run scripts/setup (it installs schemathesis into {})",
        bin.display(),
        venv.display()
    );
    bin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_server_error_in_any_operation() {
    let server = InProcess::start(&[]).await.expect("the server starts");
    fuzz(server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_server_error_on_postgres() {
    let pg = TempPostgres::start().expect("PostgreSQL starts");
    let url = pg.create_database("fuzz").await.expect("a database");
    let server = InProcess::start(&["--database-url", &url])
        .await
        .expect("the server starts");
    fuzz(server).await;
}

async fn fuzz(server: InProcess) {
    let bin = schemathesis();
    // schemathesis keeps its example database and reports in the working directory.
    let work = tempfile::tempdir().unwrap();
    let seed = std::env::var("TEPHRA_FUZZ_SEED").unwrap_or_else(|_| DEFAULT_SEED.into());
    let run = tokio::process::Command::new(&bin)
        .current_dir(work.path())
        .env("NO_COLOR", "1")
        .env("SCHEMATHESIS_TELEMETRY", "false")
        .args([
            "run",
            &server.url("/api/openapi.json"),
            "--url",
            &server.base,
        ])
        .args(["--checks", "not_a_server_error"])
        .args(["--max-examples", MAX_EXAMPLES, "--seed", &seed])
        // One worker: with two threads, CPython 3.11.7's `ast.parse` (hypothesis describes its
        // filters with it) fails with "AST constructor recursion depth mismatch".
        .args(["--workers", "1", "--request-timeout", "10"])
        // An endless event stream: every request to it would only time out.
        .args(["--exclude-path", "/api/v1/workloads/events"])
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("schemathesis finishes within 5 minutes")
        .expect("schemathesis runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(
        output.status.success(),
        "schemathesis found failures (seed {seed}); its report is above"
    );
    server.stop().await.expect("the server stops cleanly");
}
