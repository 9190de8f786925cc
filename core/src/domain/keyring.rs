//! The keys Tephra signs with when an operator keeps them (`--keys-file`, typically a mounted
//! Kubernetes Secret) rather than the database, where a database read would hand them out.
//!
//! Each purpose has a ring: one current key that signs, and older keys that still verify, each
//! named by a `kid`, so a key can be rotated without invalidating what it signed. The file is
//! YAML (JSON is YAML too):
//!
//! ```yaml
//! tokens:            # application access tokens, and the short-lived cookies derived from them
//!   current: 2026-11
//!   keys:
//!     - kid: 2026-11
//!       key: <64 or more hex digits>
//!     - kid: database   # the key earlier releases kept in the database, still accepted
//!       key: <hex>
//! owner:             # the signature that marks Volcano Jobs and namespaces as Tephra's
//!   current: 2026-11
//!   keys:
//!     - kid: 2026-11
//!       key: <hex>
//! ```
//!
//! Parsing is the only check: every later use takes the typed [`Keyring`]. Errors name the field
//! and never repeat a key.

use serde::Deserialize;

/// The `kid` of the key kept in the database when no keys file is given; a keys file that lists
/// the database's key under this name keeps what it signed valid.
pub const DATABASE_KID: &str = "database";
/// The shortest key accepted, in bytes: HMAC-SHA256's own output size.
const MIN_KEY_BYTES: usize = 32;
/// The longest `kid`; it travels in every token's header.
const MAX_KID_LEN: usize = 64;

/// A key's name: 1 to 64 letters, digits, `.`, `_` or `-`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Kid(String);

impl Kid {
    /// A kid from text, or why it is not one.
    pub fn parse(text: &str) -> Result<Self, String> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if text.is_empty() || text.len() > MAX_KID_LEN || !text.chars().all(allowed) {
            return Err(format!(
                "must be 1 to {MAX_KID_LEN} letters, digits, `.`, `_` or `-`"
            ));
        }
        Ok(Kid(text.to_owned()))
    }

    /// The kid of the key kept in the database.
    pub fn database() -> Self {
        Kid(DATABASE_KID.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Kid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Key material. Not `Serialize`, and its `Debug` prints nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretKey(Vec<u8>);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(..)")
    }
}

impl SecretKey {
    /// A key from hex, at least 32 bytes long; the error never quotes the input.
    pub fn from_hex(text: &str) -> Result<Self, String> {
        let bytes = hex::decode(text.trim()).map_err(|_| "is not hexadecimal".to_owned())?;
        if bytes.len() < MIN_KEY_BYTES {
            return Err(format!(
                "is {} bytes; a key needs at least {MIN_KEY_BYTES} ({} hex digits)",
                bytes.len(),
                MIN_KEY_BYTES * 2
            ));
        }
        Ok(SecretKey(bytes))
    }

