//! Why acting on the cluster failed, and what that means for retrying it: the error of the
//! controller and of the operations it runs (`apply`, `live_edit`, `namespace`).

use crate::db::DbError;
use std::time::Duration;

/// The longest one workload may hold the controller: an API server that accepts connections but
/// does not answer must not stall every other workload.
pub const ACT_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("{0}")]
    Kube(#[from] kube::Error),
    /// The stored request no longer renders (e.g. the cluster profile changed).
    #[error("the stored request cannot be rendered: {0}")]
    Render(String),
    #[error(
        "a {kind} named {name} already exists in {namespace} and is not this workload's; delete or \
         rename it, and Tephra creates the workload's own at once"
    )]
    NameTaken {
        kind: String,
        namespace: String,
        name: String,
        uid: String,
    },
    /// An S3 volume's secret, or a key the request names in it, is not in the namespace.
    #[error(
        "the secret {name} in {namespace} {}: the S3 volume's keys are copied from it; create it, and Tephra tries again within 30 seconds",
        key.as_ref().map_or_else(|| "does not exist".to_owned(), |k| format!("has no key {k}"))
    )]
    MissingSecret {
        namespace: String,
        name: String,
        key: Option<String>,
    },
    /// The stored request breaks today's policies or node protection: it is not created until
    /// the request or the policy changes.
    #[error("the stored request is not allowed by today's policies: {0}")]
    Refused(String),
    #[error("the cluster did not answer within {} seconds", ACT_TIMEOUT.as_secs())]
    Timeout,
    /// The project's namespace exists without this installation's signature: someone else's
    /// (kube-system, default, another installation's, one made by hand); or, with a `holder`,
    /// it was made for another project (by its UUID), since deleted, whose claims and Secrets
    /// may still be in it.
    #[error("{}", not_ours(namespace, holder.as_deref()))]
    NamespaceNotOurs {
        namespace: String,
        uid: String,
        holder: Option<String>,
    },
    /// Tephra's RoleBinding in a project namespace has not reached the API server's authorizer.
    #[error(
        "the RoleBinding that gives Tephra its rights in {namespace} has not taken effect yet; \
         Tephra tries again"
    )]
    NotBound { namespace: String },
}

fn not_ours(namespace: &str, holder: Option<&str>) -> String {
    match holder {
        None => format!(
            "namespace {namespace:?} exists and is not this installation's; Tephra will not label \
             or use it"
        ),
        Some(project) => format!(
            "namespace {namespace:?} was made for another project ({project}), whose claims and \
             Secrets may still be in it; Tephra will not use it for this one"
        ),
    }
}

impl Error {
    pub(super) fn render(errors: Vec<tephra_core::model::validation::FieldError>) -> Self {
        Error::Render(listed(&errors))
    }

    pub(super) fn refused(errors: &[tephra_core::model::validation::FieldError]) -> Self {
        Error::Refused(listed(errors))
    }

    /// The reason a user sees beside the phase.
    pub(super) fn plain(&self) -> String {
        match self {
            Error::Kube(kube::Error::Api(status)) => {
                format!("the cluster refused it: {}", status.message)
            }
            Error::Kube(other) => format!("cluster unreachable: {other}"),
            other => other.to_string(),
        }
    }

    pub(super) fn is_cluster(&self) -> bool {
        matches!(self, Error::Kube(_) | Error::Timeout)
    }

    /// Retrying alone will not fix it: a taken name, a request that does not render, or the
    /// API server refusing the object itself (not a conflict or throttling).
    pub(super) fn is_permanent(&self) -> bool {
        match self {
            Error::Render(_)
            | Error::Refused(_)
            | Error::NameTaken { .. }
            | Error::NamespaceNotOurs { .. } => true,
            Error::Kube(kube::Error::Api(status)) => {
                (400..500).contains(&status.code) && !matches!(status.code, 409 | 429)
            }
            _ => false,
        }
    }

    /// What a permanent error depends on, checked each pass to retry when it changes.
    pub(super) fn cause(&self) -> Option<Cause> {
        match self {
            Error::Refused(_) => Some(Cause::Policy),
            Error::NameTaken {
                kind,
                namespace,
                name,
                uid,
            } => Some(Cause::Taken {
                kind: kind.clone(),
                namespace: namespace.clone(),
                name: name.clone(),
                uid: uid.clone(),
            }),
            // Retried once the namespace is gone (or replaced): nothing else makes it ours.
            Error::NamespaceNotOurs { namespace, uid, .. } => Some(Cause::Taken {
                kind: "Namespace".into(),
                namespace: String::new(),
                name: namespace.clone(),
                uid: uid.clone(),
            }),
            _ => None,
        }
    }
}

/// What a permanent error depends on: when it changes, the workload is retried at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// A policy refused the request: checked again each pass against the stored policies.
    Policy,
    /// An object that is not the workload's holds the name (a namespace's has no namespace):
    /// retried once it is gone or replaced.
    Taken {
        kind: String,
        namespace: String,
        name: String,
        uid: String,
    },
}

fn listed(errors: &[tephra_core::model::validation::FieldError]) -> String {
    let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
    listed.join("; ")
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_that_retrying_cannot_fix_are_permanent() {
        let taken = Error::NameTaken {
            kind: "Job".into(),
            namespace: "ns".into(),
            name: "train".into(),
            uid: "u".into(),
        };
        assert!(taken.is_permanent());
        let job = |kind: &str, namespace: &str, name: &str| Cause::Taken {
            kind: kind.into(),
            namespace: namespace.into(),
            name: name.into(),
            uid: "u".into(),
        };
        assert_eq!(taken.cause(), Some(job("Job", "ns", "train")));
        assert!(Error::Render("x".into()).is_permanent());
        assert!(!Error::Timeout.is_permanent());
        assert!(Error::Timeout.is_cluster());
        let not_ours = Error::NamespaceNotOurs {
            namespace: "kube-system".into(),
            uid: "u".into(),
            holder: None,
        };
        assert!(not_ours.is_permanent());
        assert_eq!(not_ours.cause(), Some(job("Namespace", "", "kube-system")));
        assert_eq!(
            not_ours.plain(),
            "namespace \"kube-system\" exists and is not this installation's; Tephra will not \
             label or use it"
        );
        let not_bound = Error::NotBound {
            namespace: "tephra-a".into(),
        };
        assert!(!not_bound.is_permanent());
    }
}
