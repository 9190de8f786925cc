//! What a start estimate adds to a read of one waiting training, beside what its position costs:
//! the read of the workloads that hold GPUs (`Workloads::holding`), and the estimate itself
//! (`tephra_core::domain::eta::estimate`) over every waiting gang ahead of it. Measured in parts
//! because bench-lists runs Tephra without a cluster, and a read estimates only once the node
//! watch has listed the nodes.

use std::time::{Duration, Instant};
use tephra_core::domain::eta::{self, Ahead, Asked, Holder, Level, LevelKind};
use tephra_tests::bench::percentiles;

/// Gives every workload that may run one GPU, so the holders and the gangs ahead ask for some.
async fn one_gpu_each(db: &server::db::Database) -> anyhow::Result<String> {
    use server::db::Database;
    let sql = "UPDATE workloads SET gpus = 1 WHERE finished_at IS NULL";
    let cluster: String = match db {
        Database::Sqlite(server::db::SqliteDb { pool, .. }) => {
            sqlx::query(sql).execute(pool).await?;
            sqlx::query_scalar("SELECT cluster_id FROM workloads LIMIT 1")
                .fetch_one(pool)
                .await?
        }
        Database::Postgres(pool) => {
            sqlx::query(sql).execute(pool).await?;
            sqlx::query("VACUUM ANALYZE workloads")
                .execute(pool)
                .await?;
            sqlx::query_scalar("SELECT cluster_id FROM workloads LIMIT 1")
                .fetch_one(pool)
                .await?
        }
    };
    Ok(cluster)
}

/// The id of one training that waits to start.
pub async fn a_waiting_training(db: &server::db::Database) -> anyhow::Result<uuid::Uuid> {
    use server::db::Database;
    let sql = "SELECT id FROM workloads WHERE pending_since IS NOT NULL AND finished_at IS NULL
                LIMIT 1";
    Ok(match db {
        Database::Sqlite(server::db::SqliteDb { pool, .. }) => {
            sqlx::query_scalar(sql).fetch_one(pool).await?
        }
        Database::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await?,
    })
}

/// p50 and p99 of `samples` runs of `run`.
async fn timed<F, Fut, T>(samples: usize, mut run: F) -> anyhow::Result<(Duration, Duration, T)>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let mut took = Vec::with_capacity(samples);
    let mut last = None;
    for _ in 0..samples {
        let started = Instant::now();
        last = Some(run().await?);
        took.push(started.elapsed());
    }
    let (p50, p99) = percentiles(&mut took);
    Ok((p50, p99, last.ok_or_else(|| anyhow::anyhow!("no samples"))?))
}

/// Prints the rows of the estimate's parts, in the table of [`super::positions`].
pub async fn estimate_parts(db: &server::db::Database, samples: usize) -> anyhow::Result<()> {
    let cluster = one_gpu_each(db).await?;
    let workloads = db.workloads();
    let (p50, p99, holding) =
        timed(samples, || async { Ok(workloads.holding(&cluster).await?) }).await?;
    println!(
        "| the workloads holding GPUs ({} rows), read for an estimate | {} / {} | |",
        holding.len(),
        super::ms(p50),
        super::ms(p99)
    );
    let (p50, p99, waiting) =
        timed(samples, || async { Ok(workloads.waiting(&cluster).await?) }).await?;
    println!(
        "| the waiting workloads ({} rows), read for a place | {} / {} | |",
        waiting.len(),
        super::ms(p50),
        super::ms(p99)
    );
    let level = Level {
        kind: LevelKind::Pools(Vec::new()),
        capacity: holding.len() as f64,
        holders: holding
            .iter()
            .enumerate()
            .map(|(i, h)| Holder {
                name: h.name.clone(),
                gpus: h.gpus,
                // Every other holder has a time limit, ending a second apart.
                ends_in: (i % 2 == 0).then_some(i as f64),
            })
            .collect(),
        ahead: waiting
            .iter()
            .map(|w| Ahead {
                gpus: w.gpus,
                runs_for: Some(3600.0),
            })
            .collect(),
        reclaimable: 0.0,
    };
    let asked = Asked {
        gpus: 1.0,
        pods: 1,
        per_pod: 1.0,
        largest_node: Some(8.0),
        node_room: None,
    };
    let (p50, p99, said) = timed(samples, || async {
        Ok(eta::estimate(&asked, std::slice::from_ref(&level), &[]))
    })
    .await?;
    println!(
        "| the estimate over {} holders and {} gangs ahead (\"{:?}\") | {} / {} | |",
        level.holders.len(),
        level.ahead.len(),
        said.bound,
        super::ms(p50),
        super::ms(p99)
    );
    Ok(())
}
