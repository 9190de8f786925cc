//! Who is acting: every server function and handler works for one principal.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principal {
    /// Tephra's id for the user (a UUID), stable across sign-ins.
    pub user_id: String,
    /// Stable identifier from the identity provider (`sub` claim), unique per issuer.
    pub subject: String,
    pub display_name: String,
    pub email: Option<String>,
    /// The groups the identity provider lists for them.
    #[serde(default)]
    pub groups: Vec<String>,
    /// A system administrator (`--admin-groups`, `--admin-users`, or the development login).
    #[serde(default)]
    pub admin: bool,
    /// Signed in with the loopback-only development login rather than an identity provider.
    pub dev_login: bool,
}
