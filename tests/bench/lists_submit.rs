//! The cost of a submit against what its project keeps (issue 36: p50 into a project holding
//! 100,000 finished trainings within 1.2x of p50 into an empty one). Admission sums what the
//! project's workloads that may run ask for; the finished ones must not count in its time.

use anyhow::Context;
use serde_json::Value;
use std::time::{Duration, Instant};
use tephra_tests::bench::{percentiles, small_training};
use tephra_tests::in_process::InProcess;

/// Every stored training finished, as a project's history is: the fill's running and waiting
/// ones marked Completed.
async fn finish_everything(db: &server::db::Database) -> anyhow::Result<()> {
    use server::db::Database;
    let sql = "UPDATE workloads SET actual_phase = 'Completed', finished_at = updated_at,
                      pending_since = NULL
                WHERE finished_at IS NULL";
    match db {
        Database::Sqlite(server::db::SqliteDb { pool, .. }) => {
            sqlx::query(sql).execute(pool).await?;
        }
        Database::Postgres(pool) => {
            sqlx::query(sql).execute(pool).await?;
            sqlx::query("VACUUM ANALYZE workloads")
                .execute(pool)
                .await?;
        }
    }
    Ok(())
}

/// How long `POST /api/v1/workloads/trainings` of a small training into `project` takes until
/// its 202.
async fn submit(
    http: &reqwest::Client,
    server: &InProcess,
    project: &str,
    name: &str,
) -> anyhow::Result<Duration> {
    let mut body = small_training(name);
    body["projectId"] = Value::from(project);
    let started = Instant::now();
    let answer = http
        .post(server.url("/api/v1/workloads/trainings"))
        .json(&body)
        .send()
        .await?;
    let status = answer.status();
    let text = answer.text().await?;
    let took = started.elapsed();
    anyhow::ensure!(
        status.is_success(),
        "submit into {project}: {status}: {text}"
    );
    Ok(took)
}

/// Submits into an empty project and into `big` (holding `stored`, all finished first), one
/// after the other so both meet the same moment, and prints both with their ratio.
pub async fn submit_cost(
    http: &reqwest::Client,
    server: &InProcess,
    big: &str,
    stored: usize,
    samples: usize,
) -> anyhow::Result<()> {
    finish_everything(&server.db).await?;
    let empty = "empty-submits";
    http.post(server.url("/api/v1/org-unit/projects"))
        .json(&serde_json::json!({ "name": empty }))
        .send()
        .await?
        .error_for_status()
        .context("creating the empty project")?;
    for project in [empty, big] {
        submit(http, server, project, &format!("{project}-warm")).await?;
    }
    let (mut into_empty, mut into_big) = (Vec::new(), Vec::new());
    for i in 0..samples {
        into_empty.push(submit(http, server, empty, &format!("{empty}-{i}")).await?);
        into_big.push(submit(http, server, big, &format!("{big}-submit-{i}")).await?);
    }
    let (e50, e99) = percentiles(&mut into_empty);
    let (b50, b99) = percentiles(&mut into_big);
    let ratio = b50.as_secs_f64() / e50.as_secs_f64().max(1e-9);
    println!(
        "\nSubmit until its 202 ({samples} each, alternated), into an empty project and into one \
         holding {stored} finished trainings:\n"
    );
    println!("| project | p50 / p99 |\n|---|---|");
    println!(
        "| empty (baseline) | {} / {} |",
        super::ms(e50),
        super::ms(e99)
    );
    println!(
        "| {stored} finished | {} / {} |",
        super::ms(b50),
        super::ms(b99)
    );
    let met = if ratio <= 1.2 { "met" } else { "not met" };
    println!("\np50 ratio {ratio:.2}x (target ≤ 1.2x): {met}");
    Ok(())
}
