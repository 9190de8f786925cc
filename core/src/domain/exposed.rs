//! Exposed URLs on hosts of their own, and the passes that let a browser through the ingress.
//!
//! Each exposed URL is `https://<job>-<port>-<hash>.<ingressHost>/`: one DNS label per URL, so no
//! two trainings share an origin (cookies, storage) with each other or with Tephra. The hash is
//! always there, over namespace, Job name and port, so Jobs of the same name in two projects get
//! two hosts, and a label shortened to fit 63 characters stays unique.
//!
//! The job's host is another site than Tephra's, so Tephra's session cookie never reaches it. A
//! browser gets there through a handshake: Tephra, where the user is signed in, hands out a
//! [`Purpose::Grant`] (60 s, one host) in the URL; the forward-auth check turns it into a
//! [`Purpose::Cookie`] pass for that host alone. Both are HMAC-signed with a key only Tephra
//! holds, name their host, user and expiry, and are verified as a whole.

use super::rotating_key::RotatingKey;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The longest DNS label.
const LABEL_MAX: usize = 63;
/// Hex digits of the hash in a label: 32 bits, so two URLs sharing a Job name, port and label
/// would need a 1 in 4 billion accident.
const HASH_LEN: usize = 8;
/// How long a grant in a URL is good for: long enough for a redirect, too short to be worth
/// copying out of a browser's history.
pub const GRANT_SECONDS: i64 = 60;
/// How long the cookie on a job's host lasts. Membership and `authorizedUsers` are checked again
/// on every request; the groups the cookie names are those of the sign-in it came from, so a
/// group taken away in the identity provider stops counting within this time.
pub const COOKIE_SECONDS: i64 = 8 * 3600;
/// The cookie's name: `__Host-` makes browsers insist on `Secure`, `Path=/` and no `Domain`, so
/// no other host can set or read it.
pub const COOKIE_NAME: &str = "__Host-tephra-exposed";
/// The query parameter that carries a grant to the job's host.
pub const GRANT_PARAM: &str = "tephra-grant";

fn hash8(namespace: &str, job: &str, port: i32) -> String {
    let mut digest = Sha256::new();
    // Newlines cannot occur in Kubernetes names: the fields stay apart.
    for part in [namespace, "\n", job, "\n", &port.to_string()] {
        digest.update(part.as_bytes());
    }
    hex::encode(digest.finalize())[..HASH_LEN].to_owned()
}

/// The DNS label of one exposed URL: `<job>-<port>-<hash>`, the Job's name shortened when the
/// label would pass 63 characters.
pub fn host_label(namespace: &str, job: &str, port: i32) -> String {
    // Kubernetes names are lowercase already; hosts compare without case, so hash what a host
    // can say.
    let (namespace, job) = (namespace.to_ascii_lowercase(), job.to_ascii_lowercase());
    let tail = format!("-{port}-{}", hash8(&namespace, &job, port));
    let room = LABEL_MAX - tail.len();
    let head = job.get(..room.min(job.len())).unwrap_or(&job);
    format!("{}{tail}", head.trim_end_matches('-'))
}

/// The host of one exposed URL under the profile's `ingressHost`.
pub fn url_host(ingress_host: &str, namespace: &str, job: &str, port: i32) -> String {
    format!(
        "{}.{}",
        host_label(namespace, job, port),
        ingress_host.to_ascii_lowercase()
    )
}

/// What a host under `ingressHost` says of the URL it serves, before the database confirms it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostLabel {
    /// The host, lowercase, without a port.
    pub host: String,
    /// The label, whole.
    pub label: String,
    /// The Job's name or its first characters.
    pub job_prefix: String,
    pub port: i32,
}

/// Reads `host` (`name[:port]`) as an exposed URL's host under `ingress_host`; `None` for any
/// other host.
pub fn parse_host(host: &str, ingress_host: &str) -> Option<HostLabel> {
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
    .to_ascii_lowercase();
    let suffix = format!(".{}", ingress_host.to_ascii_lowercase());
    let label = host.strip_suffix(&suffix)?;
    let valid = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    if label.is_empty() || label.len() > LABEL_MAX || !label.bytes().all(valid) {
        return None;
    }
    let mut parts = label.rsplitn(3, '-');
    let hash = parts.next()?;
    let port: i32 = parts
        .next()?
        .parse()
        .ok()
        .filter(|p| (1..=65535).contains(p))?;
    let job_prefix = parts.next().filter(|j| !j.is_empty())?;
    (hash.len() == HASH_LEN).then(|| HostLabel {
        label: label.to_owned(),
        job_prefix: job_prefix.to_owned(),
        port,
        host: host.clone(),
    })
}

