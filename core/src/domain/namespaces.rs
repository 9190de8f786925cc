//! Which namespaces a project may have. A project's namespace is Tephra's own: it starts with the
//! installation's prefix, and never is one Kubernetes or the platform runs in (`default`,
//! `kube-*`, the namespace Tephra itself is released in), whoever asks. The controller checks
//! again in the cluster that a namespace it would label carries this installation's signature.

/// What this installation's project namespaces must keep to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceRules {
    /// `--namespace-prefix`: every project namespace starts with it.
    pub prefix: String,
    /// Where Tephra runs (`--lease-namespace`): its Secrets and Lease live there.
    pub release: String,
}

impl NamespaceRules {
    /// Why `namespace` may not be a project's, if it may not.
    pub fn refusal(&self, namespace: &str) -> Option<String> {
        if namespace == self.release {
            return Some(format!(
                "{namespace:?} is the namespace Tephra itself runs in; a project never shares it"
            ));
        }
        if namespace == "default" || namespace.starts_with("kube-") {
            return Some(format!(
                "{namespace:?} belongs to Kubernetes; a project gets a namespace of its own"
            ));
        }
        if !namespace.starts_with(&self.prefix) {
            return Some(format!(
                "{namespace:?} does not start with {:?}: project namespaces are Tephra's own, \
                 and start with this installation's prefix",
                self.prefix
            ));
        }
        None
    }

    /// The namespace a new project gets without `requestedNamespace`.
    pub fn derived(&self, project: &str) -> String {
        format!("{}{project}", self.prefix)
    }
}

/// Why `name` cannot name a new project, if it cannot: ids are numbers, so a name of digits
/// alone would be shadowed by the project with that id wherever a project is looked up by key.
pub fn project_name_refusal(name: &str) -> Option<String> {
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("{name:?} is all digits, which reads as a project id; add a letter"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> NamespaceRules {
        NamespaceRules {
            prefix: "tephra-".into(),
            release: "tephra-system".into(),
        }
    }

    #[test]
    fn only_prefixed_namespaces_outside_kubernetes_and_tephra_itself() {
        let r = rules();
        assert_eq!(r.refusal("tephra-vision"), None);
        for (ns, says) in [
            ("tephra-system", "Tephra itself runs in"),
            ("kube-system", "belongs to Kubernetes"),
            ("kube-public", "belongs to Kubernetes"),
            ("default", "belongs to Kubernetes"),
            ("vision", "does not start with \"tephra-\""),
            ("other-tephra-x", "does not start with"),
        ] {
            let why = r.refusal(ns).unwrap_or_default();
            assert!(why.contains(says), "{ns}: {why}");
        }
        assert_eq!(r.derived("system"), "tephra-system");
        assert!(r.refusal(&r.derived("system")).is_some());
    }

    #[test]
    fn all_digit_names_are_refused() {
        assert!(project_name_refusal("42").is_some());
        assert_eq!(project_name_refusal("team42"), None);
        assert_eq!(project_name_refusal(""), None);
    }
}
