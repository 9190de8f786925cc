//! The pod's and the container's security contexts.

use super::{PodContext, non_empty};
use crate::model::training::checked::{Security, UidGid};
use k8s_openapi::api::core::v1::{
    Capabilities, PodSecurityContext, SeccompProfile, SecurityContext,
};

/// Who the pod runs as; `None` when the request leaves all of it to the image.
pub(super) fn pod(s: &Security, ctx: &PodContext<'_>) -> Option<PodSecurityContext> {
    let (uid, gid) = match s.uid_gid {
        UidGid::Custom { uid, gid } => (Some(uid), gid),
        // The binding holds the ids for every spec that asks for them.
        UidGid::FromIdpToken => ctx
            .target
            .binding
            .token_uid_gid()
            .map_or((None, None), |(uid, gid)| (Some(uid), Some(gid))),
        UidGid::FromTheImage => (None, None),
    };
    let context = PodSecurityContext {
        run_as_user: uid,
        run_as_group: gid,
        supplemental_groups: non_empty(s.supplemental_groups.as_slice().to_vec()),
        ..PodSecurityContext::default()
    };
    (context != PodSecurityContext::default()).then_some(context)
}

pub(super) fn container(s: &Security) -> SecurityContext {
    SecurityContext {
        run_as_non_root: s.run_as_non_root,
        read_only_root_filesystem: s.read_only_root_filesystem,
        allow_privilege_escalation: s.allow_privilege_escalation,
        capabilities: non_empty(s.capabilities.clone()).map(|add| Capabilities {
            add: Some(add),
            ..Capabilities::default()
        }),
        seccomp_profile: s.seccomp.map(|t| SeccompProfile {
            type_: t.as_str().into(),
            ..SeccompProfile::default()
        }),
        ..SecurityContext::default()
    }
}
