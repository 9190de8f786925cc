//! Who is acting. A request is resolved to a [`Principal`] from, in order: a bearer token
//! ([`bearer`]: an application's token or the provider's access token; when one is sent nothing
//! else is tried), the browser session (set by sign-in with the organisation's OpenID provider,
//! [`oidc`]), or the development login (loopback only, acts as a system administrator). The
//! principal then gets its grants from the access rules, which `crate::authorize` decides on.

pub mod bearer;
pub mod claims;
mod creator;
mod grants;
pub mod oidc;
pub mod pending;
mod scrape;
pub mod sessions;
mod standing;
pub mod tokens;

pub use standing::Credential;

use crate::config::ServeArgs;
use crate::db::{Database, DbResult, users::Identity as UserIdentity};
use crate::supervise::{Health, supervise};
use anyhow::Context;
use app::error::AppError;
use oidc::{Identity, Oidc};
use serde::{Deserialize, Serialize};
use sessions::{SessionSettings, Sessions};
use std::sync::Arc;
use tephra_core::domain::keyring::KeyRing;
use tephra_core::model::history::{AuditAction, AuditTarget};
use tephra_core::model::principal::Principal;
use tower_sessions::Session;
use uuid::Uuid;

/// The issuer recorded for the development user, so it never collides with a real provider's.
pub const DEV_ISSUER: &str = "tephra:dev-login";

/// Session keys.
pub const SIGNED_IN: &str = "signed_in";

pub fn dev_identity() -> UserIdentity {
    UserIdentity {
        issuer: DEV_ISSUER.to_owned(),
        subject: "dev".to_owned(),
        display_name: "Dev User".to_owned(),
        email: None,
        uid: None,
        gid: None,
        groups: Vec::new(),
    }
}

/// A signed-in user as the session keeps them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedIn {
    pub user_id: Uuid,
    pub identity: Identity,
    /// Unix seconds; the session ends `--session-max-hours` later however active.
    pub signed_in_at: i64,
}

/// Who is a system administrator from the start (`--admin-groups`, `--admin-users`).
#[derive(Debug, Clone, Default)]
pub struct Admins {
    pub groups: Vec<String>,
    /// E-mail addresses or subjects.
    pub users: Vec<String>,
}

impl Admins {
    pub fn includes(&self, identity: &Identity) -> bool {
        self.names(
            &identity.subject,
            identity.email.as_deref(),
            &identity.groups,
        )
    }

    /// Whether someone with this subject, e-mail and groups is an administrator.
    pub fn names(&self, subject: &str, email: Option<&str>, groups: &[String]) -> bool {
        groups.iter().any(|g| self.groups.contains(g))
            || self
                .users
                .iter()
                .any(|u| u == subject || email == Some(u.as_str()))
    }
}

/// Sign-in as the settings ask: the development user, the identity provider (discovered in the
/// background, supervised), and the session store with its clean-up.
pub async fn start(
    args: &ServeArgs,
    db: &Database,
    health: &Health,
    keys: Option<&KeyRing>,
) -> anyhow::Result<(Authenticator, SessionSettings)> {
    let oidc = match args.auth.oidc(args.addr)? {
        Some(settings) => {
            let oidc = Oidc::new(settings)?;
            let task = Arc::clone(&oidc);
            supervise("identity provider discovery", health.clone(), move || {
                Arc::clone(&task).keep_discovered()
            });
            Some(oidc)
        }
        None => None,
    };
    let admins = Admins {
        groups: args.auth.admin_groups.clone(),
        users: args.auth.admin_users.clone(),
    };
    let max_session_seconds = i64::from(args.auth.session_max_hours) * 3600;
    let auth = Authenticator::new(
        db,
        args.dev_login_enabled()?,
        oidc,
        admins,
        max_session_seconds,
        keys,
    )
    .await
    .context("cannot record the development user or the token key")?
    .with_scrape_token(args.auth.metrics_token()?);
    let store = Sessions::open(db)
        .await
        .context("cannot create the session table")?;
    let cleanup = store.clone();
    supervise("session clean-up", health.clone(), move || {
        sessions::delete_expired_forever(cleanup.clone())
    });
    let public_url = args.auth.public_url(args.addr)?;
    Ok((
        auth,
        SessionSettings {
            store,
            secure: public_url.is_some_and(|u| u.https),
            idle: std::time::Duration::from_secs(u64::from(args.auth.session_idle_minutes) * 60),
        },
    ))
}

