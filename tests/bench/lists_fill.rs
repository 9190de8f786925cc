//! How bench-lists fills the store: copies of one real training's row, some made to wait.

/// Copies the template's row `n` times: names `<template>-<i>`, created a second apart before it,
/// a tenth Failed, one in a hundred Running, the rest Completed.
pub async fn fill(db: &server::db::Database, template: uuid::Uuid, n: usize) -> anyhow::Result<()> {
    use server::db::Database;
    let n = i64::try_from(n)?;
    match db {
        Database::Sqlite(server::db::SqliteDb { pool, .. }) => {
            let columns = column_list(
                sqlx::query_scalar("SELECT name FROM pragma_table_info('workloads') ORDER BY cid")
                    .fetch_all(pool)
                    .await?,
                &SQLITE_COPY,
            );
            let sql = format!(
                "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $2)
                 INSERT INTO workloads ({}) SELECT {} FROM workloads t, s WHERE t.id = $1",
                columns.0, columns.1
            );
            sqlx::query(&sql)
                .bind(template)
                .bind(n)
                .execute(pool)
                .await?;
        }
        Database::Postgres(pool) => {
            let columns = column_list(
                sqlx::query_scalar(
                    "SELECT column_name::text FROM information_schema.columns
                      WHERE table_name = 'workloads' ORDER BY ordinal_position",
                )
                .fetch_all(pool)
                .await?,
                &POSTGRES_COPY,
            );
            let sql = format!(
                "INSERT INTO workloads ({}) SELECT {} FROM workloads t, generate_series(1, $2) AS s(i)
                  WHERE t.id = $1",
                columns.0, columns.1
            );
            sqlx::query(&sql)
                .bind(template)
                .bind(n)
                .execute(pool)
                .await?;
            // What autovacuum does within a minute of a bulk change: statistics for the planner
            // and the visibility map for index-only scans. Without them the first minute of
            // queries plans for an empty table.
            sqlx::query("VACUUM ANALYZE workloads")
                .execute(pool)
                .await?;
        }
    }
    Ok(())
}

const PHASE: &str =
    "CASE WHEN i % 100 = 0 THEN 'Running' WHEN i % 10 = 0 THEN 'Failed' ELSE 'Completed' END";

const SQLITE_COPY: [(&str, &str); 8] = [
    // Copies of a waiting template do not wait: `wait` makes some wait.
    ("pending_since", "NULL"),
    ("id", "randomblob(16)"),
    ("name", "t.name || '-' || i"),
    ("requested_name", "t.name || '-' || i"),
    ("actual_phase", PHASE),
    (
        "created_at",
        "strftime('%Y-%m-%dT%H:%M:%f+00:00', '2025-01-01', '+' || i || ' seconds')",
    ),
    (
        "updated_at",
        "strftime('%Y-%m-%dT%H:%M:%f+00:00', '2025-06-01', '+' || (i * 7919 % 100003) || ' seconds')",
    ),
    (
        "finished_at",
        "CASE WHEN i % 100 = 0 THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%f+00:00', '2025-01-02', '+' || i || ' seconds') END",
    ),
];

const POSTGRES_COPY: [(&str, &str); 8] = [
    ("pending_since", "NULL"),
    ("id", "gen_random_uuid()"),
    ("name", "t.name || '-' || i"),
    ("requested_name", "t.name || '-' || i"),
    ("actual_phase", PHASE),
    (
        "created_at",
        "TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 second'",
    ),
    (
        "updated_at",
        "TIMESTAMPTZ '2025-06-01 00:00:00+00' + (i * 7919 % 100003) * INTERVAL '1 second'",
    ),
    (
        "finished_at",
        "CASE WHEN i % 100 = 0 THEN NULL ELSE TIMESTAMPTZ '2025-01-02 00:00:00+00' + i * INTERVAL '1 second' END",
    ),
];

/// The column list and the matching select list: `copy`'s expression where it names the column,
/// the template's value otherwise.
fn column_list(names: Vec<String>, copy: &[(&str, &str)]) -> (String, String) {
    let values = names.iter().map(|name| {
        copy.iter()
            .find(|(column, _)| column == name)
            .map_or_else(|| format!("t.{name}"), |(_, value)| (*value).to_owned())
    });
    (names.join(", "), values.collect::<Vec<_>>().join(", "))
}

/// Makes `n` finished trainings wait to start again (Pending, not finished, waiting since now).
pub async fn wait(db: &server::db::Database, n: usize) -> anyhow::Result<()> {
    use server::db::Database;
    let n = i64::try_from(n)?;
    let sql = "UPDATE workloads SET actual_phase = 'Pending', finished_at = NULL,
                      pending_since = updated_at, desired_phase = 'Running'
                WHERE id IN (SELECT id FROM workloads WHERE actual_phase = 'Completed'
                              ORDER BY id LIMIT $1)";
    match db {
        Database::Sqlite(server::db::SqliteDb { pool, .. }) => {
            sqlx::query(sql).bind(n).execute(pool).await?;
        }
        Database::Postgres(pool) => {
            sqlx::query(sql).bind(n).execute(pool).await?;
            sqlx::query("VACUUM ANALYZE workloads")
                .execute(pool)
                .await?;
        }
    }
    Ok(())
}
