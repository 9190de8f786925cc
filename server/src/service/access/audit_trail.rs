//! The audit trail for administrators: who did what, when, to which object.

use super::{Access, invalid, rfc3339};
use crate::authorize;
use crate::db::applications::APP_ISSUER;
use crate::db::audit::{AuditEvent, AuditFilter};
use app::error::AppError;
use chrono::{DateTime, Utc};
use tephra_core::domain::audit_summary::summary;
use tephra_core::domain::authz::Permission;
use tephra_core::model::access::{AuditEntry, AuditPage, AuditQuery};
use tephra_core::model::history::AuditTarget;
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
    let target_kind = match blank_to_none(&query.target_type) {
        None => None,
        Some(text) => Some(AuditTarget::parse(&text).ok_or_else(|| {
            let known: Vec<&str> = AuditTarget::ALL.iter().map(|t| t.as_str()).collect();
            invalid(
                "targetType",
                format!("{text:?} is not a target type; one of {}", known.join(", ")),
            )
        })?),
    };
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
        target_kind,
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
                    target_id: shown_target(&l.event),
                    summary: summary(&l.event.detail),
                    detail: l.event.detail,
                })
                .collect(),
        })
    }
}

/// The target's id as the API names it. Policies, departments and the system have no UUID of
/// their own (the store keeps the nil UUID for them): a policy shows its scope (`system`,
/// `department/4`, `project/<id>`), a department its number, the system nothing.
fn shown_target(event: &AuditEvent) -> String {
    let text = |key: &str| event.detail.get(key).and_then(|v| v.as_str()).unwrap_or("");
    match event.target_kind {
        AuditTarget::Policy => match (text("scope"), text("scopeId")) {
            (scope, "") => scope.to_owned(),
            (scope, id) => format!("{scope}/{id}"),
        },
        AuditTarget::Department => text("departmentId").to_owned(),
        AuditTarget::System => String::new(),
        _ => event.target_id.to_string(),
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
