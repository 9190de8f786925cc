//! What administrators see about the running server.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemInfo {
    pub version: String,
    /// `sqlite` or `postgres`.
    pub database: String,
    /// RFC 3339.
    pub started_at: String,
    pub users: Vec<UserSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserSummary {
    pub display_name: String,
    pub email: Option<String>,
    /// RFC 3339.
    pub last_seen_at: String,
}
