//! Tephra's own access tokens, answered by `POST /api/v1/token` to applications: a JWT signed
//! with HS256 under the installation's current token key (from the keys file, or kept in the
//! database; either way every replica verifies what any replica issued), valid for
//! [`TOKEN_SECONDS`]. The token names the application; it is looked up on every use, so a revoked
//! application's tokens stop working at once.
//!
//! The header's `kid` names the key: `tephra-app` is the database's key (what every token issued
//! before keys could be rotated carries), `tephra-app:<kid>` a key of the keys file. Verification
//! takes the key the token names, so a rotated-out key's tokens last until they expire while it
//! stays listed, and stop at once when it is removed.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tephra_core::domain::keyring::{DATABASE_KID, KeyRing, Kid, SecretKey};

/// How long an access token lasts.
pub const TOKEN_SECONDS: i64 = 3600;
/// The `kid` of Tephra's tokens signed with the database's key, and the prefix of the others'; a
/// provider's tokens never carry it, so the two are told apart before any verification (and a
/// provider token can never be checked against Tephra's keys).
pub const KEY_ID: &str = "tephra-app";
/// What precedes a keys file's kid in a token's header.
const KID_PREFIX: &str = "tephra-app:";
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
    #[error(
        "the access token was signed with a key this installation no longer accepts (kid \
         `{0}`); ask POST /api/v1/token for a new one"
    )]
    UnknownKey(String),
}

/// The ring's kid a token header's `kid` names, if it is one of Tephra's.
fn ring_kid(header_kid: &str) -> Option<&str> {
    if header_kid == KEY_ID {
        return Some(DATABASE_KID);
    }
    header_kid.strip_prefix(KID_PREFIX)
}

/// The header `kid` of a token signed with the ring's key `kid`: the database's key keeps the
/// plain form, so tokens look exactly as before to installations without a keys file.
fn header_kid(kid: &Kid) -> String {
    if kid.as_str() == DATABASE_KID {
        KEY_ID.to_owned()
    } else {
        format!("{KID_PREFIX}{kid}")
    }
}

/// Whether a bearer token is one of Tephra's own (by its header's `kid`).
pub fn is_tephra_token(token: &str) -> bool {
    let Some(header) = token.split('.').next() else {
        return false;
    };
    B64.decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Header>(&bytes).ok())
        .is_some_and(|h| ring_kid(&h.kid).is_some())
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

/// Issues and verifies application tokens with a ring of keys.
#[derive(Clone)]
pub struct AppTokens {
    ring: KeyRing,
}

fn mac(key: &SecretKey) -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(key.bytes()).expect("HMAC takes any key size")
}

fn sign(key: &SecretKey, input: &str) -> Vec<u8> {
    let mut mac = mac(key);
    mac.update(input.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

impl AppTokens {
    /// From the hex key in the settings table: the only key, under the database's kid.
    pub fn new(hex_key: &str) -> anyhow::Result<Self> {
        let key = SecretKey::from_database(hex::decode(hex_key)?);
        Ok(Self::from_ring(KeyRing::single(Kid::database(), key)))
    }

    /// From the keys file's token ring.
    pub fn from_ring(ring: KeyRing) -> Self {
        AppTokens { ring }
    }

    /// A key for another purpose, derived from the current key (HMAC of `label`), so one key
    /// serves several signatures that cannot stand in for each other. Signs; [`Self::derived_keys`]
    /// verifies.
    pub fn derived_key(&self, label: &str) -> Vec<u8> {
        sign(self.ring.current().1, label)
    }

    /// The key for `label` derived from the current key and from each older one: the first
    /// signs, and what the older ones signed before a rotation still verifies while they are
    /// listed.
    pub fn derived_keys(&self, label: &str) -> (Vec<u8>, Vec<Vec<u8>>) {
        let older = self.ring.keys().skip(1).map(|key| sign(key, label));
        (self.derived_key(label), older.collect())
    }

    /// A token for the application named `app`, issued at `now` (Unix seconds).
    pub fn issue(&self, app: &str, now: i64) -> String {
        let header = Header {
            alg: "HS256".into(),
            typ: "JWT".into(),
            kid: header_kid(self.ring.current().0),
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
        let signature = B64.encode(sign(self.ring.current().1, &input));
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
        let kid = match ring_kid(&header.kid) {
            Some(kid) if header.alg == "HS256" => {
                Kid::parse(kid).map_err(|_| TokenError::Malformed)?
            }
            _ => return Err(TokenError::Malformed),
        };
        let key = self
            .ring
            .get(kid.as_str())
            .ok_or_else(|| TokenError::UnknownKey(kid.to_string()))?;
        let signature = B64.decode(signature).map_err(|_| TokenError::Malformed)?;
        let mut mac = mac(key);
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
mod tests;
