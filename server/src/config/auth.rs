//! Sign-in settings: the public URL, the OpenID provider, sessions and the first administrators.

use super::ConfigError;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Clone, Default, Args)]
pub struct AuthArgs {
    /// The URL users open (scheme, host and port, e.g. https://tephra.example.org). The OpenID
    /// redirect URI is `<public-url>/auth/callback`; browsers' `Origin` must match it.
    #[arg(long, env = "TEPHRA_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,

    /// Allow an http:// public URL on a non-loopback address (cookies then travel unencrypted).
    #[arg(long, env = "TEPHRA_ALLOW_INSECURE_PUBLIC_URL")]
    pub allow_insecure_public_url: bool,

    /// The OpenID Connect issuer URL (discovery at `<issuer>/.well-known/openid-configuration`).
    #[arg(long, env = "TEPHRA_OIDC_ISSUER", value_name = "URL")]
    pub oidc_issuer: Option<String>,

    /// The client id Tephra is registered with at the provider.
    #[arg(long, env = "TEPHRA_OIDC_CLIENT_ID", value_name = "ID")]
    pub oidc_client_id: Option<String>,

    /// The client secret (prefer --oidc-client-secret-file).
    #[arg(
        long,
        env = "TEPHRA_OIDC_CLIENT_SECRET",
        value_name = "SECRET",
        hide_env_values = true,
        conflicts_with = "oidc_client_secret_file"
    )]
    pub oidc_client_secret: Option<String>,

    /// A file holding the client secret (e.g. a mounted Kubernetes Secret).
    #[arg(long, env = "TEPHRA_OIDC_CLIENT_SECRET_FILE", value_name = "FILE")]
    pub oidc_client_secret_file: Option<PathBuf>,

    /// Scopes asked for at sign-in, besides `openid`, comma-separated.
    #[arg(
        long,
        env = "TEPHRA_OIDC_SCOPES",
        value_delimiter = ',',
        default_value = "profile,email",
        value_name = "SCOPES"
    )]
    pub oidc_scopes: Vec<String>,

    /// The claim (in the ID token or userinfo) that lists the user's groups.
    #[arg(
        long,
        env = "TEPHRA_OIDC_GROUPS_CLAIM",
        default_value = "groups",
        value_name = "CLAIM"
    )]
    pub oidc_groups_claim: String,

    /// The claim with the user's Linux uid, for `security.uidGidSource: fromIdpToken`.
    #[arg(long, env = "TEPHRA_OIDC_UID_CLAIM", value_name = "CLAIM")]
    pub oidc_uid_claim: Option<String>,

    /// The claim with the user's Linux gid, for `security.uidGidSource: fromIdpToken`.
    #[arg(long, env = "TEPHRA_OIDC_GID_CLAIM", value_name = "CLAIM")]
    pub oidc_gid_claim: Option<String>,

    /// Accept the `email` claim without `email_verified: true` for `--admin-users` and user
    /// access rules. Only for a provider that never lets users choose or change their address
    /// and does not send `email_verified`: elsewhere anyone could claim an administrator's.
    #[arg(long, env = "TEPHRA_OIDC_TRUST_UNVERIFIED_EMAIL")]
    pub oidc_trust_unverified_email: bool,

    /// The audience (`aud`) the provider's access tokens must name to be accepted as
    /// `Authorization: Bearer` tokens; defaults to the client id.
    #[arg(long, env = "TEPHRA_OIDC_AUDIENCE", value_name = "AUDIENCE")]
    pub oidc_audience: Option<String>,

    /// Groups (from the groups claim) whose members are system administrators, comma-separated.
    #[arg(long, env = "TEPHRA_ADMIN_GROUPS", value_delimiter = ',', value_name = "GROUPS")]
    pub admin_groups: Vec<String>,

    /// Users (e-mail or subject) who are system administrators, comma-separated.
    #[arg(long, env = "TEPHRA_ADMIN_USERS", value_delimiter = ',', value_name = "USERS")]
    pub admin_users: Vec<String>,

    /// A file holding the token a Prometheus scraper presents (`Authorization: Bearer`) to
    /// read `/metrics`; without one only system administrators may read them.
    #[arg(long, env = "TEPHRA_METRICS_TOKEN_FILE", value_name = "FILE")]
    pub metrics_token_file: Option<PathBuf>,

    /// A session ends after this many minutes without a request.
    #[arg(
        long,
        env = "TEPHRA_SESSION_IDLE_MINUTES",
        default_value_t = 480,
        value_name = "MINUTES"
    )]
    pub session_idle_minutes: u32,

    /// A session ends this many hours after sign-in, however active.
    #[arg(long, env = "TEPHRA_SESSION_MAX_HOURS", default_value_t = 12, value_name = "HOURS")]
    pub session_max_hours: u32,
}

