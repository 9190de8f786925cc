//! A sign-in on its way through the provider, kept in the browser as a signed cookie that lives
//! ten minutes, not in a session row: an anonymous `GET /auth/login` writes nothing to the
//! database, so nobody can fill the session table by asking for sign-in pages. The cookie holds
//! `state`, `nonce` and the PKCE verifier, which only this browser needs back, signed with a key
//! derived from the installation's token key so it cannot be forged or altered. A cookie sealed
//! just before a key rotation still opens under the older key while it is listed.

use super::oidc::PendingLogin;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The cookie's name. Only `/auth/` paths see it.
pub const COOKIE: &str = "tephra_login";
/// How long the cookie lives: as long as a sign-in may take (the provider's side included).
const MAX_AGE_SECONDS: i64 = 600;
/// The longest return path kept; a longer one returns to `/` (a cookie holds about 4 KiB).
const MAX_NEXT: usize = 1024;

#[derive(Clone)]
pub struct PendingSeal {
    /// Seals.
    current: Vec<u8>,
    /// Still open what they sealed.
    older: Vec<Vec<u8>>,
}

fn mac(key: &[u8], payload: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key size");
    mac.update(payload.as_bytes());
    mac
}

impl PendingSeal {
    /// Seals with `current`; opens what `current` or any of `older` sealed.
    pub fn new(current: Vec<u8>, older: Vec<Vec<u8>>) -> Self {
        PendingSeal { current, older }
    }

    fn seal(&self, pending: &PendingLogin) -> String {
        let json = serde_json::to_vec(pending).unwrap_or_default();
        let payload = B64.encode(json);
        let signature = B64.encode(mac(&self.current, &payload).finalize().into_bytes());
        format!("{payload}.{signature}")
    }

    fn open(&self, value: &str) -> Option<PendingLogin> {
        let (payload, signature) = value.split_once('.')?;
        let signature = B64.decode(signature).ok()?;
        std::iter::once(&self.current)
            .chain(&self.older)
            .find(|key| mac(key, payload).verify_slice(&signature).is_ok())?;
        serde_json::from_slice(&B64.decode(payload).ok()?).ok()
    }

    /// The `Set-Cookie` value that keeps `pending` in the browser.
    pub fn set_cookie(&self, mut pending: PendingLogin, secure: bool) -> String {
        if pending.next.len() > MAX_NEXT {
            pending.next = "/".into();
        }
        cookie(&self.seal(&pending), MAX_AGE_SECONDS, secure)
    }

    /// The pending sign-in the request's cookie holds, if it is one this installation sealed.
    pub fn from_headers(&self, headers: &http::HeaderMap) -> Option<PendingLogin> {
        headers
            .get_all(http::header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(|(name, _)| *name == COOKIE)
            .find_map(|(_, value)| self.open(value))
    }
}

/// The `Set-Cookie` value that removes the pending sign-in, once it is used or refused.
pub fn clear_cookie(secure: bool) -> String {
    cookie("", 0, secure)
}

fn cookie(value: &str, max_age: i64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={value}; Path=/auth; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(next: &str) -> PendingLogin {
        serde_json::from_value(serde_json::json!({
            "state": "s", "nonce": "n", "verifier": "v", "next": next, "started_at": 1
        }))
        .expect("a pending login")
    }

    fn headers(cookie: &str) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::COOKIE, cookie.parse().expect("a header"));
        headers
    }

    #[test]
    fn a_sealed_sign_in_comes_back_only_unaltered() {
        let seal = PendingSeal::new(b"key".to_vec(), Vec::new());
        let set = seal.set_cookie(pending("/trainings"), true);
        assert!(set.contains("HttpOnly") && set.contains("Secure") && set.contains("Max-Age=600"));
        let value = set["tephra_login=".len()..]
            .split(';')
            .next()
            .unwrap_or_default();
        let back = seal
            .from_headers(&headers(&format!("other=1; tephra_login={value}")))
            .expect("opens");
        assert_eq!(back.next, "/trainings");
        let other_key = PendingSeal::new(b"another".to_vec(), Vec::new());
        assert!(
            other_key
                .from_headers(&headers(&format!("tephra_login={value}")))
                .is_none()
        );
        let (payload, signature) = value.split_once('.').unwrap_or_default();
        let forged = format!("{}.{signature}", B64.encode(b"{\"next\":\"/x\"}"));
        assert!(
            seal.from_headers(&headers(&format!("tephra_login={forged}")))
                .is_none()
        );
        assert!(
            seal.from_headers(&headers(&format!("tephra_login={payload}")))
                .is_none()
        );
        let long = seal.set_cookie(pending(&format!("/{}", "a".repeat(5000))), false);
        let value = long["tephra_login=".len()..]
            .split(';')
            .next()
            .unwrap_or_default();
        let back = seal.from_headers(&headers(&format!("tephra_login={value}")));
        assert_eq!(back.map(|p| p.next).as_deref(), Some("/"));
    }

    #[test]
    fn a_sign_in_sealed_before_a_rotation_opens_while_the_older_key_is_listed() {
        let before = PendingSeal::new(b"old".to_vec(), Vec::new());
        let set = before.set_cookie(pending("/trainings"), true);
        let value = set["tephra_login=".len()..]
            .split(';')
            .next()
            .unwrap_or_default();
        let cookie = headers(&format!("tephra_login={value}"));
        let rotated = PendingSeal::new(b"new".to_vec(), vec![b"old".to_vec()]);
        assert!(rotated.from_headers(&cookie).is_some());
        let dropped = PendingSeal::new(b"new".to_vec(), Vec::new());
        assert!(dropped.from_headers(&cookie).is_none());
    }
}
