//! The audit trail: who did what to which object, and when. Volcano keeps no such record, so
//! suspend, resume and delete are answerable only from here.

use super::{DbResult, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tephra_core::model::history::{AuditAction, AuditTarget};
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    pub id: i64,
    pub at: DateTime<Utc>,
    /// Who acted; `None` for Tephra itself (e.g. the controller recording a phase change).
    pub actor_id: Option<Uuid>,
    pub action: AuditAction,
    pub target_kind: AuditTarget,
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

impl Row {
    /// The event, unless its action or target is one Tephra never writes (a row edited by
    /// hand): that one is logged and left out rather than failing the whole trail.
    fn event(self) -> Option<AuditEvent> {
        let (Some(action), Some(target_kind)) = (
            AuditAction::parse(&self.action),
            AuditTarget::parse(&self.target_kind),
        ) else {
            tracing::error!(id = self.id, action = %self.action, target = %self.target_kind,
                "an audit event Tephra does not know is left out");
            return None;
        };
        Some(AuditEvent {
            id: self.id,
            at: self.at,
            actor_id: self.actor_id,
            action,
            target_kind,
            target_id: self.target_id,
            detail: self.detail.0,
        })
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
        .bind(tephra_core::model::history::AuditAction::as_str($action))
        .bind(tephra_core::model::history::AuditTarget::as_str($kind))
        .bind($target)
        .bind(sqlx::types::Json($detail))
        .execute($executor)
    };
}
pub(crate) use record_in;

/// What a change's audit entry keeps of an object's settings: all of them when it is made
/// (`before` is null) or removed (`after` is null), and only those that changed when it is
/// changed, so an entry says what the change did.
pub(crate) fn before_after(
    before: Option<serde_json::Value>,
    after: Option<serde_json::Value>,
) -> (serde_json::Value, serde_json::Value) {
    use serde_json::Value;
    match (before, after) {
        (Some(Value::Object(mut was)), Some(Value::Object(mut is))) => {
            was.retain(|key, value| is.get(key) != Some(value));
            is.retain(|key, _| was.contains_key(key));
            (Value::Object(was), Value::Object(is))
        }
        (before, after) => (before.unwrap_or(Value::Null), after.unwrap_or(Value::Null)),
    }
}

pub struct Audit<'a>(pub(super) &'a super::Database);

impl Audit<'_> {
    pub async fn record(
        &self,
        actor_id: Option<Uuid>,
        action: AuditAction,
        target_kind: AuditTarget,
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
        .bind(action.as_str())
        .bind(target_kind.as_str())
        .bind(target_id)
        .bind(Json(&detail))
        .fetch_one(pool)
        .await)?;
        Ok(AuditEvent {
            id: row.id,
            at: row.at,
            actor_id: row.actor_id,
            action,
            target_kind,
            target_id,
            detail,
        })
    }

    /// The history of one object, oldest first.
    pub async fn for_target(
        &self,
        target_kind: AuditTarget,
        target_id: Uuid,
    ) -> DbResult<Vec<AuditEvent>> {
        let rows: Vec<Row> = on_pool!(self.0, pool => sqlx::query_as(
            "SELECT id, at, actor_id, action, target_kind, target_id, detail
               FROM audit_events WHERE target_kind = $1 AND target_id = $2 ORDER BY id",
        )
        .bind(target_kind.as_str())
        .bind(target_id)
        .fetch_all(pool)
        .await)?;
        Ok(rows.into_iter().filter_map(Row::event).collect())
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
        Ok(rows.into_iter().filter_map(Row::event).collect())
    }
}

impl Audit<'_> {
    /// Removes up to `batch` of the oldest events from before `before`, with an
    /// `audit.forgotten` entry saying how many, in one transaction; how many went. Oldest
    /// first by id, which follows time, so the scan stops at the first `batch` it finds.
    pub async fn forget_before(&self, before: DateTime<Utc>, batch: i64) -> DbResult<u64> {
        let forgotten = write_transaction!(self.0, tx => {
            let gone = sqlx::query(
                "DELETE FROM audit_events WHERE id IN (
                     SELECT id FROM audit_events WHERE at < $1 ORDER BY id LIMIT $2)",
            )
            .bind(before)
            .bind(batch)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if gone > 0 {
                let detail = serde_json::json!({
                    "entries": gone,
                    "before": before.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                });
                record_in!(&mut *tx, None::<Uuid>, AuditAction::AuditForgotten,
                    AuditTarget::System, Uuid::nil(), &detail)
                .await?;
            }
            tx.commit().await?;
            gone
        });
        Ok(forgotten)
    }
}

