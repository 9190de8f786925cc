//! The order of the waiting workloads, shared by its readers: see [`Boards`].

use super::Board;
use crate::service::workloads::Workloads;
use app::error::AppError;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How long a computed order serves readers as it is.
pub(super) const BOARD_FRESH: Duration = Duration::from_secs(1);

/// How long an order older than [`BOARD_FRESH`] still serves readers while a new one is
/// computed behind them. Past it, the reader computes the order itself: a page read once a
/// minute must not show where things stood a minute ago.
pub(super) const BOARD_STALE: Duration = Duration::from_secs(5);

/// How long after its last reader the order is kept computed ahead of the next, once a
/// [`BOARD_FRESH`]: while pages are read (a dashboard open, a script polling) no reader waits
/// for it, and a cluster nobody looks at does not pay for it.
pub(super) const KEEP_WARM: Duration = Duration::from_secs(60);

/// The last order computed, and when. Readers take it without waiting: a fresh one as it is, a
/// stale one while a refresh computes the next behind them (the order reads every waiting row:
/// 35 ms with 10,000 on SQLite). For a minute after a read, a task keeps it fresh
/// ([`Workloads::keep_order_computed`]), so a page read now and then does not pay for it
/// either. One order is computed at a time; readers that need one meanwhile wait for it rather
/// than compute their own. A user's action here (submit, edit, suspend, resume, delete) makes
/// the next reader compute afresh, unless the task did since: whoever acted sees it.
#[derive(Default)]
pub(in crate::service::workloads) struct Boards {
    last: std::sync::Mutex<Option<Computed>>,
    /// Held while an order is computed.
    computing: tokio::sync::Mutex<()>,
    /// A refresh behind the readers is under way.
    refreshing: AtomicBool,
    /// How many actions this replica has taken; an order computed before the last is stale.
    actions: AtomicU64,
    /// When a reader last asked for the order.
    last_read: std::sync::Mutex<Option<Instant>>,
}

#[derive(Clone)]
struct Computed {
    at: Instant,
    actions: u64,
    board: Arc<Board>,
}

/// Whether the last order serves a reader.
enum Serves {
    Fresh(Arc<Board>),
    /// Serves it, and a refresh should start.
    Stale(Arc<Board>),
    No,
}

impl Boards {
    /// An action changed what waits: the order computed before it serves no one.
    pub(in crate::service::workloads) fn forget(&self) {
        self.actions.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether the last order serves a reader that knows `waiting` to wait.
    fn serves(&self, waiting: &[Uuid]) -> Serves {
        let actions = self.actions.load(Ordering::SeqCst);
        let Some(computed) = self.last.lock().unwrap_or_else(|p| p.into_inner()).clone() else {
            return Serves::No;
        };
        let age = computed.at.elapsed();
        let holds = waiting
            .iter()
            .all(|id| computed.board.by_id.contains_key(id));
        if computed.actions != actions || !holds || age >= BOARD_STALE {
            Serves::No
        } else if age < BOARD_FRESH {
            Serves::Fresh(computed.board)
        } else {
            Serves::Stale(computed.board)
        }
    }

    /// Makes the last order `by` older, as if computed that much earlier.
    #[cfg(test)]
    pub(super) fn age(&self, by: Duration) {
        if let Some(computed) = self.last.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            computed.at -= by;
        }
    }

    /// Whether a reader asked for the order within `within`.
    fn read_within(&self, within: Duration) -> bool {
        let last_read = *self.last_read.lock().unwrap_or_else(|p| p.into_inner());
        last_read.is_some_and(|at| at.elapsed() < within)
    }

    fn read_now(&self) {
        *self.last_read.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    }

    /// The last order computed, however old.
    #[cfg(test)]
    pub(super) fn kept(&self) -> Option<Arc<Board>> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        last.as_ref().map(|computed| Arc::clone(&computed.board))
    }

    /// Makes the last read `by` older, as if it had been that much earlier.
    #[cfg(test)]
    pub(super) fn unread_for(&self, by: Duration) {
        if let Some(at) = self
            .last_read
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            *at -= by;
        }
    }

    fn keep(&self, computed: Computed) {
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(computed);
    }
}

/// What computing the order reads, owned, so a refresh can run behind the reader that asked.
#[derive(Clone)]
struct Source {
    db: crate::db::Database,
    cluster: String,
    default_priority: Option<String>,
    boards: Arc<Boards>,
}

