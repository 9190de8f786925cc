//! The labels and annotations that tie every object Tephra creates back to its workload, so the
//! watchers can map cluster events to database rows.

use crate::model::kind::WorkloadKind;
use std::collections::BTreeMap;

pub const WORKLOAD_ID: &str = "tephra.dev/workload-id";
pub const PROJECT: &str = "tephra.dev/project";
/// The annotation on a project's namespace naming the project (its UUID) it was made for: a
/// project deleted leaves its namespace, with its claims and Secrets, and no other project may
/// take it over.
pub const PROJECT_ID: &str = "tephra.dev/project-id";
pub const DEPARTMENT: &str = "tephra.dev/department";
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_VALUE: &str = "tephra";
pub const CREATED_BY: &str = "tephra.dev/created-by";
pub const REQUESTED_NAME: &str = "tephra.dev/requested-name";
pub const WORKLOAD_KIND: &str = "tephra.dev/workload-kind";
/// Run:ai's workload category, on the pods.
pub const CATEGORY: &str = "tephra.dev/category";
/// Run:ai's related URLs, as a JSON list on the Job.
pub const RELATED_URLS: &str = "tephra.dev/related-urls";
/// Volcano's mark of a pod its preempt and reclaim actions may evict.
pub const PREEMPTABLE: &str = "volcano.sh/preemptable";
/// The task a Volcano pod belongs to, and its index in the task (labels Volcano sets).
pub const TASK_SPEC: &str = "volcano.sh/task-spec";
pub const TASK_INDEX: &str = "volcano.sh/task-index";
/// The Volcano Job a pod belongs to (a label Volcano sets).
pub const JOB_NAME: &str = "volcano.sh/job-name";
/// The Job version a Volcano pod was made for (an annotation Volcano sets). Volcano treats an
/// event of a pod from an older version than the Job's as outdated: it syncs the Job and applies
/// no policy.
pub const JOB_VERSION: &str = "volcano.sh/job-version";
/// A version older than any a Job has: the mark on the pods a scale-down removes.
pub const OUTDATED_VERSION: &str = "-1";
/// Selects everything Tephra manages.
pub const MANAGED_SELECTOR: &str = "app.kubernetes.io/managed-by=tephra";

/// The workload a rendered object belongs to: its id, names, project and creator, as labels and
/// annotations carry them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// The workload's id (a UUID), also its row's primary key.
    pub id: String,
    /// The Job's name: the requested name, plus the suffix when the name is a prefix.
    pub job_name: String,
    pub requested_name: String,
    pub project: String,
    pub namespace: String,
    pub queue: String,
    /// The creator's email or name, recorded as an annotation.
    pub created_by: String,
    /// The request's schema (`training`, `distributed` or `generic`).
    pub kind: WorkloadKind,
    /// uid and gid from the creator's identity token, for `uidGidSource: fromIdpToken`.
    pub token_uid_gid: Option<(i64, i64)>,
}

impl Owner {
    pub fn labels(&self) -> BTreeMap<String, String> {
        [
            (WORKLOAD_ID, self.id.as_str()),
            (PROJECT, self.project.as_str()),
            (MANAGED_BY, MANAGED_BY_VALUE),
            (WORKLOAD_KIND, self.kind.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    pub fn annotations(&self) -> BTreeMap<String, String> {
        [
            (CREATED_BY, self.created_by.as_str()),
            (REQUESTED_NAME, self.requested_name.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }
}

/// The Job name for a request: the name itself, or with `useGivenNameAsPrefix` the name, `-` and
/// `suffix` (five random lowercase letters or digits chosen by the caller).
pub fn job_name(requested: &str, use_as_prefix: bool, suffix: &str) -> String {
    if use_as_prefix {
        format!("{requested}-{suffix}")
    } else {
        requested.to_owned()
    }
}
