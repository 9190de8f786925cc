//! The readiness probe's own connection to the database.

use super::{Database, DbError, DbResult, on_pool};
use sqlx::{ConnectOptions, PgConnection, SqliteConnection};

enum Open {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

/// Asks whether the database answers, on a connection of its own, so the probe does not queue for
/// one of the pool's connections behind the work that holds them (10,000 event streams checking
/// what their callers may see, a thousand pods changing phase). A busy pool is no reason to take
/// a replica out of its Service; a database that does not answer is.
pub struct Prober {
    db: Database,
    /// On PostgreSQL the socket belongs to the runtime of whichever listener asked first (the
    /// probes' thread or the main one) and is driven by it when the other asks. That holds while
    /// both run: the probes' runtime stops after the main server. Were it to stop first, the
    /// next ping would fail, drop the connection and open one on the asking runtime.
    open: tokio::sync::Mutex<Option<Open>>,
}

impl Prober {
    pub fn new(db: Database) -> Self {
        Prober {
            db,
            open: tokio::sync::Mutex::new(None),
        }
    }

    /// `SELECT 1` on the probe's connection, opened with the pool's options when there is none;
    /// a connection that fails is dropped, and the next probe opens another. Once the pool is
    /// closed (shutting down) the database counts as unreachable.
    pub async fn ping(&self) -> DbResult<()> {
        if on_pool!(&self.db, pool => pool.is_closed()) {
            return Err(DbError::from(sqlx::Error::PoolClosed));
        }
        let mut open = self.open.lock().await;
        let mut connection = match open.take() {
            Some(connection) => connection,
            None => match &self.db {
                Database::Sqlite(db) => Open::Sqlite(db.pool.connect_options().connect().await?),
                Database::Postgres(pool) => Open::Postgres(pool.connect_options().connect().await?),
            },
        };
        const SELECT: &str = "SELECT 1";
        match &mut connection {
            Open::Sqlite(c) => sqlx::query(SELECT).execute(c).await.map(drop)?,
            Open::Postgres(c) => sqlx::query(SELECT).execute(c).await.map(drop)?,
        }
        *open = Some(connection);
        Ok(())
    }
}
