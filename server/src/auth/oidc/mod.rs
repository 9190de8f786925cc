//! Sign-in with the organisation's OpenID provider: the authorization-code flow with PKCE (S256),
//! `state` and `nonce`, and RP-initiated logout. No HTTP types here: the routes in
//! `http::sign_in` carry values in and out and map [`SignInError`] to answers.
//!
//! Discovery runs in the background with backoff, so Tephra starts while the provider is down
//! (`/readyz` names it until it answers), again every hour, and at once (at most once a minute)
//! when a token names a key Tephra has not seen, so a provider's key rotation never breaks
//! sign-in.

mod access_token;
mod discovery;
mod jose;

use discovery::{Discovered, IdToken, IdTokenClaims, error_chain};

use super::claims::{constant_time_eq, number, safe_next, strings};
use crate::config::OidcSettings;
use openidconnect::core::CoreAuthenticationFlow;
use openidconnect::{
    AdditionalClaims, AuthorizationCode, ClientId, CsrfToken, LogoutRequest, Nonce,
    PkceCodeChallenge, PkceCodeVerifier, PostLogoutRedirectUrl, Scope,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// How long a started sign-in may take at the provider.
const LOGIN_TIMEOUT_SECONDS: i64 = 600;

/// Claims beyond the standard ones (groups, uid, gid under configurable names).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Extra {
    #[serde(flatten)]
    claims: HashMap<String, serde_json::Value>,
}
impl AdditionalClaims for Extra {}

/// A sign-in on its way through the provider, kept in the browser as a signed cookie
/// (`auth::pending`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingLogin {
    state: String,
    nonce: String,
    verifier: String,
    /// Where to go afterwards: a path on Tephra, checked by [`safe_next`].
    pub next: String,
    started_at: i64,
}

/// Who signed in, as the provider vouched for them. Kept in the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub issuer: String,
    pub subject: String,
    pub name: String,
    pub email: Option<String>,
    pub groups: Vec<String>,
    pub uid: Option<u32>,
    pub gid: Option<u32>,
}

impl Identity {
    /// The user record this identity signs in as.
    pub fn as_user(&self) -> crate::db::users::Identity {
        crate::db::users::Identity {
            issuer: self.issuer.clone(),
            subject: self.subject.clone(),
            display_name: self.name.clone(),
            email: self.email.clone(),
            uid: self.uid.map(i64::from),
            gid: self.gid.map(i64::from),
            groups: self.groups.clone(),
        }
    }
}

/// Why a sign-in failed. Messages are safe to show: they never include secrets or tokens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInError {
    #[error("the identity provider {0} has not answered yet; try again in a moment")]
    NotDiscovered(String),
    #[error("no sign-in was started in this browser, or it took longer than 10 minutes")]
    NoPendingLogin,
    #[error("the sign-in answer does not belong to the sign-in this browser started (state)")]
    StateMismatch,
    #[error("the identity provider refused the sign-in: {0}")]
    Refused(String),
    #[error("the identity provider could not be reached: {0}")]
    Unreachable(String),
    #[error("the identity provider's ID token was not accepted: {0}")]
    BadIdToken(String),
}

pub struct Oidc {
    settings: OidcSettings,
    http: openidconnect::reqwest::Client,
    discovered: RwLock<Option<Arc<Discovered>>>,
    last_error: Mutex<Option<String>>,
    /// When a token's unknown `kid` last made Tephra fetch the keys again.
    key_refresh: Mutex<Option<std::time::Instant>>,
}

impl Oidc {
    pub fn new(settings: OidcSettings) -> anyhow::Result<Arc<Self>> {
        let http = openidconnect::reqwest::ClientBuilder::new()
            // Following redirects from the token endpoint would be an SSRF vector.
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()?;
        Ok(Arc::new(Oidc {
            settings,
            http,
            discovered: RwLock::new(None),
            last_error: Mutex::new(Some("discovery has not finished yet".into())),
            key_refresh: Mutex::new(None),
        }))
    }

    pub fn issuer(&self) -> &str {
        &self.settings.issuer
    }

