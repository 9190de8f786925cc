//! Who is acting: every server function and handler works for one principal.

use crate::model::authz::{Role, Scope};
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
    /// Set when an application acts (with a token from `POST /api/v1/token`): its name.
    #[serde(default)]
    pub application: Option<String>,
    /// The Linux uid and gid from the identity provider's token, for
    /// `security.uidGidSource: fromIdpToken`.
    #[serde(default)]
    pub uid: Option<u32>,
    #[serde(default)]
    pub gid: Option<u32>,
    /// The roles they hold and where, worked out from the access rules for this request.
    #[serde(default)]
    pub grants: Vec<Grant>,
}

/// One role held on one scope: the domain's grant, with the scope's name for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub role: Role,
    pub scope: Scope,
    /// The project's or department's name, for people.
    pub scope_name: String,
}

impl Grant {
    /// "Researcher in vision", "System administrator".
    pub fn label(&self) -> String {
        match self.scope {
            Scope::System => self.role.name().to_owned(),
            _ => format!("{} in {}", self.role.name(), self.scope_name),
        }
    }
}
