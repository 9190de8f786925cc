//! Access tokens the provider issued for Tephra (RFC 9068 JWTs, `typ: at+jwt`), for tools that
//! already sign in with the provider. Checked like ID tokens (the provider's keys and advertised
//! algorithms, issuer, expiry), but against the configured audience (`--oidc-audience`) and with
//! no nonce, since no sign-in of Tephra's asked for them.

use super::jose::Header;
use super::{IdToken, Identity, Oidc};
use openidconnect::core::CoreIdTokenVerifier;
use openidconnect::{ClaimsVerificationError, ClientId, JsonWebTokenType, Nonce};

impl Oidc {
    /// Who the access token stands for, or why it is refused, in words safe to show.
    pub async fn verify_access_token(&self, raw: &str) -> Result<Identity, String> {
        let header = Header::of(raw);
        let discovered = self.keys_for(header.kid()).await.ok_or_else(|| {
            format!(
                "the identity provider {} has not answered yet",
                self.settings.issuer
            )
        })?;
        let token: IdToken = raw
            .parse()
            .map_err(|_| "it is neither one of Tephra's tokens nor a signed JWT".to_owned())?;
        let types = ["at+jwt", "application/at+jwt", "JWT"]
            .into_iter()
            .filter_map(|t| JsonWebTokenType::new(t.to_owned()).normalize().ok());
        let verifier = CoreIdTokenVerifier::new_public_client(
            ClientId::new(self.settings.audience.clone()),
            discovered.issuer.clone(),
            discovered.jwks.clone(),
        )
        .set_allowed_algs(discovered.algs.clone())
        .set_allowed_jose_types(types);
        let no_nonce = |_: Option<&Nonce>| Ok(());
        let claims = token
            .claims(&verifier, no_nonce)
            .map_err(|e| self.explain(e))?;
        // An ID token proves a sign-in to Tephra's client, not a grant to call its API: one
        // leaked from a browser (or another app of the same client) must not work as a bearer.
        let id_token_like = !header.is_access_token()
            && claims
                .audiences()
                .iter()
                .any(|a| a.as_str() == self.settings.client_id);
        if id_token_like {
            return Err(format!(
                "it is an ID token (its audience is Tephra's client id {:?} and its type is not \
                 at+jwt); ID tokens prove a sign-in, not a grant to call the API: send an access \
                 token for the audience {:?}, or an application's token from POST /api/v1/token",
                self.settings.client_id, self.settings.audience
            ));
        }
        Ok(self.identity_from(claims))
    }

    fn explain(&self, error: ClaimsVerificationError) -> String {
        match error {
            ClaimsVerificationError::Expired(_) => "it has expired".into(),
            ClaimsVerificationError::InvalidIssuer(_) => format!(
                "it was not issued by {} (wrong issuer)",
                self.settings.issuer
            ),
            ClaimsVerificationError::InvalidAudience(_) => format!(
                "it is not meant for Tephra: its audience must include {:?}",
                self.settings.audience
            ),
            ClaimsVerificationError::SignatureVerification(e) => {
                format!("its signature does not verify ({e})")
            }
            other => other.to_string(),
        }
    }
}
