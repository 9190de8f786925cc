//! Applications: API clients people create for their scripts, after Run:ai's `/api/v1/apps`.
//! The secret is shown once, at creation; only its hash is kept.

use super::rules::no_wider;
use super::{Access, actor, invalid, name_of, rfc3339};
use crate::auth::tokens::{hash_secret, new_secret};
use crate::authorize;
use crate::db::DbError;
use crate::db::applications::{Application, NewSecret};
use app::error::AppError;
use chrono::{DateTime, Duration, Utc};
use tephra_core::domain::authz::{AccessRule, Permission, Role, Subject};
use tephra_core::model::access::{
    ApplicationView, CreatedApplication, NewAppSecret, NewApplication,
};
use tephra_core::model::principal::Principal;
use uuid::Uuid;

/// How long a secret works when the request does not say.
const DEFAULT_LIFETIME_DAYS: i64 = 90;
/// The longest a secret may work: a leaked one must not work for good.
const LONGEST_LIFETIME_DAYS: i64 = 366;

/// A fresh secret, shown once, and what to store of it: its hash and its expiry, `expires_at`
/// (RFC 3339, in the future, at most [`LONGEST_LIFETIME_DAYS`] ahead) or the default.
fn new_secret_until(
    expires_at: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(String, NewSecret), AppError> {
    let expires_at = match expires_at {
        None => now + Duration::days(DEFAULT_LIFETIME_DAYS),
        Some(text) => {
            let at = DateTime::parse_from_rfc3339(text)
                .map_err(|e| {
                    invalid(
                        "expiresAt",
                        format!("{text:?} is not an RFC 3339 time ({e})"),
                    )
                })?
                .with_timezone(&Utc);
            if at <= now || at > now + Duration::days(LONGEST_LIFETIME_DAYS) {
                return Err(invalid(
                    "expiresAt",
                    format!(
                        "{text} is not allowed: a time in the future, at most \
                         {LONGEST_LIFETIME_DAYS} days ahead"
                    ),
                ));
            }
            at
        }
    };
    let secret = new_secret();
    let stored = NewSecret {
        hash: hash_secret(&secret),
        expires_at,
    };
    Ok((secret, stored))
}

/// Lowercase letters, digits and `-`, starting and ending with a letter or digit, at most 63.
fn check_name(name: &str) -> Result<(), AppError> {
    let ok = (1..=63).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(invalid(
            "name",
            format!(
                "{name:?} is not allowed: 1 to 63 lowercase letters, digits and '-', starting \
                 and ending with a letter or digit"
            ),
        ))
    }
}

impl Access {
    pub async fn create_app(
        &self,
        principal: &Principal,
        new: &NewApplication,
    ) -> Result<CreatedApplication, AppError> {
        if principal.application.is_some() {
            return Err(AppError::Forbidden(
                "applications cannot create applications; a person must".into(),
            ));
        }
        let owner = actor(principal)
            .ok_or_else(|| AppError::Forbidden("only a signed-in user may create one".into()))?;
        check_name(&new.name)?;
        let (secret, stored) = new_secret_until(new.expires_at.as_deref(), Utc::now())?;
        let mut rules = Vec::new();
        for (i, role) in new.roles.iter().enumerate() {
            let prefix = format!("roles[{i}].");
            let (role_kind, scope) = self
                .role_on_scope(
                    principal,
                    role.role_id,
                    &role.scope_type,
                    &role.scope_id,
                    &prefix,
                )
                .await?;
            no_wider(principal, role_kind, &scope, &format!("{prefix}roleId"))?;
            if role_kind == Role::SystemAdministrator && !new.confirm_system_administrator {
                return Err(invalid(
                    &format!("{prefix}roleId"),
                    "the system administrator role reaches every project and setting; to give \
                     it to an application, also send `confirmSystemAdministrator: true`",
                ));
            }
            rules.push(AccessRule {
                subject: Subject::App(new.name.clone()),
                role: role_kind,
                scope,
            });
        }
        let system = rules.iter().any(|r| r.role == Role::SystemAdministrator);
        let detail = serde_json::json!({ "name": new.name, "systemAdministrator": system });
        let app = self
            .db
            .applications()
            .create(&new.name, owner, &stored, detail)
            .await?;
        for rule in &rules {
            self.db.access_rules().add(rule, Some(owner)).await?;
        }
        tracing::info!(application = %app.name, system_administrator = system, "application created");
        Ok(CreatedApplication {
            application: self.app_view(&app).await?,
            client_secret: secret,
        })
    }

