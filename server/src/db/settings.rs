//! Installation-wide values created once and kept for good, such as the key that signs which
//! Volcano Jobs are Tephra's. Several processes may start at once on one database: the first
//! value written wins and every process reads that one.

use super::{DbResult, on_pool};

pub struct Settings<'a>(pub(super) &'a super::Database);

impl Settings<'_> {
    /// The value stored under `key`, storing `make()` first when there is none.
    pub async fn get_or_create(
        &self,
        key: &str,
        make: impl FnOnce() -> String,
    ) -> DbResult<String> {
        let candidate = make();
        on_pool!(self.0, pool => sqlx::query(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        )
        .bind(key)
        .bind(&candidate)
        .execute(pool)
        .await
        .map(|_| ()))?;
        Ok(
            on_pool!(self.0, pool => sqlx::query_scalar("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_one(pool)
            .await)?,
        )
    }
}
