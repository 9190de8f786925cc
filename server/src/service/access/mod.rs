//! What people manage about access: access rules (who holds which role where), applications
//! (API clients for scripts), the audit trail and the users who have signed in. Each operation
//! checks the principal's permissions through `crate::authorize` and writes its change with the
//! audit event in one transaction. Errors are [`AppError`]s; HTTP maps them to statuses in one
//! place.

mod applications;
mod audit_trail;
pub mod retention;
mod rules;

pub use rules::{RuleQuery, roles};

use super::lookup::actor;
use crate::authorize;
use crate::db::Database;
use crate::db::users::User;
use app::error::AppError;
use chrono::{DateTime, SecondsFormat, Utc};
use tephra_core::domain::authz::Permission;
use tephra_core::model::access::AccessRuleView;
use tephra_core::model::principal::Principal;
use tephra_core::model::system::{SystemInfo, UserSummary};
use uuid::Uuid;

/// The database, where rules, applications and the audit trail are kept.
pub struct Access {
    db: Database,
}

impl Access {
    pub(super) fn new(db: Database) -> Self {
        Access { db }
    }

    /// People as the lists name them: e-mail, else display name.
    async fn names(&self) -> Result<Vec<User>, AppError> {
        Ok(self.db.users().list().await?)
    }

    /// Everyone who has signed in (applications included), for system administrators.
    pub async fn users(&self, principal: &Principal) -> Result<Vec<User>, AppError> {
        authorize::require_system(principal, Permission::ManageSystem)?;
        self.names().await
    }

    /// Every access rule the principal may see, for the organisation page's members.
    pub async fn members(&self, principal: &Principal) -> Result<Vec<AccessRuleView>, AppError> {
        let every_rule = RuleQuery::default();
        Ok(self.list_rules(principal, &every_rule).await?.access_rules)
    }

    /// This Tephra's version, database, start and users, for system administrators.
    pub async fn system_info(
        &self,
        principal: &Principal,
        started_at: DateTime<Utc>,
    ) -> Result<SystemInfo, AppError> {
        let users = self.users(principal).await?;
        let seconds = |at: DateTime<Utc>| at.to_rfc3339_opts(SecondsFormat::Secs, true);
        Ok(SystemInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            database: self.db.engine().as_str().to_owned(),
            started_at: seconds(started_at),
            users: users
                .into_iter()
                .map(|u| UserSummary {
                    display_name: u.display_name,
                    email: u.email,
                    last_seen_at: seconds(u.last_seen_at),
                })
                .collect(),
        })
    }
}

fn name_of(users: &[User], id: Option<Uuid>) -> Option<String> {
    let id = id?;
    users
        .iter()
        .find(|u| u.id == id)
        .map(|u| u.email.clone().unwrap_or_else(|| u.display_name.clone()))
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn invalid(field: &str, message: impl Into<String>) -> AppError {
    AppError::field(field, message)
}

#[cfg(test)]
mod tests;
