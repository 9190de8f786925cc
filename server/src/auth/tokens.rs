//! Tephra's own access tokens, answered by `POST /api/v1/token` to applications: a JWT signed
//! with HS256 under the installation's key (kept in the database, so every replica verifies
//! what any replica issued), valid for [`TOKEN_SECONDS`]. The token names the application; it
//! is looked up on every use, so a revoked application's tokens stop working at once.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How long an access token lasts.
pub const TOKEN_SECONDS: i64 = 3600;
/// The `kid` of Tephra's tokens; a provider's tokens never carry it, so the two are told apart
/// before any verification (and a provider token can never be checked against this key).
pub const KEY_ID: &str = "tephra-app";
/// The settings key of the signing key.
pub const SETTING: &str = "app_token_key";
const AUDIENCE: &str = "tephra";

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    alg: String,
    typ: String,
    kid: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppClaims {
    /// The application's name (its client id).
    pub sub: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
}

/// Why a token was not accepted. Never says which part of a secret was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the access token is not a well-formed token")]
    Malformed,
    #[error("the access token's signature does not verify")]
    BadSignature,
    #[error("the access token has expired; ask POST /api/v1/token for a new one")]
    Expired,
}

/// Whether a bearer token is one of Tephra's own (by its header's `kid`).
pub fn is_tephra_token(token: &str) -> bool {
    let Some(header) = token.split('.').next() else {
        return false;
    };
    B64.decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Header>(&bytes).ok())
        .is_some_and(|h| h.kid == KEY_ID)
}

/// A new random key, hex-encoded for the settings table.
pub fn new_key() -> String {
    use rand::RngCore;
    let mut key = [0u8; 32];
    rand::rng().fill_bytes(&mut key);
    hex::encode(key)
}

/// A new application secret: 32 random bytes, shown once.
pub fn new_secret() -> String {
    use rand::RngCore;
    let mut secret = [0u8; 32];
    rand::rng().fill_bytes(&mut secret);
    B64.encode(secret)
}

/// What is stored of a secret. The secret is random and long, so a plain SHA-256 suffices (a
/// slow password hash protects guessable secrets, which these are not).
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

#[derive(Clone)]
pub struct AppTokens {
    key: Vec<u8>,
}