/// What a pass is for: a grant in a URL, or the cookie it becomes. Each is signed with its own
/// tag, so one is never taken for the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Grant,
    Cookie,
}

impl Purpose {
    fn tag(self) -> &'static str {
        match self {
            Purpose::Grant => "tephra exposed-url grant v1",
            Purpose::Cookie => "tephra exposed-url cookie v1",
        }
    }
}

/// Who may pass on which host until when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pass {
    #[serde(rename = "h")]
    pub host: String,
    #[serde(rename = "u")]
    pub user: Uuid,
    /// The user's groups at sign-in, for `authorizedGroups` and group access rules.
    #[serde(rename = "g")]
    pub groups: Vec<String>,
    /// Unix seconds.
    #[serde(rename = "e")]
    pub expires: i64,
}

/// Why a pass was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    #[error("the pass is not well formed")]
    Malformed,
    #[error("the pass's signature does not verify")]
    BadSignature,
    #[error("the pass is for another host")]
    OtherHost,
    #[error("the pass has expired")]
    Expired,
}

/// The key passes are signed with: kept in the database's settings, or, with a keys file,
/// derived from its token keys; then what an older key signed opens while it is listed.
#[derive(Clone, Debug)]
pub struct PassKey(RotatingKey);

impl PassKey {
    /// A key from its stored form (hex); `None` when it is not hex or too short to be a key.
    pub fn from_hex(stored: &str) -> Option<Self> {
        RotatingKey::from_hex(stored).map(PassKey)
    }

    /// Seals with `current`; opens what `current` or any of `older` sealed.
    pub fn rotating(current: Vec<u8>, older: Vec<Vec<u8>>) -> Self {
        PassKey(RotatingKey::new(current, older))
    }

    fn parts(purpose: Purpose, payload: &str) -> [&str; 3] {
        [purpose.tag(), "\n", payload]
    }

    /// `<payload>.<signature>`, both base64url: safe in a query and in a cookie.
    pub fn seal(&self, purpose: Purpose, pass: &Pass) -> String {
        let payload = B64.encode(serde_json::to_vec(pass).expect("a pass serializes"));
        let signature = B64.encode(self.0.sign(&Self::parts(purpose, &payload)));
        format!("{payload}.{signature}")
    }

    /// The pass in `sealed` if this key signed it for `purpose`, it names `host` and has not
    /// expired at `now`.
    pub fn open(
        &self,
        purpose: Purpose,
        sealed: &str,
        host: &str,
        now: i64,
    ) -> Result<Pass, PassError> {
        let (payload, signature) = sealed.split_once('.').ok_or(PassError::Malformed)?;
        let signature = B64.decode(signature).map_err(|_| PassError::Malformed)?;
        // `verify_slice` compares in constant time; nothing is read before it passes.
        if !self.0.verifies(&Self::parts(purpose, payload), &signature) {
            return Err(PassError::BadSignature);
        }
        let bytes = B64.decode(payload).map_err(|_| PassError::Malformed)?;
        let pass: Pass = serde_json::from_slice(&bytes).map_err(|_| PassError::Malformed)?;
        if !pass.host.eq_ignore_ascii_case(host) {
            return Err(PassError::OtherHost);
        }
        if pass.expires <= now {
            return Err(PassError::Expired);
        }
        Ok(pass)
    }
}

/// The `Set-Cookie` value for a cookie pass: host-only (no `Domain`), `Secure`, `HttpOnly`,
/// `SameSite=Lax`, gone when the pass expires.
pub fn set_cookie(sealed: &str, max_age: i64) -> String {
    format!("{COOKIE_NAME}={sealed}; Path=/; Max-Age={max_age}; Secure; HttpOnly; SameSite=Lax")
}

#[cfg(test)]
#[path = "exposed_tests.rs"]
mod tests;
