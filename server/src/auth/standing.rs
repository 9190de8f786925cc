//! Asking again who a lasting response acts for. An event or log stream is one request that runs
//! for hours; it keeps what its caller proved itself with and, every little while, asks whether
//! that still holds: the session is still there (not signed out, not idle past its timeout,
//! within its lifetime), the token still verifies (not expired, its application not revoked),
//! and with which grants now.

use super::sessions::Sessions;
use super::{Authenticator, SIGNED_IN, SignedIn};
use app::error::AppError;
use tephra_core::model::principal::Principal;
use tower_sessions::SessionStore;
use tower_sessions::session::Id;

/// What a request proved its principal with.
#[derive(Clone)]
pub enum Credential {
    /// A browser session, by the id its cookie holds.
    Session(Id),
    /// An application's token or the provider's access token.
    Bearer(String),
    /// The development login (loopback only).
    DevLogin,
    /// Nothing that can be asked again; a stream on it ends at its first check.
    Unrenewable,
}

fn ended(why: &str) -> AppError {
    AppError::Unauthorized(format!("{why}; sign in again"))
}

impl Authenticator {
    /// The principal `credential` stands for now, with the grants the access rules give it now;
    /// 401 when it no longer stands for anyone.
    pub async fn renew(
        &self,
        sessions: &Sessions,
        credential: &Credential,
    ) -> Result<Principal, AppError> {
        let principal = match credential {
            Credential::Session(id) => {
                let record = sessions.load(id).await.map_err(|error| {
                    AppError::Unavailable(format!("cannot read the session: {error}"))
                })?;
                // The store does not return sessions past their expiry (the idle timeout).
                let record = record.ok_or_else(|| ended("your session has ended"))?;
                let signed_in = record
                    .data
                    .get(SIGNED_IN)
                    .and_then(|value| serde_json::from_value::<SignedIn>(value.clone()).ok())
                    .ok_or_else(|| ended("you signed out"))?;
                if !self.within_lifetime(&signed_in) {
                    return Err(ended("your session reached its longest lifetime"));
                }
                self.principal_for(signed_in.user_id, &signed_in.identity)
            }
            Credential::Bearer(token) => self.bearer(token).await?,
            Credential::DevLogin => self
                .dev_principal
                .clone()
                .ok_or_else(|| ended("the development login is off"))?,
            Credential::Unrenewable => return Err(ended("the session cannot be checked")),
        };
        self.with_grants(principal).await
    }
}
