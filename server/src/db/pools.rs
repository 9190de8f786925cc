//! The macros that run one piece of SQL on whichever engine's pool is open.

/// Runs the same expression against whichever pool is open. The expression is compiled once
/// per engine, so it must only use SQL both understand.
macro_rules! on_pool {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::db::Database::Sqlite($crate::db::SqliteDb { pool: $pool, .. }) => $body,
            $crate::db::Database::Postgres($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

/// Runs `$body` in a write transaction `$tx` on whichever pool is open, after taking the writers'
/// turn ([`Database::writing`]), which is held until the body is done.
macro_rules! write_transaction {
    ($db:expr, $tx:ident => $body:expr) => {{
        let _turn = $db.writing().await;
        $crate::db::on_pool!($db, pool => {
            let mut $tx = pool.begin().await?;
            $body
        })
    }};
}
pub(crate) use write_transaction;
