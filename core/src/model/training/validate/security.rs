//! Who the container runs as and what it may do: user and group ids, capabilities, the seccomp
//! profile and supplemental groups.

use crate::model::training::checked::{Security, UidGid};
use crate::model::training::request::{
    SeccompProfileType, Security as RequestSecurity, UidGidSource,
};
use crate::model::training::values::SupplementalGroups;
use crate::model::validation::{Errors, index, join};

pub(super) fn security_rules(
    errors: &mut Errors,
    s: &RequestSecurity,
    path: &str,
) -> Option<Security> {
    let before = errors.count();
    let at = |field: &str| join(path, field);
    let custom = s.uid_gid_source == Some(UidGidSource::Custom);
    for (field, value) in [("runAsUid", s.run_as_uid), ("runAsGid", s.run_as_gid)] {
        if let Some(id) = value {
            if !custom {
                // Run:ai accepts it and ignores it: the source decides who the container runs as.
                let source = match s.uid_gid_source {
                    Some(UidGidSource::FromIdpToken) => {
                        "fromIdpToken (the provider's ids are used)"
                    }
                    _ => "fromTheImage (the image's user is used)",
                };
                errors.warn(
                    at(field),
                    format!("has no effect with uidGidSource {source}; it is used with uidGidSource custom"),
                );
            }
            if !(0..=i64::from(i32::MAX)).contains(&id) {
                errors.add(
                    at(field),
                    format!("must be from 0 to {} (got {id})", i32::MAX),
                );
            }
        }
    }
    if custom && s.run_as_uid.is_none() {
        errors.add(at("runAsUid"), "is required with uidGidSource custom");
    }
    if s.run_as_non_root == Some(true) && custom && s.run_as_uid == Some(0) {
        errors.add(at("runAsUid"), "must not be 0 when runAsNonRoot is true");
    }
    let capabilities = capabilities(
        errors,
        s.capabilities.as_deref().unwrap_or_default(),
        &at("capabilities"),
    );
    let groups = errors.take_some(
        at("supplementalGroups"),
        s.supplemental_groups.as_deref(),
        SupplementalGroups::parse,
    );
    if s.seccomp_profile_type == Some(SeccompProfileType::Localhost) {
        errors.add(
            at("seccompProfileType"),
            "Localhost needs a profile file on every node, which this API cannot name; use RuntimeDefault or Unconfined",
        );
    }
    let uid_gid = match (s.uid_gid_source, s.run_as_uid) {
        (Some(UidGidSource::Custom), Some(uid)) => UidGid::Custom {
            uid,
            gid: s.run_as_gid,
        },
        (Some(UidGidSource::FromIdpToken), _) => UidGid::FromIdpToken,
        _ => UidGid::FromTheImage,
    };
    let groups = groups?.unwrap_or_default();
    (errors.count() == before).then(|| Security {
        uid_gid,
        capabilities,
        seccomp: s.seccomp_profile_type,
        run_as_non_root: s.run_as_non_root,
        read_only_root_filesystem: s.read_only_root_filesystem,
        allow_privilege_escalation: s.allow_privilege_escalation,
        supplemental_groups: groups,
        host_ipc: s.host_ipc == Some(true),
        host_network: s.host_network == Some(true),
    })
}