    /// A key read back from the database as earlier releases stored it, taken as it is so an
    /// existing installation starts exactly as before.
    pub fn from_database(bytes: Vec<u8>) -> Self {
        SecretKey(bytes)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The keys of one purpose: the current one first, then the older ones still accepted. Never
/// empty, and no kid twice.
#[derive(Debug, Clone)]
pub struct KeyRing {
    current: (Kid, SecretKey),
    older: Vec<(Kid, SecretKey)>,
}

impl KeyRing {
    /// A ring of one key, which signs and is the only one that verifies.
    pub fn single(kid: Kid, key: SecretKey) -> Self {
        KeyRing {
            current: (kid, key),
            older: Vec::new(),
        }
    }

    /// The key that signs, with its kid.
    pub fn current(&self) -> (&Kid, &SecretKey) {
        (&self.current.0, &self.current.1)
    }

    /// The key named `kid`, current or older.
    pub fn get(&self, kid: &str) -> Option<&SecretKey> {
        self.all()
            .find(|(k, _)| k.as_str() == kid)
            .map(|(_, key)| key)
    }

    /// Every key with its kid, the current one first.
    pub fn all(&self) -> impl Iterator<Item = (&Kid, &SecretKey)> {
        std::iter::once(&self.current)
            .chain(&self.older)
            .map(|(kid, key)| (kid, key))
    }

    /// Every key, the current one first.
    pub fn keys(&self) -> impl Iterator<Item = &SecretKey> {
        self.all().map(|(_, key)| key)
    }
}

/// What a keys file holds.
#[derive(Debug, Clone)]
pub struct Keyring {
    /// Signs application access tokens; the pending sign-in cookie and exposed URLs' passes
    /// are signed with keys derived from it.
    pub tokens: KeyRing,
    /// Signs what Tephra creates in the cluster (`domain::ownership`).
    pub owner: KeyRing,
}

/// Why a keys file was refused: the field (e.g. `tokens.keys[1].key`) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct KeyFileError {
    pub field: String,
    pub message: String,
}

fn refuse(field: impl Into<String>, message: impl Into<String>) -> KeyFileError {
    KeyFileError {
        field: field.into(),
        message: message.into(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    tokens: Option<RawRing>,
    owner: Option<RawRing>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRing {
    current: Option<String>,
    #[serde(default)]
    keys: Vec<RawKey>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKey {
    kid: String,
    key: String,
}

impl Keyring {
    /// The keys in a keys file's text.
    pub fn parse(text: &str) -> Result<Self, KeyFileError> {
        let raw: RawFile =
            serde_yaml::from_str(text).map_err(|e| refuse("(file)", unquoted(&e.to_string())))?;
        let tokens = ring("tokens", raw.tokens)?;
        let owner = ring("owner", raw.owner)?;
        for (kid, key) in owner.all() {
            if let Some((token_kid, _)) = tokens.all().find(|(_, k)| *k == key) {
                return Err(refuse(
                    format!("owner.keys (kid {kid})"),
                    format!(
                        "the same key as tokens' kid {token_kid}; each purpose needs its own key"
                    ),
                ));
            }
        }
        Ok(Keyring { tokens, owner })
    }
}

/// serde's message with the values it quotes (`invalid type: string "…"`) left out: a key
/// written where a list was expected must not reach the log. Field names are in backticks and
/// stay.
fn unquoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for (i, part) in message.split('"').enumerate() {
        out.push_str(if i % 2 == 0 { part } else { "…" });
    }
    out
}

fn ring(name: &str, raw: Option<RawRing>) -> Result<KeyRing, KeyFileError> {
    let raw = raw.ok_or_else(|| refuse(name, "missing; list its keys and name the current one"))?;
    if raw.keys.is_empty() {
        return Err(refuse(format!("{name}.keys"), "lists no key"));
    }
    let mut keys: Vec<(Kid, SecretKey)> = Vec::with_capacity(raw.keys.len());
    for (i, entry) in raw.keys.iter().enumerate() {
        let kid = Kid::parse(&entry.kid).map_err(|m| refuse(format!("{name}.keys[{i}].kid"), m))?;
        if keys.iter().any(|(k, _)| *k == kid) {
            return Err(refuse(
                format!("{name}.keys[{i}].kid"),
                format!("`{kid}` is listed twice; each key needs its own kid"),
            ));
        }
        let key = SecretKey::from_hex(&entry.key)
            .map_err(|m| refuse(format!("{name}.keys[{i}].key"), m))?;
        keys.push((kid, key));
    }
    let current = raw.current.ok_or_else(|| {
        refuse(
            format!("{name}.current"),
            "missing; name the kid of the key that signs",
        )
    })?;
    let position = keys
        .iter()
        .position(|(kid, _)| kid.as_str() == current)
        .ok_or_else(|| {
            refuse(
                format!("{name}.current"),
                format!("names no key in {name}.keys"),
            )
        })?;
    let current = keys.remove(position);
    Ok(KeyRing {
        current,
        older: keys,
    })
}

#[cfg(test)]
#[path = "keyring_tests.rs"]
mod tests;
