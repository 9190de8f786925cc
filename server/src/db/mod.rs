//! Storage: one [`Database`] over SQLite (the embedded default) or PostgreSQL, chosen by the URL
//! scheme, and small typed repositories over its tables.
//!
//! The SQL is written once and runs on both engines (`$1` placeholders, no engine-specific
//! functions), so each repository method is a single query executed on whichever pool is open.
//! Times are generated here, not by the database, so both engines store the same values.
//!
//! Errors that mean "the database cannot be reached right now" (refused or dropped connections,
//! a server shutting down or starting up, no connection within [`ACQUIRE_TIMEOUT`]) become
//! [`DbError::Unavailable`], which the HTTP layer answers with 503: the request did nothing and
//! may be retried, unlike an internal error. The pool reconnects by itself once the database is
//! back, so an outage needs no restart.

pub mod access_rules;
pub mod applications;
pub mod audit;
pub mod departments;
pub mod policies;
mod pools;
mod probe;
pub mod projects;
mod scoped;
pub mod settings;
mod sqlite;
pub(crate) use pools::{on_pool, write_transaction};
pub use probe::{DbAnswer, PROBE_TIMEOUT, Prober};
pub mod users;
pub mod workloads;

pub use sqlite::SqliteDb;

use chrono::{DateTime, SubsecRound, Utc};
use sqlx::ConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use std::str::FromStr;
use std::time::Duration;

/// How long a query waits for a connection. sqlx's default (30 s) would hold every request for
/// half a minute during a database outage; a few seconds covers a busy pool and a reconnect.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// An open database. Cheap to clone (the pools are reference counted).
#[derive(Clone, Debug)]
pub enum Database {
    Sqlite(SqliteDb),
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
    /// The database cannot be reached right now; nothing was done and a retry may succeed.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(transparent)]
    Sqlx(sqlx::Error),
}

/// What a user learns when storage fails. Services let `?` do this where a row that is not found
/// means nothing more specific; where it does, they say what was not found themselves.
impl From<DbError> for app::error::AppError {
    fn from(e: DbError) -> Self {
        use app::error::AppError;
        match e {
            DbError::NotFound => AppError::NotFound("the requested object was not found".into()),
            DbError::Conflict(message) => AppError::Conflict(message),
            // Already logged where it was classified; its text is safe to show.
            unavailable @ DbError::Unavailable(_) => AppError::Unavailable(unavailable.to_string()),
            other => {
                // The details stay in the log; the client only learns that it failed.
                tracing::error!(error = %other, "database error");
                AppError::Internal
            }
        }
    }
}

impl From<sqlx::Error> for DbError {
    fn from(e: sqlx::Error) -> Self {
        if let Some(reason) = unavailable_reason(&e) {
            // The cause stays in the log; the client gets a reason without addresses or names.
            tracing::warn!(error = %e, "the database is unavailable");
            return DbError::Unavailable(reason);
        }
        match e {
            sqlx::Error::RowNotFound => DbError::NotFound,
            other => DbError::Sqlx(other),
        }
    }
}

/// Why `e` means the database cannot be reached, or `None` when the database answered.
fn unavailable_reason(e: &sqlx::Error) -> Option<String> {
    let reason = match e {
        sqlx::Error::PoolTimedOut => {
            return Some(format!(
                "no connection within {} seconds; try again shortly",
                ACQUIRE_TIMEOUT.as_secs()
            ));
        }
        sqlx::Error::PoolClosed => "the connection pool is closed",
        sqlx::Error::Io(_) => "the connection failed; try again shortly",
        sqlx::Error::Tls(_) => "the TLS connection failed",
        sqlx::Error::Database(db) => {
            // Only PostgreSQL's SQLSTATEs: SQLite's numeric codes mean other things.
            let code = db
                .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()?
                .code();
            match code {
                "57P01" | "57P02" => "the database server is shutting down",
                "57P03" => "the database server is starting up; try again shortly",
                "53300" => "the database server has no free connections",
                // Class 08: connection exceptions.
                _ if code.starts_with("08") => "the connection failed; try again shortly",
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(reason.to_owned())
}

pub type DbResult<T> = Result<T, DbError>;

/// Maps a unique-constraint violation to [`DbError::Conflict`] with a message for the user.
pub(crate) fn conflict_as(message: impl FnOnce() -> String) -> impl FnOnce(sqlx::Error) -> DbError {
    move |e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => DbError::Conflict(message()),
        _ => DbError::from(e),
    }
}

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
                // SQLite runs in this process: a connection that was fine when returned to the
                // pool is fine when taken again. The check sqlx makes by default before handing one
                // out (a ping through the connection's thread) was a second round trip on every
                // query.
                let pool = SqlitePoolOptions::new()
                    .max_connections(8)
                    .test_before_acquire(false)
                    .connect_with(options)
                    .await?;
                Database::Sqlite(SqliteDb::new(pool))
            }
            Engine::Postgres => {
                let options = PgConnectOptions::from_str(url)
                    .map_err(|e| DbError::Config(format!("bad PostgreSQL URL: {e}")))?
                    .log_statements(tracing::log::LevelFilter::Trace);
                let pool = PgPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
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
            Database::Sqlite(SqliteDb { pool, .. }) => {
                sqlx::migrate!("../migrations/sqlite").run(pool).await?
            }
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

    /// Held through a write transaction: the writers' turn on SQLite ([`SqliteDb`]); nothing on
    /// PostgreSQL, whose writers lock rows, not the database.
    pub async fn writing(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match self {
            Database::Sqlite(db) => Some(db.turn().await),
            Database::Postgres(_) => None,
        }
    }

    /// Answers whether the database takes queries right now (the readiness probe).
    pub async fn ping(&self) -> DbResult<()> {
        on_pool!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()))?;
        Ok(())
    }

    /// Open connections, idle ones among them, and the most the pool opens.
    pub fn pool_use(&self) -> (u32, u32, u32) {
        on_pool!(self, pool => (
            pool.size(),
            u32::try_from(pool.num_idle()).unwrap_or(u32::MAX),
            pool.options().get_max_connections(),
        ))
    }

    pub async fn close(&self) {
        on_pool!(self, pool => pool.close().await)
    }

    pub fn departments(&self) -> departments::Departments<'_> {
        departments::Departments(self)
    }

    pub fn policies(&self) -> policies::Policies<'_> {
        policies::Policies(self)
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

    pub fn access_rules(&self) -> access_rules::AccessRules<'_> {
        access_rules::AccessRules(self)
    }

    pub fn applications(&self) -> applications::Applications<'_> {
        applications::Applications(self)
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
    fn lost_connections_are_unavailable_and_other_errors_are_not() {
        let io = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        for (error, reason) in [
            (sqlx::Error::PoolTimedOut, "no connection within 3 seconds"),
            (sqlx::Error::PoolClosed, "pool is closed"),
            (sqlx::Error::Io(io), "connection failed"),
        ] {
            match DbError::from(error) {
                DbError::Unavailable(text) => assert!(text.contains(reason), "{text}"),
                other => panic!("expected Unavailable, got {other:?}"),
            }
        }
        assert!(matches!(
            DbError::from(sqlx::Error::RowNotFound),
            DbError::NotFound
        ));
        assert!(matches!(
            DbError::from(sqlx::Error::ColumnNotFound("x".into())),
            DbError::Sqlx(_)
        ));
        let shown = DbError::from(sqlx::Error::PoolTimedOut).to_string();
        assert!(
            shown.starts_with("the database is unavailable: "),
            "{shown}"
        );
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