/// The capabilities without their `CAP_` prefix.
fn capabilities(errors: &mut Errors, caps: &[String], path: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (i, cap) in caps.iter().enumerate() {
        let name = cap.strip_prefix("CAP_").unwrap_or(cap);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            errors.add(
                index(path, i),
                format!("must be a Linux capability name like CHOWN or NET_ADMIN (got {cap:?})"),
            );
        }
        if name == "SYS_ADMIN" {
            errors.add(
                index(path, i),
                "SYS_ADMIN is not allowed: it is equivalent to running privileged",
            );
        }
        names.push(name.to_owned());
    }
    names
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepts, refuses, warns};
    use serde_json::{Value, json};

    fn security(security: Value) -> Value {
        json!({ "security": security })
    }

    #[test]
    fn user_and_group_ids_are_only_for_custom() {
        accepts(security(
            json!({ "uidGidSource": "custom", "runAsUid": 1000, "runAsGid": 100 }),
        ));
        for field in ["runAsUid", "runAsGid"] {
            for (source, used) in [
                (json!(null), "fromTheImage (the image's user is used)"),
                (
                    json!("fromTheImage"),
                    "fromTheImage (the image's user is used)",
                ),
                (
                    json!("fromIdpToken"),
                    "fromIdpToken (the provider's ids are used)",
                ),
            ] {
                warns(
                    security(json!({ "uidGidSource": source, field: 1000 })),
                    &format!("spec.security.{field}"),
                    &format!(
                        "has no effect with uidGidSource {used}; it is used with uidGidSource custom"
                    ),
                );
            }
        }
    }

    #[test]
    fn user_and_group_ids_fit_int32() {
        accepts(security(
            json!({ "uidGidSource": "custom", "runAsUid": 0, "runAsGid": 2147483647 }),
        ));
        for (field, id) in [("runAsUid", -1), ("runAsGid", 2_147_483_648_i64)] {
            refuses(
                security(json!({ "uidGidSource": "custom", "runAsUid": 1, field: id })),
                &format!("spec.security.{field}"),
                &format!("must be from 0 to 2147483647 (got {id})"),
            );
        }
    }

    #[test]
    fn custom_needs_a_user_id() {
        accepts(security(
            json!({ "uidGidSource": "custom", "runAsUid": 1000 }),
        ));
        refuses(
            security(json!({ "uidGidSource": "custom", "runAsGid": 1000 })),
            "spec.security.runAsUid",
            "is required with uidGidSource custom",
        );
    }

    #[test]
    fn a_non_root_custom_user_is_not_0() {
        accepts(security(json!({ "uidGidSource": "custom", "runAsUid": 0 })));
        accepts(security(
            json!({ "uidGidSource": "custom", "runAsUid": 1, "runAsNonRoot": true }),
        ));
        refuses(
            security(json!({ "uidGidSource": "custom", "runAsUid": 0, "runAsNonRoot": true })),
            "spec.security.runAsUid",
            "must not be 0 when runAsNonRoot is true",
        );
    }

    #[test]
    fn capabilities_are_linux_capability_names() {
        accepts(security(
            json!({ "capabilities": ["CHOWN", "CAP_NET_ADMIN", "SYS_PTRACE"] }),
        ));
        for bad in ["net_admin", "CAP_", "", "NET-ADMIN"] {
            refuses(
                security(json!({ "capabilities": ["CHOWN", bad] })),
                "spec.security.capabilities[1]",
                &format!("must be a Linux capability name like CHOWN or NET_ADMIN (got {bad:?})"),
            );
        }
    }

    #[test]
    fn sys_admin_is_refused_with_or_without_its_prefix() {
        for cap in ["SYS_ADMIN", "CAP_SYS_ADMIN"] {
            refuses(
                security(json!({ "capabilities": [cap] })),
                "spec.security.capabilities[0]",
                "SYS_ADMIN is not allowed: it is equivalent to running privileged",
            );
        }
    }

    #[test]
    fn supplemental_groups_are_comma_separated_ids() {
        accepts(security(json!({ "supplementalGroups": "2, 3,5" })));
        accepts(security(json!({ "supplementalGroups": " " })));
        refuses(
            security(json!({ "supplementalGroups": "2,x" })),
            "spec.security.supplementalGroups",
            "must be comma-separated group ids from 0 to 2147483647, e.g. \"2,3,5\" (got \"2,x\")",
        );
    }

    #[test]
    fn a_localhost_seccomp_profile_is_refused() {
        accepts(security(json!({ "seccompProfileType": "RuntimeDefault" })));
        accepts(security(json!({ "seccompProfileType": "Unconfined" })));
        refuses(
            security(json!({ "seccompProfileType": "Localhost" })),
            "spec.security.seccompProfileType",
            "Localhost needs a profile file on every node, which this API cannot name",
        );
    }
}
