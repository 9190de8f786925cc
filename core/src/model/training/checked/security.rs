//! Who a checked container runs as and what it may do.

use crate::model::training::request::SeccompProfileType;
use crate::model::training::values::SupplementalGroups;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Security {
    pub uid_gid: UidGid,
    /// Linux capabilities to add, without the `CAP_` prefix.
    pub capabilities: Vec<String>,
    /// Never `Localhost`: the API cannot name a profile file.
    pub seccomp: Option<SeccompProfileType>,
    pub run_as_non_root: Option<bool>,
    pub read_only_root_filesystem: Option<bool>,
    pub allow_privilege_escalation: Option<bool>,
    pub supplemental_groups: SupplementalGroups,
    pub host_ipc: bool,
    pub host_network: bool,
}

/// Where the user and group ids come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UidGid {
    #[default]
    FromTheImage,
    Custom {
        uid: i64,
        gid: Option<i64>,
    },
    /// From the signed-in user's token; the server looks them up when it renders.
    FromIdpToken,
}
