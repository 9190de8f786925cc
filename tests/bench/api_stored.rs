//! What the API costs against what is stored: list pages out of `BENCH_TRAININGS` trainings, and
//! a submit into a project holding them beside one into an empty project.

use super::{Client, SAMPLES, TRAININGS, ms};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};
use tephra_tests::bench::{percentiles, small_training};
use tephra_tests::tephra::Launch;

/// Stores `rows` trainings through the storage layer (not the API, to save time), their phases
/// spread over five.
async fn fill(data: &Path, rows: usize) -> anyhow::Result<()> {
    let db = server::db::Database::connect(&format!("sqlite:{}/tephra.db", data.display())).await?;
    let project = db.projects().ensure_default().await?;
    let user = db.users().upsert(&server::auth::dev_identity()).await?;
    let phases = ["Running", "Pending", "Completed", "Failed", "Stopped"];
    for i in 0..rows {
        let name = format!("train-{i:05}");
        let new = server::db::workloads::NewWorkload {
            project_id: project.id,
            name: name.clone(),
            requested_name: name.clone(),
            cluster_id: "default".into(),
            kind: tephra_core::domain::request::WorkloadKind::Training,
            spec: small_training(&name),
            created_by: user.id,
            job_ttl_seconds: None,
            starts_paused: false,
            demand: Default::default(),
            reason: None,
        };
        let change = server::db::workloads::Change {
            actor: Some(user.id),
            action: tephra_core::model::history::HistoryAction::Submit,
            detail: serde_json::json!({}),
        };
        let w = db.workloads().insert(&new, change).await?;
        let phase = phases[i % phases.len()].parse().expect("a phase");
        db.workloads()
            .record_status(
                w.id,
                server::db::workloads::StatusWrite::new(
                    tephra_core::model::phase::Phase::Running,
                    tephra_core::model::phase::Phase::Creating,
                    phase,
                    None,
                    &Default::default(),
                ),
            )
            .await?;
    }
    db.close().await;
    Ok(())
}

/// List latency for three queries over `rows` trainings stored directly; then the submit cost.
pub async fn list_latency(rows: usize) -> anyhow::Result<()> {
    let data = tempfile::Builder::new()
        .prefix("tephra-bench-list-")
        .tempdir()?;
    fill(data.path(), rows).await?;
    let server = Launch::default().data_dir(data.path()).start()?;
    let client = Client::new(&server);
    submit_cost(&client, rows).await?;
    let deep = rows * 9 / 10;
    let queries = [
        (
            "phase=Running, by name",
            "projectId=default&phase=Running&sortBy=name&sortOrder=asc&limit=50".to_owned(),
            rows / 10,
        ),
        (
            "name contains \"12\", newest first",
            "name=12&limit=50".to_owned(),
            0,
        ),
        (
            "all, by phase, one deep page",
            format!("sortBy=actualPhase&limit=50&offset={deep}"),
            0,
        ),
    ];
    println!(
        "\n## List latency (page of 50 out of {rows} trainings, SQLite, 200 sequential requests each)\n"
    );
    println!("| query | p50 | p99 | trainings in page | bytes |\n|---|---|---|---|---|");
    for (label, query, spread) in queries {
        let mut samples = Vec::new();
        let mut first: Option<(usize, usize)> = None;
        for i in 0..200 {
            // Every other request a different page, so the database does not answer from one
            // hot page only.
            let query = if spread > 0 && i % 2 == 1 {
                format!("{query}&offset={}", (i * 37) % spread)
            } else {
                query.clone()
            };
            let started = Instant::now();
            let body = client
                .http
                .get(format!("{}{TRAININGS}?{query}", client.base))
                .send()
                .await?
                .error_for_status()?
                .bytes()
                .await?;
            samples.push(started.elapsed());
            if first.is_none() {
                let page: Value = serde_json::from_slice(&body)?;
                let count = page["trainings"].as_array().map_or(0, Vec::len);
                first = Some((count, body.len()));
            }
        }
        let (p50, p99) = percentiles(&mut samples);
        let (count, bytes) = first.unwrap_or_default();
        println!(
            "| {label} | {} | {} | {count} | {bytes} |",
            ms(p50),
            ms(p99)
        );
    }
    Ok(())
}

/// The cost of a submit (stored, no cluster) into the project holding `rows` trainings, beside
/// the same into an empty project of a fresh server: admission sums what is in use, which must
/// not grow with the history a project keeps.
async fn submit_cost(filled: &Client, rows: usize) -> anyhow::Result<()> {
    let empty_server = Launch::default().start()?;
    let empty = Client::new(&empty_server);
    async fn measure(client: &Client, label: &str) -> anyhow::Result<(Duration, Duration)> {
        client.submit(&format!("{label}-warm")).await?;
        let mut samples = Vec::new();
        for i in 0..SAMPLES {
            let started = Instant::now();
            client.submit(&format!("{label}-{i}")).await?;
            samples.push(started.elapsed());
        }
        Ok(percentiles(&mut samples))
    }
    let (e50, e99) = measure(&empty, "empty").await?;
    let (f50, f99) = measure(filled, "filled").await?;
    println!(
        "\n## Submit cost against what is stored ({SAMPLES} sequential submits, SQLite, no cluster)\n"
    );
    println!("| project | p50 | p99 |\n|---|---|---|");
    println!("| empty (baseline) | {} | {} |", ms(e50), ms(e99));
    println!(
        "| {rows} stored | {} | {} |\n\np50 ratio {:.2}x (target 1.2x)",
        ms(f50),
        ms(f99),
        f50.as_secs_f64() / e50.as_secs_f64().max(1e-9)
    );
    Ok(())
}