/// Resolves requests to principals.
#[derive(Clone)]
pub struct Authenticator {
    db: Database,
    dev_principal: Option<Principal>,
    pub oidc: Option<Arc<Oidc>>,
    admins: Admins,
    /// The absolute session lifetime, in seconds.
    max_session_seconds: i64,
    app_tokens: tokens::AppTokens,
    /// What a scraper presents to read `/metrics` (`--metrics-token-file`).
    scrape_token: Option<String>,
    /// Seals the sign-ins on their way through the provider (`pending`).
    pub pending: pending::PendingSeal,
}

impl Authenticator {
    /// With `dev_login`, records the development user (creating it on first start). Tokens are
    /// signed with `keys` (the keys file's token ring), or else with the database's key.
    pub async fn new(
        db: &Database,
        dev_login: bool,
        oidc: Option<Arc<Oidc>>,
        admins: Admins,
        max_session_seconds: i64,
        keys: Option<&KeyRing>,
    ) -> DbResult<Self> {
        let dev_principal = if dev_login {
            let user = db.users().upsert(&dev_identity()).await?;
            Some(Principal {
                user_id: user.id.to_string(),
                subject: user.subject,
                display_name: user.display_name,
                email: user.email,
                groups: Vec::new(),
                admin: true,
                dev_login: true,
                application: None,
                uid: None,
                gid: None,
                grants: Vec::new(),
            })
        } else {
            None
        };
        let app_tokens = match keys {
            Some(ring) => tokens::AppTokens::from_ring(ring.clone()),
            None => {
                let key = db
                    .settings()
                    .get_or_create(tokens::SETTING, tokens::new_key)
                    .await?;
                tokens::AppTokens::new(&key)
                    .map_err(|e| crate::db::DbError::Corrupt(format!("the token key: {e}")))?
            }
        };
        let (pending_key, older_pending_keys) = app_tokens.derived_keys("pending-login");
        Ok(Authenticator {
            db: db.clone(),
            dev_principal,
            oidc,
            admins,
            max_session_seconds,
            pending: pending::PendingSeal::new(pending_key, older_pending_keys),
            app_tokens,
            scrape_token: None,
        })
    }

    /// The principal a request acts for, with its grants.
    pub async fn authenticate(
        &self,
        request: &http::request::Parts,
    ) -> Result<Principal, AppError> {
        Ok(self.authenticate_renewably(request).await?.0)
    }

    /// The principal with what it proved itself with, for a response that lasts (a stream) to
    /// ask again while it runs ([`Authenticator::renew`]).
    pub async fn authenticate_renewably(
        &self,
        request: &http::request::Parts,
    ) -> Result<(Principal, Credential), AppError> {
        let (principal, credential) = self.identify(request).await?;
        Ok((self.with_grants(principal).await?, credential))
    }