impl Source {
    /// Computes the order now (one at a time) unless `fresh_enough` finds one computed while
    /// this waited its turn, and keeps it.
    async fn compute(
        &self,
        fresh_enough: impl Fn(&Boards) -> Option<Arc<Board>>,
    ) -> Result<Arc<Board>, AppError> {
        let _turn = self.boards.computing.lock().await;
        if let Some(board) = fresh_enough(&self.boards) {
            return Ok(board);
        }
        let at = Instant::now();
        let actions = self.boards.actions.load(Ordering::SeqCst);
        let board = Arc::new(self.board_now().await?);
        self.boards.keep(Computed {
            at,
            actions,
            board: Arc::clone(&board),
        });
        Ok(board)
    }

    /// The order of every waiting workload of this cluster, read now.
    async fn board_now(&self) -> Result<Board, AppError> {
        let workloads = self.db.workloads();
        let rows = workloads.waiting(&self.cluster).await?;
        let mut projects: Vec<Uuid> = rows.iter().map(|row| row.project_id).collect();
        projects.sort_unstable();
        projects.dedup();
        let queues = workloads.queues(&projects, &rows).await?;
        Ok(Board::new(rows, queues, self.default_priority.as_deref()))
    }

    /// Computes the order now unless a fresh one is kept, if a reader asked for it within
    /// [`KEEP_WARM`]: what [`Source::keep_warm`] does once a [`BOARD_FRESH`].
    async fn keep_warm_once(&self) -> Result<(), AppError> {
        if self.boards.read_within(KEEP_WARM) && fresh_for(&self.boards, &[]).is_none() {
            self.compute(|boards| fresh_for(boards, &[])).await?;
        }
        Ok(())
    }

    /// Keeps the order fresh while it is read, for good (a supervised task).
    async fn keep_warm(self) {
        let mut every = tokio::time::interval(BOARD_FRESH);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if let Err(error) = self.keep_warm_once().await {
                // Readers compute it themselves meanwhile, and answer the error if it lasts.
                tracing::warn!(%error, "cannot compute the order of the waiting workloads");
            }
        }
    }
}

/// The order kept, if it is fresh and holds each of `waiting`.
fn fresh_for(boards: &Boards, waiting: &[Uuid]) -> Option<Arc<Board>> {
    match boards.serves(waiting) {
        Serves::Fresh(board) => Some(board),
        _ => None,
    }
}

impl Workloads {
    fn board_source(&self) -> Source {
        Source {
            db: self.db.clone(),
            cluster: self.cluster.id.clone(),
            default_priority: self.profile.default_training_priority.clone(),
            boards: Arc::clone(&self.boards),
        }
    }

    /// Keeps the order of the waiting workloads computed ahead of its readers, for a minute
    /// after each read ([`KEEP_WARM`]), on a supervised task named "queue order".
    pub fn keep_order_computed(&self, health: crate::supervise::Health) {
        let source = self.board_source();
        crate::supervise::supervise("queue order", health, move || source.clone().keep_warm());
    }

    /// What the task keeping the order computed does once a [`BOARD_FRESH`].
    #[cfg(test)]
    pub(super) async fn keep_order_once(&self) -> Result<(), AppError> {
        self.board_source().keep_warm_once().await
    }

    /// Starts computing the next order behind the readers, unless one already is.
    fn refresh_behind(&self) {
        if self.boards.refreshing.swap(true, Ordering::SeqCst) {
            return;
        }
        let source = self.board_source();
        tokio::spawn(async move {
            if let Err(error) = source.compute(|boards| fresh_for(boards, &[])).await {
                // The stale order serves until it is too old; then a reader computes it and
                // answers the error itself.
                tracing::warn!(%error, "cannot compute the order of the waiting workloads");
            }
            source.boards.refreshing.store(false, Ordering::SeqCst);
        });
    }

    /// The order of every waiting workload of this cluster, holding each of `waiting`
    /// (workloads the caller knows to wait) that is still waiting: at most [`BOARD_FRESH`] old,
    /// or [`BOARD_STALE`] while the next is computed.
    pub(in crate::service::workloads) async fn board(
        &self,
        waiting: &[Uuid],
    ) -> Result<Arc<Board>, AppError> {
        self.boards.read_now();
        match self.boards.serves(waiting) {
            Serves::Fresh(board) => Ok(board),
            Serves::Stale(board) => {
                self.refresh_behind();
                Ok(board)
            }
            Serves::No => {
                self.board_source()
                    .compute(|boards| fresh_for(boards, waiting))
                    .await
            }
        }
    }
}
