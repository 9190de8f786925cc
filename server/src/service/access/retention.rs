//! The audit trail's retention: entries older than `--audit-retention-days` are removed every
//! hour, a batch at a time so no transaction holds the writers' turn for long, each batch with an
//! `audit.forgotten` entry that says how many went. Without it the trail grows with every
//! sign-in and status change for as long as Tephra runs.

use super::Access;
use crate::db::Database;
use crate::supervise::{Health, supervise};
use std::time::Duration;

/// How often the retention looks for entries past it.
const EVERY: Duration = Duration::from_secs(3600);
/// The most entries one transaction removes.
const BATCH: i64 = 5_000;

impl Access {
    /// Keeps the audit trail to the last `days` days (0 keeps everything), on a supervised task.
    pub fn keep_audit_within(&self, days: u32, health: Health) {
        if days == 0 {
            return;
        }
        let db = self.db.clone();
        supervise("audit retention", health, move || {
            forget_forever(db.clone(), days)
        });
    }
}

async fn forget_forever(db: Database, days: u32) {
    let mut tick = tokio::time::interval(EVERY);
    loop {
        tick.tick().await;
        match forget(&db, days).await {
            Ok(0) => {}
            Ok(gone) => tracing::info!(
                entries = gone,
                days,
                "audit entries past the retention removed"
            ),
            Err(e) => {
                tracing::warn!(error = %e, "the audit retention could not be applied; trying again")
            }
        }
    }
}

/// Removes every entry older than `days` days, batch by batch; how many went.
pub async fn forget(db: &Database, days: u32) -> Result<u64, crate::db::DbError> {
    let before = chrono::Utc::now() - chrono::Duration::days(i64::from(days));
    let mut gone = 0;
    loop {
        let batch = db.audit().forget_before(before, BATCH).await?;
        gone += batch;
        if batch < BATCH as u64 {
            return Ok(gone);
        }
    }
}
