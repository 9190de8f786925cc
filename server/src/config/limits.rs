//! How many requests one client address may make per minute to what anonymous callers can make
//! Tephra work for (`http::limits`), and how long and how many event and log streams may run
//! (`http::streams`).

use super::ConfigError;
use crate::http::limits::Limits;
use crate::http::streams::StreamLimits;
use clap::Args;
use std::time::Duration;

#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Sign-in requests (`/auth/login`, `/auth/callback`) per minute and client address.
    #[arg(long, env = "TEPHRA_RATE_LIMIT_SIGN_IN", default_value_t = 30, value_name = "N")]
    pub rate_limit_sign_in: u32,

    /// Token requests (`POST /api/v1/token`) per minute and client address.
    #[arg(long, env = "TEPHRA_RATE_LIMIT_TOKEN", default_value_t = 20, value_name = "N")]
    pub rate_limit_token: u32,

    /// Writes to the REST API (POST, PUT, PATCH, DELETE) per minute and client address.
    #[arg(long, env = "TEPHRA_RATE_LIMIT_WRITES", default_value_t = 600, value_name = "N")]
    pub rate_limit_writes: u32,

    /// Count by the last address of `X-Forwarded-For` (the one the ingress saw) instead of the
    /// connection's. Only behind an ingress that sets it and when nothing else can reach
    /// Tephra's port (the chart's NetworkPolicy): otherwise a client picks its own address.
    #[arg(long, env = "TEPHRA_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,

    /// Event and log streams one user or application may have open at once (in each replica);
    /// one more is a 429.
    #[arg(long, env = "TEPHRA_STREAMS_PER_PRINCIPAL", default_value_t = 16, value_name = "N")]
    pub streams_per_principal: u32,

    /// How often an open stream asks again whether its session or token still stands and what
    /// its caller may see; a stream whose caller signed out or lost access ends at the next check.
    #[arg(
        long,
        env = "TEPHRA_STREAM_RECHECK_SECONDS",
        default_value_t = 30,
        value_name = "SECONDS"
    )]
    pub stream_recheck_seconds: u32,

    /// The longest a log follow runs before it stops (the reader opens it again to go on).
    #[arg(
        long,
        env = "TEPHRA_LOG_FOLLOW_MAX_MINUTES",
        default_value_t = 60,
        value_name = "MINUTES"
    )]
    pub log_follow_max_minutes: u32,

    /// The most bytes of log one follow passes on before it stops.
    #[arg(long, env = "TEPHRA_LOG_FOLLOW_MAX_MIB", default_value_t = 64, value_name = "MIB")]
    pub log_follow_max_mib: u32,
}

impl LimitArgs {
    pub fn streams(&self) -> Result<StreamLimits, ConfigError> {
        for (option, value) in [
            (
                "--streams-per-principal (TEPHRA_STREAMS_PER_PRINCIPAL)",
                self.streams_per_principal,
            ),
            (
                "--stream-recheck-seconds (TEPHRA_STREAM_RECHECK_SECONDS)",
                self.stream_recheck_seconds,
            ),
            (
                "--log-follow-max-minutes (TEPHRA_LOG_FOLLOW_MAX_MINUTES)",
                self.log_follow_max_minutes,
            ),
            (
                "--log-follow-max-mib (TEPHRA_LOG_FOLLOW_MAX_MIB)",
                self.log_follow_max_mib,
            ),
        ] {
            at_least_one(option, value, "must be at least 1")?;
        }
        Ok(StreamLimits {
            per_principal: self.streams_per_principal as usize,
            recheck: Duration::from_secs(self.stream_recheck_seconds.into()),
            follow_time: Duration::from_secs(u64::from(self.log_follow_max_minutes) * 60),
            follow_bytes: i64::from(self.log_follow_max_mib) * 1024 * 1024,
        })
    }

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
            at_least_one(option, value, "must be at least 1 request a minute")?;
        }
        Ok(Limits {
            sign_in: self.rate_limit_sign_in,
            token: self.rate_limit_token,
            write: self.rate_limit_writes,
            trust_forwarded_for: self.trust_forwarded_for,
        })
    }
}

/// Refuses 0 for `option`, saying `message`.
fn at_least_one(option: &'static str, value: u32, message: &str) -> Result<(), ConfigError> {
    if value == 0 {
        return Err(ConfigError {
            option,
            message: message.into(),
        });
    }
    Ok(())
}