    /// Starts a sign-in: the provider URL to send the browser to, and what the session keeps.
    pub fn begin(&self, next: &str, now: i64) -> Result<(String, PendingLogin), SignInError> {
        let discovered = self.ready()?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = discovered.client.authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        );
        for scope in &self.settings.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        Ok((
            url.to_string(),
            PendingLogin {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                verifier: verifier.secret().clone(),
                next: safe_next(next),
                started_at: now,
            },
        ))
    }

    /// Finishes a sign-in: checks `state`, redeems the code with the PKCE verifier, and verifies
    /// the ID token (signature by the provider's keys, issuer, audience, expiry, nonce, and an
    /// algorithm the provider advertises).
    pub async fn finish(
        &self,
        pending: Option<PendingLogin>,
        code: &str,
        state: &str,
        now: i64,
    ) -> Result<Identity, SignInError> {
        let pending = pending
            .filter(|p| now - p.started_at <= LOGIN_TIMEOUT_SECONDS)
            .ok_or(SignInError::NoPendingLogin)?;
        if !constant_time_eq(pending.state.as_bytes(), state.as_bytes()) {
            return Err(SignInError::StateMismatch);
        }
        let discovered = self.ready()?;
        let exchange = discovered
            .client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| SignInError::Refused(e.to_string()))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier));
        let tokens = exchange.request_async(&self.http).await.map_err(|e| {
            use openidconnect::RequestTokenError;
            match e {
                RequestTokenError::ServerResponse(r) => SignInError::Refused(
                    r.error_description()
                        .cloned()
                        .unwrap_or_else(|| r.error().to_string()),
                ),
                other => SignInError::Unreachable(error_chain(&other)),
            }
        })?;
        let id_token = tokens
            .extra_fields()
            .id_token()
            .ok_or_else(|| SignInError::BadIdToken("the answer has no ID token".into()))?;
        let kid = jose::Header::of(&id_token.to_string())
            .kid()
            .map(str::to_owned);
        let discovered = self.keys_for(kid.as_deref()).await.unwrap_or(discovered);
        self.identity_of(&discovered, id_token, &pending.nonce)
    }

    /// Verifies an ID token as [`Self::finish`] does, for tokens that arrive some other way (and
    /// for tests that forge bad ones with the provider's own key).
    pub fn verify_id_token(&self, raw: &str, nonce: &str) -> Result<Identity, SignInError> {
        let discovered = self.ready()?;
        let token: IdToken = raw
            .parse()
            .map_err(|e| SignInError::BadIdToken(format!("not a signed JWT: {e}")))?;
        self.identity_of(&discovered, &token, nonce)
    }

    fn identity_of(
        &self,
        discovered: &Discovered,
        id_token: &IdToken,
        nonce: &str,
    ) -> Result<Identity, SignInError> {
        let verifier = discovered
            .client
            .id_token_verifier()
            .set_allowed_algs(discovered.algs.clone());
        let claims = id_token
            .claims(&verifier, &Nonce::new(nonce.to_owned()))
            .map_err(|e| SignInError::BadIdToken(e.to_string()))?;
        Ok(self.identity_from(claims))
    }

    /// Who the verified claims name; `raw` is the token they came from.
    fn identity_from(&self, claims: &IdTokenClaims) -> Identity {
        let extra = &claims.additional_claims().claims;
        let name = claims
            .name()
            .and_then(|n| n.get(None))
            .map(|n| n.as_str().to_owned())
            .or_else(|| claims.preferred_username().map(|u| u.as_str().to_owned()));
        let claimed = claims.email().map(|e| e.as_str().to_owned());
        // Only an address the provider checked may match `--admin-users` or a user rule: where
        // users can set their own, an unverified one equal to an administrator's would be theirs.
        let verified =
            claims.email_verified() == Some(true) || self.settings.trust_unverified_email;
        let email = claimed.clone().filter(|_| verified);
        Identity {
            issuer: claims.issuer().as_str().to_owned(),
            subject: claims.subject().as_str().to_owned(),
            name: name
                .or(claimed)
                .unwrap_or_else(|| claims.subject().as_str().to_owned()),
            email,
            groups: strings(extra.get(&self.settings.groups_claim)),
            uid: number(extra, self.settings.uid_claim.as_deref()),
            gid: number(extra, self.settings.gid_claim.as_deref()),
        }
    }

    /// Where to send the browser after Tephra's own sign-out: the provider's end-session
    /// endpoint, when it advertises one, coming back to Tephra's home page. The request names
    /// Tephra's client, not the ID token (`id_token_hint`): a token in a URL stays in browser
    /// history and proxy logs.
    pub fn logout_url(&self) -> Option<String> {
        let discovered = self.current()?;
        let endpoint = discovered.end_session.clone()?;
        let mut request = LogoutRequest::from(endpoint)
            .set_client_id(ClientId::new(self.settings.client_id.clone()));
        if let Ok(home) =
            PostLogoutRedirectUrl::new(format!("{}/", self.settings.public_url.origin))
        {
            request = request.set_post_logout_redirect_uri(home);
        }
        Some(request.http_get_url().to_string())
    }
}
