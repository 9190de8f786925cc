//! Who is acting. For now the only way in is the development login (loopback only): every request
//! acts as one local user. Sign-in with an identity provider replaces this without changing the
//! callers, which already receive a [`Principal`] per request.

use crate::db::{Database, DbResult, users::Identity};
use app::error::AppError;
use app::model::principal::Principal;

/// The issuer recorded for the development user, so it never collides with a real provider's.
pub const DEV_ISSUER: &str = "tephra:dev-login";

pub fn dev_identity() -> Identity {
    Identity {
        issuer: DEV_ISSUER.to_owned(),
        subject: "dev".to_owned(),
        display_name: "Dev User".to_owned(),
        email: None,
    }
}

/// Resolves requests to principals.
#[derive(Debug, Clone)]
pub struct Authenticator {
    dev_principal: Option<Principal>,
}

impl Authenticator {
    /// With `dev_login`, records the development user (creating it on first start) and lets every
    /// request act as them; without it, every request is refused until an identity provider is
    /// configured.
    pub async fn new(db: &Database, dev_login: bool) -> DbResult<Self> {
        let dev_principal = if dev_login {
            let user = db.users().upsert(&dev_identity()).await?;
            Some(Principal {
                user_id: user.id.to_string(),
                subject: user.subject,
                display_name: user.display_name,
                email: user.email,
                dev_login: true,
            })
        } else {
            None
        };
        Ok(Authenticator { dev_principal })
    }

    pub fn authenticate(&self, _request: &http::request::Parts) -> Result<Principal, AppError> {
        self.dev_principal.clone().ok_or(AppError::Unauthorized)
    }
}
