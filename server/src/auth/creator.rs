//! Who made an application, as the rules see them now: an application acts with no more than
//! its creator holds, so a creator removed from a project takes the application's access there
//! with them, and one who is no longer an administrator takes that too.

use super::{Authenticator, DEV_ISSUER};
use crate::db::DbError;
use app::error::AppError;
use tephra_core::domain::authz::{self, Caller, Grant, Role, Scope};

impl Authenticator {
    /// The grants the creator of application `name` holds now: the rules that name their
    /// subject, verified e-mail or the groups of their last sign-in (while a session from it
    /// could still last: `--session-max-hours`), and the administrator settings. None for an
    /// application that no longer exists.
    pub(super) async fn creator_grants(&self, name: &str) -> Result<Vec<Grant>, AppError> {
        let app = match self.db.applications().by_name(name).await {
            Ok(app) => app,
            Err(DbError::NotFound) => return Ok(Vec::new()),
            Err(error) => return Err(error.into()),
        };
        let creator = self.db.users().get(app.owner_id).await?;
        let (caller, admin) = if creator.issuer == DEV_ISSUER {
            (Caller::default(), self.dev_principal.is_some())
        } else {
            // The groups are the provider's word at the creator's last sign-in; they count for
            // as long as a session from that sign-in could, so an application does not keep
            // what a group gave after the provider last vouched for it.
            let age = chrono::Utc::now() - creator.last_seen_at;
            let groups = if age.num_seconds() <= self.max_session_seconds {
                creator.groups.0
            } else {
                Vec::new()
            };
            let admin = self
                .admins
                .names(&creator.subject, creator.email.as_deref(), &groups);
            let caller = Caller {
                subject: Some(creator.subject),
                email: creator.email,
                groups,
                app: None,
            };
            (caller, admin)
        };
        let rules = self.rules_naming(&caller).await?;
        let mut grants = authz::grants_of(&rules, &caller);
        if admin {
            grants.push((Role::SystemAdministrator, Scope::System));
        }
        Ok(grants)
    }
}