impl AppTokens {
    /// From the hex key in the settings table.
    pub fn new(hex_key: &str) -> anyhow::Result<Self> {
        Ok(AppTokens {
            key: hex::decode(hex_key)?,
        })
    }

    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key size")
    }

    /// A key for another purpose, derived from this one (HMAC of `label`), so one stored key
    /// serves several signatures that cannot stand in for each other.
    pub fn derived_key(&self, label: &str) -> Vec<u8> {
        self.sign(label)
    }

    fn sign(&self, input: &str) -> Vec<u8> {
        let mut mac = self.mac();
        mac.update(input.as_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// A token for the application named `app`, issued at `now` (Unix seconds).
    pub fn issue(&self, app: &str, now: i64) -> String {
        let header = Header {
            alg: "HS256".into(),
            typ: "JWT".into(),
            kid: KEY_ID.into(),
        };
        let claims = AppClaims {
            sub: app.to_owned(),
            aud: AUDIENCE.into(),
            iat: now,
            exp: now + TOKEN_SECONDS,
        };
        let input = format!(
            "{}.{}",
            B64.encode(serde_json::to_vec(&header).expect("a header serializes")),
            B64.encode(serde_json::to_vec(&claims).expect("claims serialize"))
        );
        let signature = B64.encode(self.sign(&input));
        format!("{input}.{signature}")
    }

    /// The claims of a token this installation issued, if its signature verifies and it has
    /// not expired at `now`.
    pub fn verify(&self, token: &str, now: i64) -> Result<AppClaims, TokenError> {
        let mut parts = token.split('.');
        let (Some(raw_header), Some(raw_claims), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed);
        };
        let header: Header = B64
            .decode(raw_header)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .ok_or(TokenError::Malformed)?;
        if header.alg != "HS256" || header.kid != KEY_ID {
            return Err(TokenError::Malformed);
        }
        let signature = B64.decode(signature).map_err(|_| TokenError::Malformed)?;
        let mut mac = self.mac();
        mac.update(format!("{raw_header}.{raw_claims}").as_bytes());
        // Constant-time comparison.
        mac.verify_slice(&signature)
            .map_err(|_| TokenError::BadSignature)?;
        let claims: AppClaims = B64
            .decode(raw_claims)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .ok_or(TokenError::Malformed)?;
        if claims.aud != AUDIENCE {
            return Err(TokenError::Malformed);
        }
        if claims.exp <= now {
            return Err(TokenError::Expired);
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> AppTokens {
        AppTokens::new(&new_key()).unwrap()
    }

    #[test]
    fn a_token_verifies_until_it_expires() {
        let tokens = tokens();
        let token = tokens.issue("ci-bot", 1_000);
        assert!(is_tephra_token(&token));
        let claims = tokens.verify(&token, 1_000 + TOKEN_SECONDS - 1).unwrap();
        assert_eq!(claims.sub, "ci-bot");
        assert_eq!(
            tokens.verify(&token, 1_000 + TOKEN_SECONDS),
            Err(TokenError::Expired)
        );
    }

    /// Run:ai's SDK reads `exp` by decoding the claims with Python's `base64.b64decode`, which
    /// drops the URL-safe `-` and `_` instead of decoding them. ASCII JSON only encodes to those
    /// where a byte `>`, `?` or `~` ends a 3-byte group, which application names never hold; this
    /// keeps it so.
    #[test]
    fn the_claims_decode_with_the_standard_base64_alphabet_too() {
        use base64::Engine;
        let tokens = tokens();
        for app in [
            "ci-bot",
            "sdk",
            "nightly-runs.team-a",
            "a",
            "ab",
            "abc",
            "x9_y",
        ] {
            for now in [0, 1_000, 1_764_000_000, 1_999_999_999] {
                let token = tokens.issue(app, now);
                let claims = token.split('.').nth(1).unwrap();
                assert!(!claims.contains(['-', '_']), "{app} at {now}: {claims}");
                let padded = format!("{claims}{}", "=".repeat((4 - claims.len() % 4) % 4));
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(padded)
                    .unwrap();
                let json: serde_json::Value = serde_json::from_slice(&decoded).unwrap();
                assert_eq!(json["exp"], now + TOKEN_SECONDS);
            }
        }
    }

    #[test]
    fn another_installation_or_a_changed_claim_does_not_verify() {
        let token = tokens().issue("ci-bot", 1_000);
        assert_eq!(
            tokens().verify(&token, 1_000),
            Err(TokenError::BadSignature)
        );
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut claims: serde_json::Value =
            serde_json::from_slice(&B64.decode(&parts[1]).unwrap()).unwrap();
        claims["sub"] = "root-bot".into();
        parts[1] = B64.encode(serde_json::to_vec(&claims).unwrap());
        let issuer = tokens();
        let forged = issuer.issue("ci-bot", 1_000);
        let mut forged_parts: Vec<&str> = forged.split('.').collect();
        forged_parts[1] = &parts[1];
        assert_eq!(
            issuer.verify(&forged_parts.join("."), 1_000),
            Err(TokenError::BadSignature)
        );
    }

    #[test]
    fn garbage_is_malformed_not_a_panic() {
        let tokens = tokens();
        for token in ["", "a.b", "a.b.c.d", "...", "e30.e30.e30", "\u{0}.x.y"] {
            assert_eq!(
                tokens.verify(token, 0),
                Err(TokenError::Malformed),
                "{token}"
            );
            assert!(!is_tephra_token(token));
        }
    }

    #[test]
    fn secrets_are_random_and_hashed() {
        let (a, b) = (new_secret(), new_secret());
        assert_ne!(a, b);
        assert!(a.len() >= 43);
        assert_eq!(hash_secret(&a), hash_secret(&a));
        assert_ne!(hash_secret(&a), hash_secret(&b));
        assert!(!hash_secret(&a).contains(&a));
    }
}
