//! The order of the waiting workloads, shared by its readers: see [`Boards`].

use super::Board;
use super::acted::Acted;
use crate::service::workloads::Workloads;
use app::error::AppError;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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
/// than compute their own. After a user's action here (submit, edit, suspend, resume, delete)
/// the next reader brings the order up to date with the workloads acted on, reading only their
/// rows and the queues (a few milliseconds where computing it takes tens): whoever acted sees it.
#[derive(Default)]
pub(in crate::service::workloads) struct Boards {
    last: std::sync::Mutex<Option<Computed>>,
    /// Held while an order is computed.
    computing: tokio::sync::Mutex<()>,
    /// Held while an order is brought up to date with actions; not while one is computed, so
    /// a reader after an action does not wait for the tens of milliseconds that takes.
    patching: tokio::sync::Mutex<()>,
    /// A refresh behind the readers is under way.
    refreshing: AtomicBool,
    /// The workloads this replica acted on, which an order computed before is behind on.
    acted: std::sync::Mutex<Acted>,
    /// When a reader last asked for the order.
    last_read: std::sync::Mutex<Option<Instant>>,
}

#[derive(Clone)]
struct Computed {
    /// When its rows were read: a patched order keeps its age, as the rest of it is that old.
    at: Instant,
    /// How many actions it holds.
    actions: u64,
    board: Arc<Board>,
}

/// Whether the last order serves a reader.
enum Serves {
    Fresh(Arc<Board>),
    /// Serves it, and a refresh should start.
    Stale(Arc<Board>),
    /// Serves it once brought up to date with the actions taken here since.
    Behind(Computed),
    No,
}

impl Boards {
    /// An action here changed workload `id` (after its write committed): the order computed
    /// before it is behind.
    pub(in crate::service::workloads) fn acted_on(&self, id: Uuid) {
        self.acted().record(id);
    }

    pub(super) fn acted(&self) -> std::sync::MutexGuard<'_, Acted> {
        self.acted.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the last order serves a reader that knows `waiting` to wait.
    fn serves(&self, waiting: &[Uuid]) -> Serves {
        let actions = self.acted().count;
        let Some(computed) = self.last.lock().unwrap_or_else(|p| p.into_inner()).clone() else {
            return Serves::No;
        };
        let age = computed.at.elapsed();
        if age >= BOARD_STALE {
            return Serves::No;
        }
        if computed.actions != actions {
            return Serves::Behind(computed);
        }
        if !computed.board.holds(waiting) {
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

    /// Keeps `patched` as the last order if the order it was patched from still is: one
    /// computed meanwhile is newer.
    fn keep_patched(&self, from: &Computed, patched: Computed) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let same = last
            .as_ref()
            .is_some_and(|now| now.at == from.at && now.actions == from.actions);
        if same {
            *last = Some(patched);
        }
    }

    /// Keeps `computed` as the last order; the actions it holds are let go.
    fn keep(&self, computed: Computed) {
        let actions = computed.actions;
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(computed);
        self.acted().held(actions);
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
        let actions = self.boards.acted().count;
        let board = Arc::new(self.board_now().await?);
        self.boards.keep(Computed {
            at,
            actions,
            board: Arc::clone(&board),
        });
        Ok(board)
    }

    /// Brings the last order up to date with the actions taken here since it was computed (one
    /// at a time), or computes it when it cannot be, for a reader that knows `waiting` to wait.
    async fn catch_up(&self, waiting: &[Uuid]) -> Result<Arc<Board>, AppError> {
        let turn = self.boards.patching.lock().await;
        let computed = match self.boards.serves(waiting) {
            Serves::Fresh(board) | Serves::Stale(board) => return Ok(board),
            Serves::Behind(computed) => Some(computed),
            Serves::No => None,
        };
        let since = computed.and_then(|c| Some((self.boards.acted().since(c.actions)?, c)));
        let Some(((actions, acted), computed)) = since else {
            drop(turn);
            return self.compute(|boards| fresh_for(boards, waiting)).await;
        };
        let workloads = self.db.workloads();
        let now = workloads.waiting_among(&self.cluster, &acted).await?;
        let rows = computed.board.rows_after(&acted, now);
        let queues = workloads.queues(&super::projects_of(&rows), &rows).await?;
        let board = Arc::new(Board::new(rows, queues, self.default_priority.as_deref()));
        let patched = Computed {
            at: computed.at,
            actions,
            board: Arc::clone(&board),
        };
        self.boards.keep_patched(&computed, patched);
        drop(turn);
        if board.holds(waiting) {
            Ok(board)
        } else {
            self.compute(|boards| fresh_for(boards, waiting)).await
        }
    }

    /// The order of every waiting workload of this cluster, read now.
    async fn board_now(&self) -> Result<Board, AppError> {
        let workloads = self.db.workloads();
        let rows = workloads.waiting(&self.cluster).await?;
        let queues = workloads.queues(&super::projects_of(&rows), &rows).await?;
        Ok(Board::new(rows, queues, self.default_priority.as_deref()))
    }

    /// Computes the order now unless a fresh one is kept, if a reader asked for it within
    /// [`KEEP_WARM`]: what [`Source::keep_warm`] does once a [`BOARD_FRESH`].
    async fn keep_warm_once(&self) -> Result<(), AppError> {
        if self.boards.read_within(KEEP_WARM) && young(&self.boards).is_none() {
            self.compute(young).await?;
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

/// The order kept if it was computed within [`BOARD_FRESH`], whatever was done here since: a
/// reader brings such an order up to date with the actions itself.
fn young(boards: &Boards) -> Option<Arc<Board>> {
    let last = boards.last.lock().unwrap_or_else(|p| p.into_inner());
    last.as_ref()
        .filter(|computed| computed.at.elapsed() < BOARD_FRESH)
        .map(|computed| Arc::clone(&computed.board))
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
            Serves::Behind(_) => self.board_source().catch_up(waiting).await,
            Serves::No => {
                self.board_source()
                    .compute(|boards| fresh_for(boards, waiting))
                    .await
            }
        }
    }
}
