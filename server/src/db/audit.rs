//! The audit trail: who did what to which object, and when. Volcano keeps no such record, so
//! suspend, resume and delete are answerable only from here.

use super::{DbResult, now, on_pool};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    pub id: i64,
    pub at: DateTime<Utc>,
    /// Who acted; `None` for Tephra itself (e.g. the reconciler recording a phase change).
    pub actor_id: Option<Uuid>,
    /// What happened, as a dotted verb: `workload.submit`, `workload.suspend`, `workload.phase`.
    pub action: String,
    pub target_kind: String,
    pub target_id: Uuid,
    pub detail: serde_json::Value,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    at: DateTime<Utc>,
    actor_id: Option<Uuid>,
    action: String,
    target_kind: String,
    target_id: Uuid,
    detail: Json<serde_json::Value>,
}

impl From<Row> for AuditEvent {
    fn from(r: Row) -> Self {
        AuditEvent {
            id: r.id,
            at: r.at,
            actor_id: r.actor_id,
            action: r.action,
            target_kind: r.target_kind,
            target_id: r.target_id,
            detail: r.detail.0,
        }
    }
}

/// Records an audit event on `$executor` (a transaction, so the event and the change it
/// describes are written together or not at all). Expands to a future of `sqlx::Result<_>`.
macro_rules! record_in {
    ($executor:expr, $actor:expr, $action:expr, $kind:expr, $target:expr, $detail:expr) => {
        sqlx::query(
            "INSERT INTO audit_events (at, actor_id, action, target_kind, target_id, detail)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind($crate::db::now())
        .bind($actor)
        .bind($action)
        .bind($kind)
        .bind($target)
        .bind(sqlx::types::Json($detail))
        .execute($executor)
    };
}
pub(crate) use record_in;

pub struct Audit<'a>(pub(super) &'a super::Database);

impl Audit<'_> {
    pub async fn record(
        &self,
        actor_id: Option<Uuid>,
        action: &str,
        target_kind: &str,
        target_id: Uuid,
        detail: serde_json::Value,
    ) -> DbResult<AuditEvent> {
        let row: Row = on_pool!(self.0, pool => sqlx::query_as(
            "INSERT INTO audit_events (at, actor_id, action, target_kind, target_id, detail)
             VALUES ($1, $2, $3, $4, $5, $6)
             RETURNING id, at, actor_id, action, target_kind, target_id, detail",
        )
        .bind(now())
        .bind(actor_id)
        .bind(action)
        .bind(target_kind)
        .bind(target_id)
        .bind(Json(&detail))
        .fetch_one(pool)
        .await)?;
        Ok(row.into())
    }

    /// The history of one object, oldest first.
    pub async fn for_target(
        &self,
        target_kind: &str,
        target_id: Uuid,
    ) -> DbResult<Vec<AuditEvent>> {
        let rows: Vec<Row> = on_pool!(self.0, pool => sqlx::query_as(
            "SELECT id, at, actor_id, action, target_kind, target_id, detail
               FROM audit_events WHERE target_kind = $1 AND target_id = $2 ORDER BY id",
        )
        .bind(target_kind)
        .bind(target_id)
        .fetch_all(pool)
        .await)?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    /// The latest `limit` events, newest first.
    pub async fn recent(&self, limit: i64) -> DbResult<Vec<AuditEvent>> {
        let rows: Vec<Row> = on_pool!(self.0, pool => sqlx::query_as(
            "SELECT id, at, actor_id, action, target_kind, target_id, detail
               FROM audit_events ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(pool)
        .await)?;
        Ok(rows.into_iter().map(Into::into).collect())
    }
}