/// The public URL, checked: its origin and whether cookies must be `Secure`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// `scheme://host[:port]`, no trailing slash.
    pub origin: String,
    /// `host[:port]`, as browsers send it in `Origin` and `Host`.
    pub host: String,
    pub https: bool,
}

impl PublicUrl {
    pub fn redirect_uri(&self) -> String {
        format!("{}/auth/callback", self.origin)
    }
}

fn public_url_error(message: String) -> ConfigError {
    ConfigError {
        option: "--public-url (TEPHRA_PUBLIC_URL)",
        message,
    }
}

/// Parses `scheme://host[:port][/]`: a path would make the redirect URI ambiguous.
pub fn parse_public_url(url: &str) -> Result<PublicUrl, ConfigError> {
    let (scheme, rest) = url.split_once("://").ok_or_else(|| {
        public_url_error(format!(
            "{url:?} is not a URL; use e.g. https://tephra.example.org"
        ))
    })?;
    let https = match scheme {
        "https" => true,
        "http" => false,
        _ => {
            return Err(public_url_error(format!(
                "{url:?} must start with https:// or http://"
            )));
        }
    };
    let host = rest.strip_suffix('/').unwrap_or(rest);
    let host_ok = !host.is_empty()
        && !host.contains(['/', '?', '#', '@', ' '])
        && host.chars().all(|c| c.is_ascii_graphic());
    if !host_ok {
        return Err(public_url_error(format!(
            "{url:?} must be scheme://host[:port] with no path, query or user"
        )));
    }
    Ok(PublicUrl {
        origin: format!("{scheme}://{host}"),
        host: host.to_ascii_lowercase(),
        https,
    })
}

/// The OpenID settings in effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcSettings {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: Option<String>,
    pub scopes: Vec<String>,
    pub groups_claim: String,
    pub uid_claim: Option<String>,
    pub gid_claim: Option<String>,
    /// The audience the provider's access tokens must name to be accepted as bearer tokens.
    pub audience: String,
    /// Whether an `email` without `email_verified: true` may match admin users and rules.
    pub trust_unverified_email: bool,
    pub public_url: PublicUrl,
}

impl AuthArgs {
    /// The public URL, when set, checked against the address Tephra listens on.
    pub fn public_url(&self, addr: SocketAddr) -> Result<Option<PublicUrl>, ConfigError> {
        let Some(url) = &self.public_url else {
            return Ok(None);
        };
        let parsed = parse_public_url(url)?;
        if !parsed.https && !addr.ip().is_loopback() && !self.allow_insecure_public_url {
            return Err(public_url_error(format!(
                "{url:?} is http:// while Tephra listens on {addr}: session cookies would cross \
                 the network unencrypted. Use https://, or pass --allow-insecure-public-url"
            )));
        }
        Ok(Some(parsed))
    }