    /// The principal's own applications; a system administrator's list has everyone's.
    pub async fn list_apps(&self, principal: &Principal) -> Result<Vec<ApplicationView>, AppError> {
        let everyone = authorize::require_system(principal, Permission::ManageSystem).is_ok();
        let owner = if everyone { None } else { actor(principal) };
        if owner.is_none() && !everyone {
            return Ok(Vec::new());
        }
        let mut views = Vec::new();
        for app in self.db.applications().list(owner).await? {
            views.push(self.app_view(&app).await?);
        }
        Ok(views)
    }

    pub async fn get_app(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<ApplicationView, AppError> {
        let app = self.own_app(principal, id).await?;
        self.app_view(&app).await
    }

    /// Revokes the application: its tokens stop working at once and it can get no new one.
    pub async fn revoke_app(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<ApplicationView, AppError> {
        let app = self.own_app(principal, id).await?;
        let by = actor(principal).unwrap_or(app.owner_id);
        match self.db.applications().revoke(app.id, by).await? {
            Some(revoked) => {
                tracing::info!(application = %revoked.name, "application revoked");
                self.app_view(&revoked).await
            }
            None => Err(AppError::Conflict(format!(
                "application {:?} is revoked already",
                app.name
            ))),
        }
    }

    /// Gives the application a new secret, shown once: the old secret and every token it gave
    /// stop working at once.
    pub async fn rotate_app_secret(
        &self,
        principal: &Principal,
        id: &str,
        new: &NewAppSecret,
    ) -> Result<CreatedApplication, AppError> {
        let app = self.own_app(principal, id).await?;
        let (secret, stored) = new_secret_until(new.expires_at.as_deref(), Utc::now())?;
        let by = actor(principal).unwrap_or(app.owner_id);
        match self.db.applications().rotate(app.id, &stored, by).await? {
            Some(rotated) => {
                tracing::info!(application = %rotated.name, "application secret rotated");
                Ok(CreatedApplication {
                    application: self.app_view(&rotated).await?,
                    client_secret: secret,
                })
            }
            None => Err(AppError::Conflict(format!(
                "application {:?} is revoked; a revoked application gets no new secret",
                app.name
            ))),
        }
    }

    /// The application with this id (or name) if the principal owns it or administers the
    /// system; others get 404, so ids cannot be probed.
    async fn own_app(&self, principal: &Principal, key: &str) -> Result<Application, AppError> {
        let found = match key.parse::<Uuid>() {
            Ok(id) => self.db.applications().get(id).await,
            Err(_) => self.db.applications().by_name(key).await,
        };
        let not_found =
            || AppError::NotFound(format!("no application with the id or name {key:?}"));
        let app = match found {
            Ok(app) => app,
            Err(DbError::NotFound) => return Err(not_found()),
            Err(e) => return Err(e.into()),
        };
        let admin = authorize::require_system(principal, Permission::ManageSystem).is_ok();
        if admin || Some(app.owner_id) == actor(principal) {
            Ok(app)
        } else {
            Err(not_found())
        }
    }

    async fn app_view(&self, app: &Application) -> Result<ApplicationView, AppError> {
        let users = self.names().await?;
        Ok(ApplicationView {
            id: app.id.to_string(),
            name: app.name.clone(),
            client_id: app.name.clone(),
            created_by: name_of(&users, Some(app.owner_id)).unwrap_or_default(),
            created_at: rfc3339(app.created_at),
            last_used_at: app.last_used_at.map(rfc3339),
            revoked_at: app.revoked_at.map(rfc3339),
            expires_at: app.expires_at.map(rfc3339),
            expired: app.expires_at.is_some_and(|at| at <= Utc::now()),
            enabled: app.revoked_at.is_none(),
            roles: self.role_labels(&Subject::App(app.name.clone())).await?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_dns_labels() {
        for ok in ["ci", "ci-bot-2", "a"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-ci", "ci-", "CI", "ci_bot", "ci.bot", &"a".repeat(64)] {
            let err = check_name(bad).unwrap_err();
            assert!(err.to_string().starts_with("name: "), "{err}");
        }
    }
}
