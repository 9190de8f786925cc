//! How many requests one client address may make per minute to what anonymous callers can make
//! Tephra work for (`http::limits`).

use super::ConfigError;
use crate::http::limits::Limits;
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Sign-in requests (`/auth/login`, `/auth/callback`) per minute and client address.
    #[arg(
        long,
        env = "TEPHRA_RATE_LIMIT_SIGN_IN",
        default_value_t = 30,
        value_name = "N"
    )]
    pub rate_limit_sign_in: u32,

    /// Token requests (`POST /api/v1/token`) per minute and client address.
    #[arg(
        long,
        env = "TEPHRA_RATE_LIMIT_TOKEN",
        default_value_t = 20,
        value_name = "N"
    )]
    pub rate_limit_token: u32,

    /// Writes to the REST API (POST, PUT, PATCH, DELETE) per minute and client address.
    #[arg(
        long,
        env = "TEPHRA_RATE_LIMIT_WRITES",
        default_value_t = 600,
        value_name = "N"
    )]
    pub rate_limit_writes: u32,

    /// Count by the last address of `X-Forwarded-For` (the one the ingress saw) instead of the
    /// connection's. Only behind an ingress that sets it and when nothing else can reach
    /// Tephra's port (the chart's NetworkPolicy): otherwise a client picks its own address.
    #[arg(long, env = "TEPHRA_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,
}

impl LimitArgs {
    pub fn limits(&self) -> Result<Limits, ConfigError> {
        for (option, value) in [
            (
                "--rate-limit-sign-in (TEPHRA_RATE_LIMIT_SIGN_IN)",
                self.rate_limit_sign_in,
            ),
            (
                "--rate-limit-token (TEPHRA_RATE_LIMIT_TOKEN)",
                self.rate_limit_token,
            ),
            (
                "--rate-limit-writes (TEPHRA_RATE_LIMIT_WRITES)",
                self.rate_limit_writes,
            ),
        ] {
            if value == 0 {
                return Err(ConfigError {
                    option,
                    message: "must be at least 1 request a minute".into(),
                });
            }
        }
        Ok(Limits {
            sign_in: self.rate_limit_sign_in,
            token: self.rate_limit_token,
            write: self.rate_limit_writes,
            trust_forwarded_for: self.trust_forwarded_for,
        })
    }
}