    /// The OpenID settings, or `None` without an issuer. `secret` is the secret file's content.
    pub fn oidc(&self, addr: SocketAddr) -> Result<Option<OidcSettings>, ConfigError> {
        let Some(issuer) = &self.oidc_issuer else {
            if self.oidc_client_id.is_some() {
                return Err(ConfigError {
                    option: "--oidc-client-id (TEPHRA_OIDC_CLIENT_ID)",
                    message: "is set without --oidc-issuer; set both or neither".into(),
                });
            }
            return Ok(None);
        };
        if !(issuer.starts_with("https://") || issuer.starts_with("http://")) {
            return Err(ConfigError {
                option: "--oidc-issuer (TEPHRA_OIDC_ISSUER)",
                message: format!("{issuer:?} is not an http(s) URL"),
            });
        }
        if issuer.starts_with("http://") && !loopback_url(issuer) {
            return Err(ConfigError {
                option: "--oidc-issuer (TEPHRA_OIDC_ISSUER)",
                message: format!(
                    "{issuer:?} is http://: the provider's keys and tokens would cross the \
                     network unencrypted, so anyone in the path could sign users in; use \
                     https:// (http:// only on a loopback address, for development)"
                ),
            });
        }
        let client_id = self.oidc_client_id.clone().ok_or(ConfigError {
            option: "--oidc-client-id (TEPHRA_OIDC_CLIENT_ID)",
            message: "is required with --oidc-issuer".into(),
        })?;
        let public_url = self.public_url(addr)?.ok_or(ConfigError {
            option: "--public-url (TEPHRA_PUBLIC_URL)",
            message: "is required with --oidc-issuer: the provider redirects users back to \
                      <public-url>/auth/callback"
                .into(),
        })?;
        let client_secret = match (&self.oidc_client_secret, &self.oidc_client_secret_file) {
            (Some(secret), _) => Some(secret.clone()),
            (None, Some(file)) => Some(
                std::fs::read_to_string(file)
                    .map_err(|e| ConfigError {
                        option: "--oidc-client-secret-file (TEPHRA_OIDC_CLIENT_SECRET_FILE)",
                        message: format!("cannot read {}: {e}", file.display()),
                    })?
                    .trim()
                    .to_owned(),
            ),
            (None, None) => None,
        };
        if self.oidc_groups_claim.trim().is_empty() {
            return Err(ConfigError {
                option: "--oidc-groups-claim (TEPHRA_OIDC_GROUPS_CLAIM)",
                message: "must name a claim".into(),
            });
        }
        Ok(Some(OidcSettings {
            issuer: issuer.trim_end_matches('/').to_owned(),
            client_id: client_id.clone(),
            client_secret,
            scopes: self
                .oidc_scopes
                .iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty() && s != "openid")
                .collect(),
            groups_claim: self.oidc_groups_claim.clone(),
            uid_claim: self.oidc_uid_claim.clone(),
            gid_claim: self.oidc_gid_claim.clone(),
            audience: self
                .oidc_audience
                .clone()
                .filter(|a| !a.trim().is_empty())
                .unwrap_or_else(|| client_id.clone()),
            trust_unverified_email: self.oidc_trust_unverified_email,
            public_url,
        }))
    }

    /// The scraper's token from `--metrics-token-file`, if set.
    pub fn metrics_token(&self) -> Result<Option<String>, ConfigError> {
        let Some(file) = &self.metrics_token_file else {
            return Ok(None);
        };
        let token = std::fs::read_to_string(file).map_err(|e| ConfigError {
            option: "--metrics-token-file (TEPHRA_METRICS_TOKEN_FILE)",
            message: format!("cannot read {}: {e}", file.display()),
        })?;
        let token = token.trim().to_owned();
        if token.len() < 16 {
            return Err(ConfigError {
                option: "--metrics-token-file (TEPHRA_METRICS_TOKEN_FILE)",
                message: "must hold a token of at least 16 characters".into(),
            });
        }
        Ok(Some(token))
    }

    /// Checks the session lifetimes.
    pub fn check_sessions(&self) -> Result<(), ConfigError> {
        if self.session_idle_minutes == 0 {
            return Err(ConfigError {
                option: "--session-idle-minutes (TEPHRA_SESSION_IDLE_MINUTES)",
                message: "must be at least 1".into(),
            });
        }
        if self.session_max_hours == 0
            || u64::from(self.session_max_hours) * 60 < u64::from(self.session_idle_minutes)
        {
            return Err(ConfigError {
                option: "--session-max-hours (TEPHRA_SESSION_MAX_HOURS)",
                message: format!(
                    "must be at least 1 and not shorter than --session-idle-minutes ({} minutes)",
                    self.session_idle_minutes
                ),
            });
        }
        Ok(())
    }
}

/// Whether `url` (`http://host[:port]/...`) names a loopback host: `localhost`, `127.*`, `[::1]`.
fn loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_origins() {
        let url = parse_public_url("https://Tephra.example.org:8443/").unwrap();
        assert_eq!(url.origin, "https://Tephra.example.org:8443");
        assert_eq!(url.host, "tephra.example.org:8443");
        assert!(url.https);
        assert_eq!(
            url.redirect_uri(),
            "https://Tephra.example.org:8443/auth/callback"
        );
        for bad in [
            "tephra.example.org",
            "ftp://x",
            "https://",
            "https://x/tephra",
            "https://u@x",
        ] {
            let err = parse_public_url(bad).unwrap_err();
            assert!(err.to_string().starts_with("--public-url"), "{bad}: {err}");
        }
    }

    #[test]
    fn http_issuers_only_on_loopback() {
        for url in [
            "http://127.0.0.1:8080/",
            "http://localhost:9000",
            "http://[::1]:80/realms/x",
        ] {
            assert!(loopback_url(url), "{url}");
        }
        for url in [
            "http://idp.example.org",
            "http://127.0.0.1.evil.net/",
            "http://10.0.0.1",
            "http://localhost.example.org",
        ] {
            assert!(!loopback_url(url), "{url}");
        }
    }
}