    async fn identify(
        &self,
        request: &http::request::Parts,
    ) -> Result<(Principal, Credential), AppError> {
        if let Some(value) = request.headers.get(http::header::AUTHORIZATION) {
            let token = value
                .to_str()
                .ok()
                .and_then(|v| {
                    v.strip_prefix("Bearer ")
                        .or_else(|| v.strip_prefix("bearer "))
                })
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    AppError::Unauthorized(
                        "the Authorization header must be `Bearer <token>`".into(),
                    )
                })?;
            let principal = self.bearer(token).await?;
            return Ok((principal, Credential::Bearer(token.to_owned())));
        }
        if let Some(session) = request.extensions.get::<Session>() {
            match session.get::<SignedIn>(SIGNED_IN).await {
                Ok(Some(signed_in)) if self.within_lifetime(&signed_in) => {
                    let principal = self.principal_for(signed_in.user_id, &signed_in.identity);
                    // A signed-in session has been saved, so it has an id.
                    let credential = session
                        .id()
                        .map_or(Credential::Unrenewable, Credential::Session);
                    return Ok((principal, credential));
                }
                Ok(Some(_)) => {
                    let _ = session.flush().await;
                    return Err(AppError::Unauthorized(
                        "your session has ended; sign in again".into(),
                    ));
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(%error, "cannot read the session");
                }
            }
        }
        if let Some(dev) = &self.dev_principal {
            return Ok((dev.clone(), Credential::DevLogin));
        }
        let why = if self.oidc.is_some() {
            "not signed in: sign in at /auth/login, or send `Authorization: Bearer <token>` \
             (POST /api/v1/token gives applications one)"
        } else {
            "not signed in: send `Authorization: Bearer <token>` (POST /api/v1/token gives \
             applications one); no identity provider is configured for people (--oidc-issuer)"
        };
        Err(AppError::Unauthorized(why.into()))
    }

    /// The principal a pass on an exposed URL's host names (`crate::http::exposed`): the user as
    /// stored now, with the groups of the sign-in the pass came from, and the grants the access
    /// rules give them now, so a membership taken away counts at the next request.
    pub async fn principal_of_user(
        &self,
        user_id: Uuid,
        groups: &[String],
    ) -> Result<Principal, AppError> {
        let user = match self.db.users().get(user_id).await {
            Ok(user) => user,
            Err(crate::db::DbError::NotFound) => {
                return Err(AppError::Unauthorized("the pass names no user".into()));
            }
            Err(error) => return Err(error.into()),
        };
        if user.issuer == DEV_ISSUER {
            let dev = self
                .dev_principal
                .clone()
                .ok_or_else(|| AppError::Unauthorized("the development login is off".into()))?;
            return self.with_grants(dev).await;
        }
        let principal = Principal {
            user_id: user.id.to_string(),
            admin: self
                .admins
                .names(&user.subject, user.email.as_deref(), groups),
            subject: user.subject,
            display_name: user.display_name,
            email: user.email,
            groups: groups.to_vec(),
            dev_login: false,
            application: None,
            uid: None,
            gid: None,
            grants: Vec::new(),
        };
        self.with_grants(principal).await
    }

    fn within_lifetime(&self, signed_in: &SignedIn) -> bool {
        chrono::Utc::now().timestamp() - signed_in.signed_in_at <= self.max_session_seconds
    }

    fn principal_for(&self, user_id: Uuid, identity: &Identity) -> Principal {
        Principal {
            user_id: user_id.to_string(),
            subject: identity.subject.clone(),
            display_name: identity.name.clone(),
            email: identity.email.clone(),
            groups: identity.groups.clone(),
            admin: self.admins.includes(identity),
            dev_login: false,
            application: None,
            uid: identity.uid,
            gid: identity.gid,
            grants: Vec::new(),
        }
    }

    /// Records what happened to a user's session (`auth.sign_out`, `auth.sign_in_failed`).
    pub async fn audit(&self, user: Option<Uuid>, action: AuditAction, detail: serde_json::Value) {
        let target = user.unwrap_or(Uuid::nil());
        if let Err(error) = self
            .db
            .audit()
            .record(user, action, AuditTarget::User, target, detail)
            .await
        {
            tracing::warn!(%error, %action, "cannot record an audit event");
        }
    }

    /// Records a sign-in the provider vouched for: the user (created on first sight, keyed by
    /// issuer and subject) and the audit entry.
    pub async fn signed_in(&self, identity: Identity) -> DbResult<SignedIn> {
        let user = self.db.users().upsert(&identity.as_user()).await?;
        let detail = serde_json::json!({ "issuer": identity.issuer, "groups": identity.groups });
        self.db
            .audit()
            .record(
                Some(user.id),
                AuditAction::SignIn,
                AuditTarget::User,
                user.id,
                detail,
            )
            .await?;
        Ok(SignedIn {
            user_id: user.id,
            identity,
            signed_in_at: chrono::Utc::now().timestamp(),
        })
    }
}
