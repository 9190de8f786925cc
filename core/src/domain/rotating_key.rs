//! An HMAC-SHA256 key that can be rotated: the current key signs, and it or any older key still
//! listed verifies. Owner signatures on cluster objects (`ownership`) and the exposed URLs'
//! passes (`exposed`) are signed with one each.

use hmac::{Hmac, Mac};
use sha2::Sha256;

#[derive(Clone)]
pub struct RotatingKey {
    current: Vec<u8>,
    older: Vec<Vec<u8>>,
}

/// Keys never reach a log.
impl std::fmt::Debug for RotatingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RotatingKey(..)")
    }
}

impl RotatingKey {
    /// Signs with `current`; verifies what `current` or any of `older` signed.
    pub fn new(current: Vec<u8>, older: Vec<Vec<u8>>) -> Self {
        RotatingKey { current, older }
    }

    /// A key from its stored form (hex); `None` when it is not hex or too short to be a key.
    pub fn from_hex(stored: &str) -> Option<Self> {
        let bytes = hex::decode(stored.trim()).ok()?;
        (bytes.len() >= 32).then(|| RotatingKey::new(bytes, Vec::new()))
    }

    fn mac(key: &[u8], parts: &[&str]) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any size");
        for part in parts {
            mac.update(part.as_bytes());
        }
        mac
    }

    /// The signature of `parts` (concatenated) under the current key.
    pub fn sign(&self, parts: &[&str]) -> Vec<u8> {
        Self::mac(&self.current, parts)
            .finalize()
            .into_bytes()
            .to_vec()
    }

    /// Whether `signature` is any listed key's of `parts`, compared in constant time.
    pub fn verifies(&self, parts: &[&str], signature: &[u8]) -> bool {
        std::iter::once(&self.current)
            .chain(&self.older)
            .any(|key| Self::mac(key, parts).verify_slice(signature).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_an_older_key_signed_verifies_while_it_is_listed() {
        let old = RotatingKey::new(vec![1; 32], Vec::new());
        let signature = old.sign(&["a", "\n", "b"]);
        let rotated = RotatingKey::new(vec![2; 32], vec![vec![1; 32]]);
        assert!(rotated.verifies(&["a", "\n", "b"], &signature));
        assert!(!rotated.verifies(&["a", "\n", "c"], &signature));
        let dropped = RotatingKey::new(vec![2; 32], Vec::new());
        assert!(!dropped.verifies(&["a", "\n", "b"], &signature));
        assert_ne!(
            rotated.sign(&["a"]),
            old.sign(&["a"]),
            "the current key signs"
        );
    }

    #[test]
    fn a_stored_key_must_be_hex_and_long_enough() {
        assert!(RotatingKey::from_hex("abcd").is_none());
        assert!(RotatingKey::from_hex("zz").is_none());
        assert!(RotatingKey::from_hex(&"00".repeat(32)).is_some());
        assert_eq!(
            format!("{:?}", RotatingKey::from_hex(&"00".repeat(32)).unwrap()),
            "RotatingKey(..)"
        );
    }
}
