//! Discovery: the provider's metadata and keys, fetched in the background with backoff and
//! again every [`REDISCOVER`], so a provider that is down delays sign-in, not start-up.

use super::{Extra, Oidc, SignInError};
use openidconnect::core::{
    CoreAuthDisplay, CoreAuthPrompt, CoreErrorResponseType, CoreGenderClaim, CoreJsonWebKey,
    CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm, CoreRevocableToken,
    CoreRevocationErrorResponse, CoreTokenIntrospectionResponse, CoreTokenType,
};
use openidconnect::{
    Client, ClientId, ClientSecret, EmptyExtraTokenFields, EndSessionUrl, EndpointMaybeSet,
    EndpointNotSet, EndpointSet, IdTokenFields, IssuerUrl, ProviderMetadataWithLogout, RedirectUrl,
    StandardErrorResponse, StandardTokenResponse,
};
use std::sync::Arc;
use std::time::Duration;

/// Keys are refreshed this often (discovery fetches the JWKS again).
const REDISCOVER: Duration = Duration::from_secs(3600);
/// A token naming a key Tephra lacks makes it fetch the keys again, at most this often: a
/// provider's rotation is picked up at once, and forged `kid`s cannot make Tephra flood it.
const KEY_REFRESH: Duration = Duration::from_secs(60);

pub(super) type TokenResponse = StandardTokenResponse<
    IdTokenFields<
        Extra,
        EmptyExtraTokenFields,
        CoreGenderClaim,
        CoreJweContentEncryptionAlgorithm,
        CoreJwsSigningAlgorithm,
    >,
    CoreTokenType,
>;

pub(super) type IdTokenClaims = openidconnect::IdTokenClaims<Extra, CoreGenderClaim>;

pub(super) type IdToken = openidconnect::IdToken<
    Extra,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;

/// The client as discovery configures it: authorization endpoint set, token and userinfo
/// endpoints as the provider advertises them.
pub(super) type OidcClient = Client<
    Extra,
    CoreAuthDisplay,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJsonWebKey,
    CoreAuthPrompt,
    StandardErrorResponse<CoreErrorResponseType>,
    TokenResponse,
    CoreTokenIntrospectionResponse,
    CoreRevocableToken,
    CoreRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

pub(super) struct Discovered {
    pub(super) client: OidcClient,
    pub(super) issuer: IssuerUrl,
    pub(super) jwks: openidconnect::core::CoreJsonWebKeySet,
    pub(super) end_session: Option<EndSessionUrl>,
    /// The provider's advertised ID token algorithms, `none` removed.
    pub(super) algs: Vec<CoreJwsSigningAlgorithm>,
}

impl Oidc {
    /// Why sign-in cannot work right now, for `/readyz`.
    pub fn problem(&self) -> Option<String> {
        if self.current().is_some() {
            return None;
        }
        let why = self.last_error.lock().unwrap_or_else(|e| e.into_inner());
        Some(format!(
            "identity provider {} not discovered: {}",
            self.settings.issuer,
            why.as_deref().unwrap_or("not tried yet")
        ))
    }

    pub(super) fn current(&self) -> Option<Arc<Discovered>> {
        self.discovered
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(super) fn ready(&self) -> Result<Arc<Discovered>, SignInError> {
        self.current()
            .ok_or_else(|| SignInError::NotDiscovered(self.settings.issuer.clone()))
    }

    /// The provider's keys for a token signed with key `kid`: those discovered, fetched again
    /// first when they lack that key and the last such fetch is over [`KEY_REFRESH`] ago.
    pub(super) async fn keys_for(&self, kid: Option<&str>) -> Option<Arc<Discovered>> {
        use openidconnect::JsonWebKey;
        let current = self.current()?;
        let Some(kid) = kid else {
            return Some(current);
        };
        let known = current
            .jwks
            .keys()
            .iter()
            .any(|k| k.key_id().is_some_and(|id| id.as_str() == kid));
        if known {
            return Some(current);
        }
        let due = {
            let mut last = self.key_refresh.lock().unwrap_or_else(|e| e.into_inner());
            let due = last.is_none_or(|t| t.elapsed() >= KEY_REFRESH);
            if due {
                *last = Some(std::time::Instant::now());
            }
            due
        };
        if due {
            tracing::info!(issuer = %self.settings.issuer, kid, "a token names a key Tephra has not seen; fetching the provider's keys again");
            if let Err(error) = self.discover().await {
                tracing::warn!(issuer = %self.settings.issuer, %error, "cannot fetch the provider's keys again");
            }
        }
        self.current()
    }

    /// Fetches the provider's metadata and keys once.
    pub async fn discover(&self) -> Result<(), String> {
        let outcome = self.fetch_metadata().await;
        match &outcome {
            Ok(discovered) => {
                *self.discovered.write().unwrap_or_else(|e| e.into_inner()) =
                    Some(Arc::clone(discovered));
                *self.last_error.lock().unwrap_or_else(|e| e.into_inner()) = None;
            }
            Err(error) => {
                *self.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error.clone());
            }
        }
        outcome.map(|_| ())
    }

    async fn fetch_metadata(&self) -> Result<Arc<Discovered>, String> {
        let issuer = IssuerUrl::new(self.settings.issuer.clone()).map_err(|e| e.to_string())?;
        let metadata = ProviderMetadataWithLogout::discover_async(issuer, &self.http)
            .await
            .map_err(|e| error_chain(&e))?;
        let end_session = metadata.additional_metadata().end_session_endpoint.clone();
        let algs: Vec<CoreJwsSigningAlgorithm> = metadata
            .id_token_signing_alg_values_supported()
            .iter()
            .filter(|a| **a != CoreJwsSigningAlgorithm::None)
            .cloned()
            .collect();
        let redirect =
            RedirectUrl::new(self.settings.public_url.redirect_uri()).map_err(|e| e.to_string())?;
        let (issuer, jwks) = (metadata.issuer().clone(), metadata.jwks().clone());
        let client = OidcClient::from_provider_metadata(
            metadata,
            ClientId::new(self.settings.client_id.clone()),
            self.settings.client_secret.clone().map(ClientSecret::new),
        )
        .set_redirect_uri(redirect);
        Ok(Arc::new(Discovered {
            client,
            issuer,
            jwks,
            end_session,
            algs,
        }))
    }

    /// Discovers until it succeeds (1 s doubling to 60 s between tries), then again every
    /// [`REDISCOVER`]. Runs for the life of the process.
    pub async fn keep_discovered(self: Arc<Self>) {
        let mut wait = Duration::from_secs(1);
        loop {
            match self.discover().await {
                Ok(()) => {
                    tracing::info!(issuer = %self.settings.issuer, "identity provider discovered");
                    wait = Duration::from_secs(1);
                    tokio::time::sleep(REDISCOVER).await;
                }
                Err(error) => {
                    tracing::warn!(issuer = %self.settings.issuer, %error, retry_in = ?wait, "cannot discover the identity provider");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(60));
                }
            }
        }
    }
}

/// An error and its causes on one line (reqwest's own message hides the cause).
pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
