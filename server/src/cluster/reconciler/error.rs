//! Why acting on a workload failed, and what that means for retrying it.

use super::ACT_TIMEOUT;
use crate::db::DbError;

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
}

impl Error {
    pub(super) fn render(errors: Vec<app::model::validation::FieldError>) -> Self {
        Error::Render(listed(&errors))
    }

    pub(super) fn refused(errors: &[app::model::validation::FieldError]) -> Self {
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
            Error::Render(_) | Error::Refused(_) | Error::NameTaken { .. } => true,
            Error::Kube(kube::Error::Api(status)) => {
                (400..500).contains(&status.code) && !matches!(status.code, 409 | 429)
            }
            _ => false,
        }
    }

    /// What a permanent error depends on, checked each pass to retry when it changes.
    pub(super) fn cause(&self) -> Option<String> {
        match self {
            Error::Refused(_) => Some(POLICY_CAUSE.to_owned()),
            Error::NameTaken {
                kind,
                namespace,
                name,
                uid,
            } => Some(format!("{kind}/{namespace}/{name}/{uid}")),
            _ => None,
        }
    }
}

fn listed(errors: &[app::model::validation::FieldError]) -> String {
    let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
    listed.join("; ")
}

/// The cause of a refusal by policy: checked again each pass against the stored policies.
pub(super) const POLICY_CAUSE: &str = "policy";

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
        assert_eq!(taken.cause().as_deref(), Some("Job/ns/train/u"));
        assert!(Error::Render("x".into()).is_permanent());
        assert!(!Error::Timeout.is_permanent());
        assert!(Error::Timeout.is_cluster());
    }
}
