//! Browser sessions in the same database as everything else, through tower-sessions' sqlx stores,
//! so sign-ins survive restarts and every Tephra process behind a load balancer sees them.

use crate::db::Database;
use async_trait::async_trait;
use std::time::Duration;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, ExpiredDeletion, SessionStore};
use tower_sessions::{Expiry, SessionManagerLayer, cookie::SameSite};
use tower_sessions_sqlx_store::{PostgresStore, SqliteStore};

/// The session table: `tephra_sessions` on SQLite, `public.tephra_sessions` on PostgreSQL (beside
/// Tephra's own tables rather than in a schema of its own).
const TABLE: &str = "tephra_sessions";

/// Where sessions live and how their cookie is set.
#[derive(Clone)]
pub struct SessionSettings {
    pub store: Sessions,
    /// `Secure` cookies (the public URL is https).
    pub secure: bool,
    /// A session ends after this long without a request.
    pub idle: Duration,
}

impl SessionSettings {
    pub fn layer(&self) -> SessionManagerLayer<Sessions> {
        let idle = tower_sessions::cookie::time::Duration::seconds(
            i64::try_from(self.idle.as_secs()).unwrap_or(i64::MAX),
        );
        SessionManagerLayer::new(self.store.clone())
            // Under https the `__Host-` prefix makes browsers refuse the cookie unless it is
            // Secure, for this exact host and path `/`: no sibling subdomain can plant or shadow it.
            .with_name(if self.secure {
                "__Host-tephra_session"
            } else {
                "tephra_session"
            })
            .with_path("/")
            .with_http_only(true)
            .with_same_site(SameSite::Lax)
            .with_secure(self.secure)
            .with_expiry(Expiry::OnInactivity(idle))
    }
}

#[derive(Debug, Clone)]
pub enum Sessions {
    Sqlite(SqliteStore),
    Postgres(PostgresStore),
}

impl Sessions {
    /// The store over `db`, with its table created when missing.
    pub async fn open(db: &Database) -> anyhow::Result<Self> {
        let store = match db {
            Database::Sqlite(crate::db::SqliteDb { pool, .. }) => Sessions::Sqlite(
                SqliteStore::new(pool.clone())
                    .with_table_name(TABLE)
                    .map_err(anyhow::Error::msg)?,
            ),
            Database::Postgres(pool) => Sessions::Postgres(
                PostgresStore::new(pool.clone())
                    .with_schema_name("public")
                    .and_then(|s| s.with_table_name(TABLE))
                    .map_err(anyhow::Error::msg)?,
            ),
        };
        match &store {
            Sessions::Sqlite(s) => s.migrate().await?,
            Sessions::Postgres(s) => s.migrate().await?,
        }
        Ok(store)
    }
}

/// What the table keeps for a session id: a SHA-256 of it, never the id itself, so whoever
/// reads the table (a backup, a replica, a leaked dump) holds no cookie that signs anyone in.
fn stored(id: &Id) -> Id {
    use sha2::{Digest, Sha256};
    let digest = Sha256::new()
        .chain_update(b"tephra-session-id:")
        .chain_update(id.0.to_le_bytes())
        .finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    Id(i128::from_le_bytes(bytes))
}

impl Sessions {
    async fn create_stored(&self, record: &mut Record) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(s) => s.create(record).await,
            Sessions::Postgres(s) => s.create(record).await,
        }
    }

    async fn delete_stored(&self, id: &Id) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(s) => s.delete(id).await,
            Sessions::Postgres(s) => s.delete(id).await,
        }
    }
}

#[async_trait]
impl SessionStore for Sessions {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        loop {
            let key = stored(&record.id);
            let mut row = Record {
                id: key,
                ..record.clone()
            };
            self.create_stored(&mut row).await?;
            if row.id == key {
                return Ok(());
            }
            // The inner store drew another id on a (128-bit) collision; that one has no cookie
            // value behind it, so drop it and start again from a fresh id.
            self.delete_stored(&row.id).await?;
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        let row = Record {
            id: stored(&record.id),
            ..record.clone()
        };
        match self {
            Sessions::Sqlite(s) => s.save(&row).await,
            Sessions::Postgres(s) => s.save(&row).await,
        }
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let found = match self {
            Sessions::Sqlite(s) => s.load(&stored(id)).await,
            Sessions::Postgres(s) => s.load(&stored(id)).await,
        }?;
        Ok(found.map(|record| Record { id: *id, ..record }))
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        self.delete_stored(&stored(id)).await
    }
}

#[async_trait]
impl ExpiredDeletion for Sessions {
    async fn delete_expired(&self) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(s) => s.delete_expired().await,
            Sessions::Postgres(s) => s.delete_expired().await,
        }
    }
}

/// Deletes expired sessions now and then; runs for the life of the process.
pub async fn delete_expired_forever(store: Sessions) {
    loop {
        if let Err(error) = store.delete_expired().await {
            tracing::warn!(%error, "cannot delete expired sessions");
        }
        tokio::time::sleep(Duration::from_secs(15 * 60)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_keeps_a_hash_of_the_id() {
        let id = Id(0x1234_5678_9abc_def0_1122_3344_5566_7788);
        assert_eq!(stored(&id), stored(&id), "the same id, the same row");
        assert_ne!(stored(&id), id);
        assert_ne!(stored(&id), stored(&Id(id.0 + 1)));
    }
}
