//! The SQLite engine's handle: its pool, and the turn its writers take.

use sqlx::sqlite::SqlitePool;
use std::sync::Arc;
use tokio::sync::{Mutex, MutexGuard};

/// A SQLite database: its pool, and the turn its writers take.
///
/// SQLite lets one transaction write at a time. The others get `SQLITE_BUSY`, and its busy handler
/// sleeps 1, 2, 5, 10 ... 100 ms before trying again, so eight writers at once spent more time
/// asleep than writing (issue 36: a cold start's status writes slept 3.5 ms a time, a thousand
/// times in five seconds, and a submit among four at once waited a second). Write transactions
/// take their turn here instead and wake as soon as the one before commits.
#[derive(Clone, Debug)]
pub struct SqliteDb {
    pub pool: SqlitePool,
    writes: Arc<Mutex<()>>,
}

impl SqliteDb {
    pub fn new(pool: SqlitePool) -> Self {
        SqliteDb {
            pool,
            writes: Arc::default(),
        }
    }

    /// Waits for this process's writers before this one to commit; held through the write.
    pub async fn turn(&self) -> MutexGuard<'_, ()> {
        self.writes.lock().await
    }
}
