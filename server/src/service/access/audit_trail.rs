//! The audit trail for administrators: who did what, when, to which object.

use super::{Access, invalid, rfc3339};
use crate::authorize;
use crate::db::applications::APP_ISSUER;
use crate::db::audit::AuditFilter;
use app::error::AppError;
use chrono::{DateTime, Utc};
use tephra_core::domain::authz::Permission;
use tephra_core::model::access::{AuditEntry, AuditPage, AuditQuery};
use tephra_core::model::principal::Principal;

pub const AUDIT_PAGE_MAX: i64 = 500;
pub const AUDIT_PAGE_DEFAULT: i64 = 100;

fn blank_to_none(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// The query as a filter; each error names its field.
fn filter_of(query: &AuditQuery) -> Result<AuditFilter, AppError> {
    let since = match blank_to_none(&query.since) {
        None => None,
        Some(text) => Some(
            DateTime::parse_from_rfc3339(&text)
                .map_err(|_| {
                    invalid(
                        "since",
                        format!("{text:?} is not a time: RFC 3339, e.g. 2026-11-23T10:00:00Z"),
                    )
                })?
                .with_timezone(&Utc),
        ),
    };
    let limit = query.limit.unwrap_or(AUDIT_PAGE_DEFAULT);
    if !(1..=AUDIT_PAGE_MAX).contains(&limit) {
        return Err(invalid(
            "limit",
            format!("must be between 1 and {AUDIT_PAGE_MAX} (got {limit})"),
        ));
    }
    let offset = query.offset.unwrap_or(0);
    if offset < 0 {
        return Err(invalid(
            "offset",
            format!("must be 0 or more (got {offset})"),
        ));
    }
    Ok(AuditFilter {
        actor: blank_to_none(&query.actor),
        action: blank_to_none(&query.action),
        target_kind: blank_to_none(&query.target_type),
        since,
        limit,
        offset,
    })
}

impl Access {
    pub async fn audit(
        &self,
        principal: &Principal,
        query: &AuditQuery,
    ) -> Result<AuditPage, AppError> {
        authorize::require_system(principal, Permission::ReadAudit)?;
        let filter = filter_of(query)?;
        let (total, listings) = self.db.audit().search(&filter).await?;
        Ok(AuditPage {
            total,
            events: listings
                .into_iter()
                .map(|l| AuditEntry {
                    id: l.event.id,
                    at: rfc3339(l.event.at),
                    actor_type: match (&l.event.actor_id, l.actor_issuer.as_deref()) {
                        (None, _) => "tephra",
                        (Some(_), Some(APP_ISSUER)) => "application",
                        (Some(_), _) => "user",
                    }
                    .to_owned(),
                    actor: l.actor_name,
                    action: l.event.action,
                    target_type: l.event.target_kind,
                    target_id: l.event.target_id.to_string(),
                    detail: l.event.detail,
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_filters_name_their_field() {
        let field = |q: AuditQuery| match filter_of(&q).unwrap_err() {
            AppError::Invalid { field, .. } => field,
            other => panic!("{other:?}"),
        };
        let since = AuditQuery {
            since: Some("yesterday".into()),
            ..AuditQuery::default()
        };
        assert_eq!(field(since), "since");
        let limit = AuditQuery {
            limit: Some(0),
            ..AuditQuery::default()
        };
        assert_eq!(field(limit), "limit");
        let offset = AuditQuery {
            offset: Some(-1),
            ..AuditQuery::default()
        };
        assert_eq!(field(offset), "offset");
    }

    #[test]
    fn blank_filters_are_no_filters() {
        let q = AuditQuery {
            actor: Some("  ".into()),
            action: Some("workload".into()),
            since: Some(String::new()),
            ..AuditQuery::default()
        };
        let f = filter_of(&q).unwrap();
        assert_eq!(f.actor, None);
        assert_eq!(f.action.as_deref(), Some("workload"));
        assert_eq!(f.since, None);
        assert_eq!(f.limit, AUDIT_PAGE_DEFAULT);
    }
}
