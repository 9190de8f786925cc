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

    /// A ring from the keys file: `current` signs, `older` still verify. Each key is one byte
    /// repeated.
    fn ring(current: (&str, u8), older: &[(&str, u8)]) -> AppTokens {
        let mut keys = String::new();
        for (kid, byte) in std::iter::once(&current).chain(older) {
            keys.push_str(&format!(
                "    - {{kid: {kid}, key: {}}}\n",
                hex::encode([*byte; 32])
            ));
        }
        let text = format!(
            "tokens:\n  current: {}\n  keys:\n{keys}owner:\n  current: o\n  keys:\n    - \
             {{kid: o, key: {}}}\n",
            current.0,
            hex::encode([0xeeu8; 32])
        );
        let keyring = tephra_core::domain::keyring::Keyring::parse(&text).unwrap();
        AppTokens::from_ring(keyring.tokens)
    }

    fn header_of(token: &str) -> serde_json::Value {
        let header = token.split('.').next().unwrap();
        serde_json::from_slice(&B64.decode(header).unwrap()).unwrap()
    }

    #[test]
    fn a_token_carries_the_kid_of_the_key_that_signed_it() {
        let token = ring(("2026-11", 1), &[]).issue("ci-bot", 1_000);
        assert_eq!(header_of(&token)["kid"], "tephra-app:2026-11");
        assert!(is_tephra_token(&token));
        let legacy = tokens().issue("ci-bot", 1_000);
        assert_eq!(
            header_of(&legacy)["kid"],
            KEY_ID,
            "the database key's form is unchanged"
        );
    }

    #[test]
    fn after_a_rotation_a_token_of_the_older_key_verifies_while_it_is_listed() {
        let token = ring(("k1", 1), &[]).issue("ci-bot", 1_000);
        let rotated = ring(("k2", 2), &[("k1", 1)]);
        assert_eq!(rotated.verify(&token, 1_001).unwrap().sub, "ci-bot");
        let fresh = rotated.issue("ci-bot", 1_001);
        assert_eq!(header_of(&fresh)["kid"], "tephra-app:k2");
        assert_eq!(rotated.verify(&fresh, 1_002).unwrap().sub, "ci-bot");
    }

    #[test]
    fn a_token_of_a_removed_key_is_refused_naming_the_kid() {
        let token = ring(("k1", 1), &[]).issue("ci-bot", 1_000);
        let error = ring(("k2", 2), &[]).verify(&token, 1_001).unwrap_err();
        assert_eq!(error, TokenError::UnknownKey("k1".into()));
        assert!(error.to_string().contains("no longer accepts"), "{error}");
    }

    #[test]
    fn a_listed_kid_with_another_keys_signature_does_not_verify() {
        let forged = ring(("k1", 9), &[]).issue("ci-bot", 1_000);
        assert_eq!(
            ring(("k2", 2), &[("k1", 1)]).verify(&forged, 1_001),
            Err(TokenError::BadSignature)
        );
    }

    #[test]
    fn a_token_from_before_rotation_verifies_when_the_file_lists_the_database_key() {
        let hex_key = hex::encode([7u8; 32]);
        let before = AppTokens::new(&hex_key).unwrap().issue("ci-bot", 1_000);
        let migrated = ring(("k2", 2), &[("database", 7)]);
        assert_eq!(migrated.verify(&before, 1_001).unwrap().sub, "ci-bot");
        assert_eq!(
            ring(("k2", 2), &[]).verify(&before, 1_001),
            Err(TokenError::UnknownKey("database".into()))
        );
    }

    #[test]
    fn a_kid_that_is_not_one_is_malformed() {
        let issuer = ring(("k1", 1), &[]);
        let token = issuer.issue("ci-bot", 1_000);
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        parts[0] = B64.encode(br#"{"alg":"HS256","typ":"JWT","kid":"tephra-app:a b"}"#);
        assert_eq!(
            issuer.verify(&parts.join("."), 1_000),
            Err(TokenError::Malformed)
        );
    }

    #[test]
    fn derived_keys_sign_with_the_current_key_and_include_every_older_one() {
        let old = ring(("k1", 1), &[]).derived_key("pending-login");
        let rotated = ring(("k2", 2), &[("k1", 1)]);
        let (current, older) = rotated.derived_keys("pending-login");
        assert_eq!(current, rotated.derived_key("pending-login"));
        assert_ne!(current, old);
        assert_eq!(older, [old]);
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
