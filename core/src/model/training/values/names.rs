//! Names of Kubernetes objects a request refers to (claims, config maps, secrets, storage and
//! priority classes) and of the MIG profiles a GPU is split into.

use crate::model::validation::dns1123_subdomain;

/// An RFC 1123 subdomain: the name of a secret, config map, PVC, storage or priority class.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectName(String);

impl ObjectName {
    /// Refuses what Kubernetes would not take as an object name.
    pub fn new(s: &str) -> Result<ObjectName, String> {
        dns1123_subdomain(s).map(|()| ObjectName(s.to_owned()))
    }

    /// The name as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ObjectName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An NVIDIA MIG profile such as `1g.5gb` or `1g.10gb+me`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigProfile(String);

impl MigProfile {
    /// Refuses what is not shaped like NVIDIA's profile names.
    pub fn new(s: &str) -> Result<MigProfile, String> {
        if is_mig_profile(s) {
            Ok(MigProfile(s.to_owned()))
        } else {
            Err(format!(
                "must be a MIG profile like 1g.5gb, 2g.10gb or 3g.20gb (got {s:?})"
            ))
        }
    }

    /// The extended resource the NVIDIA device plugin offers for it, e.g. `nvidia.com/mig-1g.5gb`.
    pub fn resource(&self) -> String {
        format!("nvidia.com/mig-{}", self.0)
    }
}

fn is_mig_profile(s: &str) -> bool {
    // <n>g.<m>gb, optionally with a suffix like +me: NVIDIA's profile names.
    let Some((compute, memory)) = s.split_once('.') else {
        return false;
    };
    let memory = memory.split('+').next().unwrap_or("");
    let digits = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit());
    compute.strip_suffix('g').is_some_and(digits) && memory.strip_suffix("gb").is_some_and(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names_are_dns_subdomains() {
        for good in ["shared-data", "tls.certs", "a"] {
            assert_eq!(ObjectName::new(good).unwrap().as_str(), good);
        }
        for bad in ["", "Shared", "fast_ssd", "-a", "a.", &"a".repeat(254)] {
            assert!(
                ObjectName::new(bad)
                    .unwrap_err()
                    .starts_with("must be 1 to 253 lowercase letters"),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn mig_profiles_follow_nvidias_names() {
        for good in ["1g.5gb", "7g.80gb", "1g.10gb+me", "12g.100gb"] {
            assert_eq!(
                MigProfile::new(good).unwrap().resource(),
                format!("nvidia.com/mig-{good}")
            );
        }
        for bad in [
            "", "1g", "g.5gb", "1g.gb", "1.5gb", "1g.5", "1g.5GB", "ag.5gb", "1g.5gb.1", "large",
        ] {
            assert_eq!(
                MigProfile::new(bad).unwrap_err(),
                format!("must be a MIG profile like 1g.5gb, 2g.10gb or 3g.20gb (got {bad:?})")
            );
        }
    }
}
