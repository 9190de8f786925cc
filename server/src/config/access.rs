//! Where Tephra's rights inside project namespaces come from: its own service account, bound in
//! each project namespace to a ClusterRole with the namespaced rights (the chart's
//! `<release>-project`). Without both settings (a kubeconfig with an administrator's rights)
//! Tephra binds nothing.

use super::ConfigError;
use clap::Args;

#[derive(Debug, Clone, Default, Args)]
pub struct AccessArgs {
    /// The service account Tephra runs as (its name; its namespace is --lease-namespace, the
    /// pod's). With --project-role, each project namespace gets a RoleBinding of this account to
    /// that ClusterRole: Tephra's rights on Secrets, claims, Services and Jobs hold there only.
    #[arg(long, env = "TEPHRA_SERVICE_ACCOUNT", value_name = "NAME")]
    pub service_account: Option<String>,

    /// The ClusterRole with Tephra's rights inside a project namespace (the chart's
    /// `<release>-project`); needs --service-account.
    #[arg(long, env = "TEPHRA_PROJECT_ROLE", value_name = "CLUSTERROLE")]
    pub project_role: Option<String>,
}

/// Tephra's account and the ClusterRole it binds that account to in each project namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectAccess {
    pub namespace: String,
    pub service_account: String,
    pub cluster_role: String,
}

const SERVICE_ACCOUNT: &str = "--service-account (TEPHRA_SERVICE_ACCOUNT)";
const PROJECT_ROLE: &str = "--project-role (TEPHRA_PROJECT_ROLE)";

impl AccessArgs {
    /// The binding to make in each project namespace; `None` when neither setting is given.
    /// `namespace` is the account's (the pod's namespace).
    pub fn project_access(&self, namespace: &str) -> Result<Option<ProjectAccess>, ConfigError> {
        let (account, role) = match (&self.service_account, &self.project_role) {
            (None, None) => return Ok(None),
            (Some(account), Some(role)) => (account, role),
            (Some(_), None) => return Err(missing(PROJECT_ROLE, SERVICE_ACCOUNT)),
            (None, Some(_)) => return Err(missing(SERVICE_ACCOUNT, PROJECT_ROLE)),
        };
        for (option, value) in [
            (SERVICE_ACCOUNT, account),
            (PROJECT_ROLE, role),
            ("--lease-namespace (POD_NAMESPACE)", &namespace.to_owned()),
        ] {
            if !is_object_name(value) {
                return Err(ConfigError {
                    option,
                    message: format!(
                        "{value:?} is not a Kubernetes object name: use 1 to 253 lowercase \
                         letters, digits, '-' and '.', starting and ending with a letter or digit"
                    ),
                });
            }
        }
        Ok(Some(ProjectAccess {
            namespace: namespace.to_owned(),
            service_account: account.clone(),
            cluster_role: role.clone(),
        }))
    }
}

fn missing(option: &'static str, given: &str) -> ConfigError {
    ConfigError {
        option,
        message: format!(
            "is needed with {given}: Tephra binds its service account to the project role in each \
             project namespace, and needs both names"
        ),
    }
}

/// A DNS subdomain, as Kubernetes names service accounts and roles.
fn is_object_name(name: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    (1..=253).contains(&name.len())
        && name.starts_with(alphanumeric)
        && name.ends_with(alphanumeric)
        && name
            .chars()
            .all(|c| alphanumeric(c) || c == '-' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(account: Option<&str>, role: Option<&str>) -> AccessArgs {
        AccessArgs {
            service_account: account.map(str::to_owned),
            project_role: role.map(str::to_owned),
        }
    }

    #[test]
    fn both_names_make_a_binding_and_neither_makes_none() {
        assert_eq!(
            args(None, None).project_access("tephra-system").unwrap(),
            None
        );
        let access = args(Some("tephra"), Some("tephra-project"))
            .project_access("tephra-system")
            .unwrap();
        assert_eq!(
            access,
            Some(ProjectAccess {
                namespace: "tephra-system".into(),
                service_account: "tephra".into(),
                cluster_role: "tephra-project".into(),
            })
        );
    }

    #[test]
    fn one_without_the_other_or_a_bad_name_is_refused_by_name() {
        let err = args(Some("tephra"), None).project_access("ns").unwrap_err();
        assert!(err.to_string().starts_with("--project-role"), "{err}");
        let err = args(None, Some("r")).project_access("ns").unwrap_err();
        assert!(err.to_string().starts_with("--service-account"), "{err}");
        let err = args(Some(""), Some("r")).project_access("ns").unwrap_err();
        assert!(err.to_string().starts_with("--service-account"), "{err}");
        let err = args(Some("a"), Some("Role"))
            .project_access("ns")
            .unwrap_err();
        assert!(err.to_string().starts_with("--project-role"), "{err}");
        let err = args(Some("a"), Some("r"))
            .project_access("-ns")
            .unwrap_err();
        assert!(err.to_string().starts_with("--lease-namespace"), "{err}");
    }
}
