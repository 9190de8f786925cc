//! Storage: one [`Database`] over SQLite (the embedded default) or PostgreSQL, chosen by the URL
//! scheme, and small typed repositories over its tables.
//!
//! The SQL is written once and runs on both engines (`$1` placeholders, no engine-specific
//! functions), so each repository method is a single query executed on whichever pool is open.
//! Times are generated here, not by the database, so both engines store the same values.

pub mod audit;
pub mod projects;
pub mod settings;
pub mod users;
pub mod workloads;

use chrono::{DateTime, SubsecRound, Utc};
use sqlx::ConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use std::str::FromStr;
use std::time::Duration;

/// An open database. Cheap to clone (the pools are reference counted).
#[derive(Clone, Debug)]
pub enum Database {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Which engine a URL selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

impl Engine {
    pub fn from_url(url: &str) -> Result<Self, DbError> {
        if url.starts_with("sqlite:") {
            Ok(Engine::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Engine::Postgres)
        } else {
            Err(DbError::Config(format!(
                "database URL must start with sqlite:, postgres:// or postgresql:// (got {:?})",
                redact(url)
            )))
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was violated; the text names what already exists.
    #[error("{0}")]
    Conflict(String),
    #[error("invalid database configuration: {0}")]
    Config(String),
    /// A stored value that the code cannot read back (e.g. an unknown phase name).
    #[error("corrupt row: {0}")]
    Corrupt(String),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(transparent)]
    Sqlx(sqlx::Error),
}

impl From<sqlx::Error> for DbError {
    fn from(e: sqlx::Error) -> Self {
        match e {
            sqlx::Error::RowNotFound => DbError::NotFound,
            other => DbError::Sqlx(other),
        }
    }
}

pub type DbResult<T> = Result<T, DbError>;

/// Maps a unique-constraint violation to [`DbError::Conflict`] with a message for the user.
pub(crate) fn conflict_as(message: impl FnOnce() -> String) -> impl FnOnce(sqlx::Error) -> DbError {
    move |e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => DbError::Conflict(message()),
        _ => DbError::from(e),
    }
}

/// Runs the same expression against whichever pool is open. The expression is compiled once
/// per engine, so it must only use SQL both understand.
macro_rules! on_pool {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::db::Database::Sqlite($pool) => $body,
            $crate::db::Database::Postgres($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

impl Database {
    /// Opens the database at `url`, creating a SQLite file (and its directory) when missing, and
    /// applies the migrations of its engine.
    pub async fn connect(url: &str) -> DbResult<Self> {
        let db = match Engine::from_url(url)? {
            Engine::Sqlite => {
                let options = SqliteConnectOptions::from_str(url)
                    .map_err(|e| DbError::Config(format!("bad SQLite URL: {e}")))?
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .foreign_keys(true)
                    .busy_timeout(Duration::from_secs(5))
                    .log_statements(tracing::log::LevelFilter::Trace);
                if let Some(dir) = options.get_filename().parent()
                    && !dir.as_os_str().is_empty()
                {
                    std::fs::create_dir_all(dir).map_err(|e| {
                        DbError::Config(format!(
                            "cannot create data directory {}: {e}",
                            dir.display()
                        ))
                    })?;
                }
                let pool = SqlitePoolOptions::new()
                    .max_connections(8)
                    .connect_with(options)
                    .await?;
                Database::Sqlite(pool)
            }
            Engine::Postgres => {
                let options = PgConnectOptions::from_str(url)
                    .map_err(|e| DbError::Config(format!("bad PostgreSQL URL: {e}")))?
                    .log_statements(tracing::log::LevelFilter::Trace);
                let pool = PgPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(5))
                    .connect_with(options)
                    .await?;
                Database::Postgres(pool)
            }
        };
        db.migrate().await?;
        Ok(db)
    }

    async fn migrate(&self) -> DbResult<()> {
        match self {
            Database::Sqlite(pool) => sqlx::migrate!("../migrations/sqlite").run(pool).await?,
            Database::Postgres(pool) => sqlx::migrate!("../migrations/postgres").run(pool).await?,
        }
        Ok(())
    }

    pub fn engine(&self) -> Engine {
        match self {
            Database::Sqlite(_) => Engine::Sqlite,
            Database::Postgres(_) => Engine::Postgres,
        }
    }

    /// Answers whether the database takes queries right now (the readiness probe).
    pub async fn ping(&self) -> DbResult<()> {
        on_pool!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()))?;
        Ok(())
    }

    pub async fn close(&self) {
        on_pool!(self, pool => pool.close().await)
    }

    pub fn projects(&self) -> projects::Projects<'_> {
        projects::Projects(self)
    }

    pub fn users(&self) -> users::Users<'_> {
        users::Users(self)
    }

    pub fn workloads(&self) -> workloads::Workloads<'_> {
        workloads::Workloads(self)
    }

    pub fn audit(&self) -> audit::Audit<'_> {
        audit::Audit(self)
    }

    pub fn settings(&self) -> settings::Settings<'_> {
        settings::Settings(self)
    }
}

/// The current time at the precision both engines store (microseconds), so a value read back
/// equals the value written.
pub fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
}

/// A URL with any password replaced, for messages and logs.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let userinfo = &url[scheme_end + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_follows_the_url_scheme() {
        assert_eq!(
            Engine::from_url("sqlite:data/t.db").unwrap(),
            Engine::Sqlite
        );
        assert_eq!(
            Engine::from_url("postgres://u@h/db").unwrap(),
            Engine::Postgres
        );
        assert_eq!(
            Engine::from_url("postgresql://u@h/db").unwrap(),
            Engine::Postgres
        );
        let err = Engine::from_url("mysql://u:secret@h/db")
            .unwrap_err()
            .to_string();
        assert!(err.contains("sqlite:, postgres://"), "{err}");
        assert!(!err.contains("secret"), "the password leaked: {err}");
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://tephra:hunter2@db:5432/t"),
            "postgres://tephra:***@db:5432/t"
        );
        assert_eq!(redact("postgres://tephra@db/t"), "postgres://tephra@db/t");
        assert_eq!(redact("sqlite:data/tephra.db"), "sqlite:data/tephra.db");
    }
}