/// Which events [`Audit::search`] returns, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// The actor's e-mail or display name (an application's name).
    pub actor: Option<String>,
    /// An action, or its first part (`workload` matches `workload.submit`).
    pub action: Option<String>,
    pub target_kind: Option<AuditTarget>,
    pub since: Option<DateTime<Utc>>,
    pub limit: i64,
    pub offset: i64,
}

/// An event with who acted, as people know them.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditListing {
    pub event: AuditEvent,
    /// The actor's e-mail, else their display name.
    pub actor_name: Option<String>,
    /// The actor's issuer: an application's is `applications::APP_ISSUER`.
    pub actor_issuer: Option<String>,
}

#[derive(sqlx::FromRow)]
struct ListingRow {
    #[sqlx(flatten)]
    event: Row,
    actor_name: Option<String>,
    actor_issuer: Option<String>,
}

const SEARCH: &str = "FROM audit_events a LEFT JOIN users u ON u.id = a.actor_id
    WHERE (CAST($1 AS TEXT) IS NULL OR u.email = $1 OR u.display_name = $1)
      AND (CAST($2 AS TEXT) IS NULL OR a.action = $2 OR a.action LIKE $3 ESCAPE '\\')
      AND (CAST($4 AS TEXT) IS NULL OR a.target_kind = $4)
      AND ($5 IS NULL OR a.at >= $5)";

/// `action.%`, with LIKE's wildcards in `action` escaped.
fn prefix_pattern(action: &str) -> String {
    let mut pattern = String::new();
    for c in action.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern + ".%"
}

impl Audit<'_> {
    /// The events `filter` selects (a page of them), and how many it selects in all.
    pub async fn search(&self, filter: &AuditFilter) -> DbResult<(i64, Vec<AuditListing>)> {
        let pattern = filter.action.as_deref().map(prefix_pattern);
        macro_rules! bind {
            ($query:expr) => {
                $query
                    .bind(filter.actor.as_deref())
                    .bind(filter.action.as_deref())
                    .bind(pattern.as_deref())
                    .bind(filter.target_kind.map(AuditTarget::as_str))
                    .bind(filter.since)
            };
        }
        let count = format!("SELECT COUNT(*) {SEARCH}");
        let total: i64 =
            on_pool!(self.0, pool => bind!(sqlx::query_scalar(&count)).fetch_one(pool).await)?;
        let page = format!(
            "SELECT a.id, a.at, a.actor_id, a.action, a.target_kind, a.target_id, a.detail,
                    COALESCE(u.email, u.display_name) AS actor_name, u.issuer AS actor_issuer
             {SEARCH} ORDER BY a.id DESC LIMIT $6 OFFSET $7"
        );
        let rows: Vec<ListingRow> = on_pool!(self.0, pool => bind!(sqlx::query_as(&page))
            .bind(filter.limit)
            .bind(filter.offset)
            .fetch_all(pool)
            .await)?;
        Ok((
            total,
            rows.into_iter()
                .filter_map(|r| {
                    Some(AuditListing {
                        event: r.event.event()?,
                        actor_name: r.actor_name,
                        actor_issuer: r.actor_issuer,
                    })
                })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::before_after;
    use serde_json::json;

    #[test]
    fn a_change_keeps_what_changed_and_a_create_or_delete_keeps_everything() {
        let was = json!({ "description": "lab", "resources": [1] });
        let is = json!({ "description": "lab", "resources": [2] });
        assert_eq!(
            before_after(Some(was.clone()), Some(is.clone())),
            (json!({ "resources": [1] }), json!({ "resources": [2] }))
        );
        assert_eq!(
            before_after(Some(was.clone()), Some(was.clone())),
            (json!({}), json!({}))
        );
        assert_eq!(before_after(None, Some(is.clone())), (json!(null), is));
        assert_eq!(before_after(Some(was.clone()), None), (was, json!(null)));
    }
}
