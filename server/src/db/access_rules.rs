//! Access rules: which subject holds which role on which scope. Every change is written with
//! its audit event in one transaction.

use super::audit::record_in;
use super::scoped::hold_scope;
use super::{DbError, DbResult, conflict_as, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use tephra_core::domain::authz::{AccessRule, Caller, Role, Scope, Subject};
use tephra_core::model::history::{AuditAction, AuditTarget};
use uuid::Uuid;

/// An access rule as stored, with its Run:ai-style integer id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRule {
    pub id: i64,
    pub rule: AccessRule,
    pub created_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    subject_type: String,
    subject_id: String,
    role_id: i64,
    scope_type: String,
    scope_id: String,
    created_by: Option<Uuid>,
    created_at: DateTime<Utc>,
}

impl TryFrom<Row> for StoredRule {
    type Error = DbError;

    fn try_from(row: Row) -> DbResult<StoredRule> {
        let corrupt = |what: String| DbError::Corrupt(format!("access rule {}: {what}", row.id));
        let subject = Subject::parse(&row.subject_type, &row.subject_id).map_err(corrupt)?;
        let role = Role::from_id(row.role_id)
            .ok_or_else(|| corrupt(format!("unknown role id {}", row.role_id)))?;
        let scope = match row.scope_type.as_str() {
            "system" => Scope::System,
            "department" => Scope::Department(row.scope_id.clone()),
            "project" => Scope::Project(row.scope_id.clone()),
            other => return Err(corrupt(format!("unknown scope type {other:?}"))),
        };
        Ok(StoredRule {
            id: row.id,
            rule: AccessRule {
                subject,
                role,
                scope,
            },
            created_by: row.created_by,
            created_at: row.created_at,
        })
    }
}

const COLUMNS: &str =
    "id, subject_type, subject_id, role_id, scope_type, scope_id, created_by, created_at";

fn detail(rule: &AccessRule) -> serde_json::Value {
    serde_json::json!({
        "subjectType": rule.subject.kind(),
        "subjectId": rule.subject.id(),
        "roleId": rule.role.id(),
        "scopeType": rule.scope.kind(),
        "scopeId": rule.scope.id(),
    })
}

pub struct AccessRules<'a>(pub(super) &'a super::Database);

impl AccessRules<'_> {
    /// The rules that name `caller`: its subject or e-mail, one of its groups, or the
    /// application it is. Each request reads these, not the whole table.
    pub async fn matching(&self, caller: &Caller) -> DbResult<Vec<StoredRule>> {
        let mut subjects: Vec<(&str, &str)> = Vec::new();
        subjects.extend(caller.subject.as_deref().map(|s| ("user", s)));
        subjects.extend(caller.email.as_deref().map(|e| ("user", e)));
        subjects.extend(caller.groups.iter().map(|g| ("group", g.as_str())));
        subjects.extend(caller.app.as_deref().map(|a| ("app", a)));
        if subjects.is_empty() {
            return Ok(Vec::new());
        }
        let wanted: Vec<String> = (0..subjects.len())
            .map(|i| {
                format!(
                    "(subject_type = ${} AND subject_id = ${})",
                    2 * i + 1,
                    2 * i + 2
                )
            })
            .collect();
        let sql = format!(
            "SELECT {COLUMNS} FROM access_rules WHERE {} ORDER BY id",
            wanted.join(" OR ")
        );
        let rows: Vec<Row> = on_pool!(self.0, pool => {
            let mut query = sqlx::query_as(&sql);
            for (kind, id) in &subjects {
                query = query.bind(*kind).bind(*id);
            }
            query.fetch_all(pool).await
        })?;
        rows.into_iter().map(TryInto::try_into).collect()
    }

    /// Every rule, oldest first, for the lists administrators read.
    pub async fn all(&self) -> DbResult<Vec<StoredRule>> {
        let sql = format!("SELECT {COLUMNS} FROM access_rules ORDER BY id");
        let rows: Vec<Row> = on_pool!(self.0, pool => sqlx::query_as(&sql).fetch_all(pool).await)?;
        rows.into_iter().map(TryInto::try_into).collect()
    }

    pub async fn get(&self, id: i64) -> DbResult<StoredRule> {
        let sql = format!("SELECT {COLUMNS} FROM access_rules WHERE id = $1");
        let row: Row =
            on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?;
        row.try_into()
    }

    /// Stores `rule`; a rule that exists already is a conflict.
    pub async fn add(&self, rule: &AccessRule, by: Option<Uuid>) -> DbResult<StoredRule> {
        let sql = format!(
            "INSERT INTO access_rules (subject_type, subject_id, role_id, scope_type, scope_id,
                                       created_by, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {COLUMNS}"
        );
        let row: Row = write_transaction!(self.0, tx => {
            if !hold_scope!(tx, &rule.scope) {
                return Err(DbError::NotFound);
            }
            let row: Row = sqlx::query_as(&sql)
                .bind(rule.subject.kind())
                .bind(rule.subject.id())
                .bind(rule.role.id())
                .bind(rule.scope.kind())
                .bind(rule.scope.id())
                .bind(by)
                .bind(now())
                .fetch_one(&mut *tx)
                .await
                .map_err(conflict_as(|| format!(
                    "{} {:?} already holds the role {:?} on {}",
                    rule.subject.kind(), rule.subject.id(), rule.role.name(),
                    tephra_core::domain::authz::describe(&rule.scope)
                )))?;
            record_in!(&mut *tx, by, AuditAction::AccessRuleAdd, AuditTarget::AccessRule, Uuid::nil(), &{
                let mut d = detail(rule);
                d["id"] = row.id.into();
                d
            })
            .await?;
            tx.commit().await?;
            row
        });
        row.try_into()
    }

    /// Removes the rule with this id and returns it; `NotFound` when it is gone already.
    pub async fn remove(&self, id: i64, by: Option<Uuid>) -> DbResult<StoredRule> {
        let sql = format!("DELETE FROM access_rules WHERE id = $1 RETURNING {COLUMNS}");
        let removed = write_transaction!(self.0, tx => {
            let row: Row = sqlx::query_as(&sql).bind(id).fetch_one(&mut *tx).await?;
            let removed = StoredRule::try_from(row)?;
            let mut d = detail(&removed.rule);
            d["id"] = id.into();
            record_in!(&mut *tx, by, AuditAction::AccessRuleRemove, AuditTarget::AccessRule, Uuid::nil(), &d).await?;
            tx.commit().await?;
            removed
        });
        Ok(removed)
    }
}
