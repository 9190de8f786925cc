//! Who the container runs as and what it may do.

use serde::{Deserialize, Serialize};

request_part! {
    pub struct Security {
        pub uid_gid_source: Option<UidGidSource>,
        pub capabilities: Option<Vec<String>>,
        pub seccomp_profile_type: Option<SeccompProfileType>,
        pub run_as_non_root: Option<bool>,
        pub read_only_root_filesystem: Option<bool>,
        pub run_as_uid: Option<i64>,
        pub run_as_gid: Option<i64>,
        /// Comma-separated group ids, e.g. `"2,3,5,8"`.
        pub supplemental_groups: Option<String>,
        pub allow_privilege_escalation: Option<bool>,
        pub host_ipc: Option<bool>,
        pub host_network: Option<bool>,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum UidGidSource {
    FromTheImage,
    Custom,
    FromIdpToken,
}

request_choice! {
    pub enum SeccompProfileType {
        RuntimeDefault,
        Unconfined,
        Localhost,
    }
}
