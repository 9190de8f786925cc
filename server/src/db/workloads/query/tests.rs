//! How SQLite plans what a list writes. Plans are deterministic where timings are not: a
//! query that stops using its index fails here, not in a benchmark nobody reads.

use super::*;
use crate::db::{Database, SqliteDb};

/// What SQLite says it will do for `sql`, one step a line.
async fn plan(sql: &Sql) -> Vec<String> {
    let db = Database::connect("sqlite::memory:")
        .await
        .expect("an in-memory SQLite database opens");
    let Database::Sqlite(SqliteDb { pool, .. }) = &db else {
        unreachable!("sqlite::memory: opens SQLite")
    };
    let explain = format!("EXPLAIN QUERY PLAN {}", sql.text);
    let steps: Vec<(i64, i64, i64, String)> = bind_args!(sqlx::query_as(&explain), &sql.args)
        .fetch_all(pool)
        .await
        .expect("SQLite plans the query");
    steps.into_iter().map(|(.., step)| step).collect()
}

fn searching(part: &str, creator: Option<&str>) -> WorkloadFilter {
    WorkloadFilter {
        name_contains: Some(part.into()),
        project_id: Some(Uuid::nil()),
        creator: creator.map(Into::into),
        ..WorkloadFilter::default()
    }
}

#[tokio::test]
async fn a_name_search_is_counted_from_its_matches() {
    for creator in [None, Some("ada@example.com")] {
        let steps = plan(&Sql::count(Engine::Sqlite, &searching("resnet", creator))).await;
        assert!(steps[0].starts_with("SCAN n VIRTUAL TABLE"), "{steps:?}");
        assert!(
            steps[1].starts_with("SEARCH w USING INTEGER PRIMARY KEY (rowid=?)"),
            "each match's row is looked up, not every row of the project: {steps:?}"
        );
    }
}

#[tokio::test]
async fn a_short_part_is_compared_and_counted_over_the_project() {
    let sql = Sql::count(Engine::Sqlite, &searching("rn", None));
    assert!(sql.text.contains("LIKE"), "{}", sql.text);
    let steps = plan(&sql).await;
    assert!(
        steps.iter().all(|s| !s.contains("VIRTUAL TABLE")),
        "{steps:?}"
    );
}

#[tokio::test]
async fn a_page_of_a_name_search_walks_the_order() {
    let mut sql = Sql::new(Engine::Sqlite);
    let filter = WorkloadFilter {
        limit: Some(50),
        ..searching("resnet", None)
    };
    sql.text = sql.page(&filter);
    let steps = plan(&sql).await;
    assert!(
        steps[0].contains("INDEX workloads_list_project_created"),
        "the page stops at its 50th row of the order: {steps:?}"
    );
}
