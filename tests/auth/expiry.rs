//! A session past its lifetime no longer signs anyone in.

use super::{Setup, me};
use anyhow::ensure;
use server::db::Database;

#[tokio::test]
async fn an_expired_session_is_refused() -> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let browser = setup.sign_in("grace").await?;
    ensure!(me(&browser, &setup.tephra).await.is_ok(), "signed in");
    // Time passes: the store's own expiry column, as an idle session would reach it.
    let Database::Sqlite(server::db::SqliteDb { pool, .. }) = &setup.tephra.db else {
        anyhow::bail!("the in-process server runs on SQLite");
    };
    let aged = sqlx::query("UPDATE tephra_sessions SET expiry_date = 0")
        .execute(pool)
        .await?
        .rows_affected();
    ensure!(aged == 1, "one session row ({aged})");
    let answer = browser
        .http
        .post(setup.tephra.url("/api/fn/get_me"))
        .header("accept", "application/json")
        .send()
        .await?;
    ensure!(answer.status() == 401, "{}", answer.status());
    let page = browser.get(&setup.tephra.url("/trainings")).await?;
    ensure!(
        page.status().is_redirection(),
        "back to sign-in: {}",
        page.status()
    );
    setup.tephra.stop().await
}
