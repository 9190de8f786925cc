//! Pokes between replicas: a user's action on a replica that does not reconcile wakes the one
//! that does, through LISTEN/NOTIFY on the PostgreSQL database they share. Without it the action
//! would wait for the controller's next pass.

use crate::supervise::{self, Health};
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

const CHANNEL: &str = "tephra_poke";

/// Starts the two supervised tasks: one sends this replica's pokes to the others, one hands the
/// others' pokes to the local controller while this replica leads. Returns where to send a poke
/// for the others.
pub fn start(
    pool: PgPool,
    trigger: mpsc::UnboundedSender<Uuid>,
    leading: watch::Receiver<bool>,
    health: Health,
) -> mpsc::UnboundedSender<Uuid> {
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Uuid>();
    let out_rx = Arc::new(tokio::sync::Mutex::new(out_rx));
    let send_pool = pool.clone();
    supervise::supervise("poke sender", health.clone(), move || {
        let (pool, out_rx) = (send_pool.clone(), Arc::clone(&out_rx));
        async move {
            let mut out_rx = out_rx.lock().await;
            while let Some(id) = out_rx.recv().await {
                let sent = sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(CHANNEL)
                    .bind(id.to_string())
                    .execute(&pool)
                    .await;
                if let Err(error) = sent {
                    // The controller's next pass looks at it anyway.
                    tracing::warn!(%error, workload = %id, "cannot tell the reconciling replica");
                }
            }
        }
    });
    supervise::supervise("poke listener", health, move || {
        let (pool, trigger, leading) = (pool.clone(), trigger.clone(), leading.clone());
        async move {
            if let Err(error) = listen(pool, trigger, leading).await {
                // Supervision restarts it; pokes missed meanwhile wait for the next pass.
                tracing::warn!(%error, "stopped listening for other replicas' pokes");
            }
        }
    });
    out_tx
}

async fn listen(
    pool: PgPool,
    trigger: mpsc::UnboundedSender<Uuid>,
    leading: watch::Receiver<bool>,
) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect_with(&pool).await?;
    listener.listen(CHANNEL).await?;
    loop {
        let notification = listener.recv().await?;
        // A replica that does not lead has no controller running to hand it to.
        if *leading.borrow()
            && let Ok(id) = notification.payload().parse::<Uuid>()
        {
            let _ = trigger.send(id);
        }
    }
}
