//! The readiness probe's own connection to the database, and the answer it last gave.
//!
//! `/readyz` reads the answer a background task keeps fresh ([`Prober::keep_asking`]) instead
//! of asking the database itself. Under 10,000 event streams and a thousand pods changing phase,
//! a probe that asked waited for the database's worker to be scheduled on top of its own thread
//! (issue 36: `/readyz` p99 about 300 ms on two cores). An answer older than [`FRESH`] is not
//! trusted: the probe then asks itself, as before, so a stuck or starved task cannot keep a
//! replica looking ready.

use super::{Database, DbResult, on_pool};
use sqlx::{ConnectOptions, PgConnection, SqliteConnection};
use std::sync::Mutex;
#[cfg(test)]
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long the database may take to answer before it counts as silent.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// How often the background task asks.
const EVERY: Duration = Duration::from_secs(1);
/// How old an answer may be and still be used: a second between asks, two for a slow answer.
const FRESH: Duration = Duration::from_secs(3);

enum Open {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

/// What the database answered to `SELECT 1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbAnswer {
    Answers,
    /// It refused or the connection failed; the error, for the operator's log.
    Fails(String),
    /// It did not answer within [`PROBE_TIMEOUT`].
    Silent,
}

/// Asks whether the database answers, on a connection of its own, so the probe does not queue for
/// one of the pool's connections behind the work that holds them. A busy pool is no reason to take
/// a replica out of its Service; a database that does not answer is.
pub struct Prober {
    db: Database,
    /// On PostgreSQL the socket belongs to the runtime that opened it (the main one, where the
    /// background task asks) and is driven by it when the probes' thread asks. Should the main
    /// runtime stop first, that ask fails, drops the connection and opens one on its own runtime.
    open: tokio::sync::Mutex<Option<Open>>,
    last: Mutex<Option<(Instant, DbAnswer)>>,
    fresh: Duration,
    /// How often it asked: what its tests read.
    #[cfg(test)]
    asked: AtomicU64,
}

impl Prober {
    pub fn new(db: Database) -> Self {
        Self::kept_for(db, FRESH)
    }

    fn kept_for(db: Database, fresh: Duration) -> Self {
        Prober {
            db,
            open: tokio::sync::Mutex::new(None),
            last: Mutex::new(None),
            fresh,
            #[cfg(test)]
            asked: AtomicU64::new(0),
        }
    }

    fn closed(&self) -> bool {
        on_pool!(&self.db, pool => pool.is_closed())
    }

    /// The last answer while it is fresh, else a new one. Once the pool is closed (shutting
    /// down) the database fails at once, whatever was answered before.
    pub async fn answer(&self) -> DbAnswer {
        if self.closed() {
            return DbAnswer::Fails(sqlx::Error::PoolClosed.to_string());
        }
        let kept = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match kept {
            Some((at, answer)) if at.elapsed() < self.fresh => answer,
            _ => self.ask().await,
        }
    }

    /// Asks now (waiting at most [`PROBE_TIMEOUT`], a wait for the connection included) and keeps
    /// the answer.
    pub async fn ask(&self) -> DbAnswer {
        #[cfg(test)]
        self.asked.fetch_add(1, Ordering::Relaxed);
        let answer = match tokio::time::timeout(PROBE_TIMEOUT, self.ping()).await {
            Ok(Ok(())) => DbAnswer::Answers,
            Ok(Err(error)) => DbAnswer::Fails(error.to_string()),
            Err(_) => DbAnswer::Silent,
        };
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((Instant::now(), answer.clone()));
        answer
    }

    /// Asks every second until the pool closes. Should this task end or starve, answers go
    /// stale and [`Prober::answer`] asks itself.
    pub async fn keep_asking(self: std::sync::Arc<Self>) {
        while !self.closed() {
            self.ask().await;
            tokio::time::sleep(EVERY).await;
        }
    }

    /// `SELECT 1` on the probe's connection, opened with the pool's options when there is none;
    /// a connection that fails is dropped, and the next ask opens another.
    async fn ping(&self) -> DbResult<()> {
        if self.closed() {
            return Err(sqlx::Error::PoolClosed.into());
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

#[cfg(test)]
mod tests {
    use super::*;

    async fn database() -> Database {
        Database::connect("sqlite::memory:")
            .await
            .expect("an in-memory SQLite database opens")
    }

    fn asked(prober: &Prober) -> u64 {
        prober.asked.load(Ordering::Relaxed)
    }

    #[tokio::test]
    async fn a_fresh_answer_is_used_without_asking_again() {
        let prober = Prober::new(database().await);
        assert_eq!(
            prober.answer().await,
            DbAnswer::Answers,
            "nothing kept: asks"
        );
        assert_eq!(asked(&prober), 1);
        assert_eq!(prober.answer().await, DbAnswer::Answers);
        assert_eq!(prober.answer().await, DbAnswer::Answers);
        assert_eq!(asked(&prober), 1, "the kept answer was fresh");
    }

    #[tokio::test]
    async fn a_stale_answer_is_not_trusted() {
        let prober = Prober::kept_for(database().await, Duration::ZERO);
        prober.answer().await;
        prober.answer().await;
        assert_eq!(
            asked(&prober),
            2,
            "an answer older than `fresh` is asked again"
        );
    }

    #[tokio::test]
    async fn a_closed_pool_fails_at_once_whatever_was_answered() {
        let db = database().await;
        let prober = Prober::new(db.clone());
        assert_eq!(prober.ask().await, DbAnswer::Answers);
        db.close().await;
        assert!(matches!(prober.answer().await, DbAnswer::Fails(_)));
        assert_eq!(asked(&prober), 1, "no ask was needed to know");
        assert!(matches!(prober.ask().await, DbAnswer::Fails(_)));
    }

    #[tokio::test]
    async fn the_background_task_keeps_the_answer_fresh_and_ends_with_the_pool() {
        let db = database().await;
        let prober = std::sync::Arc::new(Prober::new(db.clone()));
        let task = tokio::spawn(prober.clone().keep_asking());
        tokio::time::timeout(Duration::from_secs(10), async {
            while asked(&prober) < 2 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .expect("it asks again a second later");
        assert_eq!(prober.answer().await, DbAnswer::Answers);
        db.close().await;
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("the task ends once the pool is closed")
            .expect("it did not panic");
    }
}
