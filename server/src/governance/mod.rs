//! What people manage about access: access rules (who holds which role where), applications
//! (API clients for scripts) and the audit trail. Each operation checks the principal's
//! permissions through `crate::authorize` and writes its change with the audit event in one
//! transaction. Errors are [`AppError`]s; HTTP maps them to statuses in one place.

mod applications;
mod audit_trail;
pub mod rules;

use crate::authorize;
use crate::db::Database;
use crate::db::users::User;
use app::error::AppError;
use chrono::{DateTime, SecondsFormat, Utc};
use tephra_core::domain::authz::Permission;
use tephra_core::model::principal::Principal;
use uuid::Uuid;

#[derive(Clone)]
pub struct Governance {
    db: Database,
}

impl Governance {
    pub fn new(db: &Database) -> Self {
        Governance { db: db.clone() }
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

/// The acting user's id; applications and the like have one too (their user row).
fn actor(principal: &tephra_core::model::principal::Principal) -> Option<Uuid> {
    principal.user_id.parse().ok()
}
