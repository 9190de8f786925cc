//! Which kind of request a JSON document is, and rendering either kind.

use super::cluster::ClusterProfile;
use super::labels::{Owner, job_name};
use super::render::{self, Binding, Rendered, Target};
pub use crate::model::kind::WorkloadKind;
use crate::model::training::checked::{Distributed, Generic, Spec, Training};
use crate::model::training::generic::CleanUpPolicy;
use crate::model::training::parse;
use crate::model::training::pods::PodCount;
use crate::model::validation::{FieldError, join};
use serde_json::Value;

/// A request of any kind, checked: it renders unless the cluster or its creator cannot give
/// what it needs (see [`Request::bind`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Training(Box<Training>),
    Distributed(Box<Distributed>),
    Generic(Box<Generic>),
}

/// Where a request runs and on whose behalf, for rendering it outside the database (`tephra
/// render`, tests, benchmarks). The server builds its [`Owner`] from the stored row instead.
#[derive(Debug, Clone)]
pub struct Placement<'a> {
    pub workload_id: &'a str,
    /// The project; its namespace and queue are `tephra-<project>` unless `queue` says otherwise.
    pub project: &'a str,
    pub queue: Option<&'a str>,
    pub created_by: &'a str,
    /// Appended to the name when the request uses it as a prefix.
    pub name_suffix: &'a str,
    pub token_uid_gid: Option<(i64, i64)>,
}

impl Request {
    pub fn kind(&self) -> WorkloadKind {
        match self {
            Request::Training(_) => WorkloadKind::Training,
            Request::Distributed(_) => WorkloadKind::Distributed,
            Request::Generic(_) => WorkloadKind::Generic,
        }
    }

    pub fn owner(&self, at: &Placement<'_>) -> Owner {
        let namespace = format!("tephra-{}", at.project);
        Owner {
            id: at.workload_id.to_owned(),
            job_name: job_name(self.name(), self.uses_name_as_prefix(), at.name_suffix),
            requested_name: self.name().to_owned(),
            project: at.project.to_owned(),
            queue: at.queue.map_or_else(|| namespace.clone(), str::to_owned),
            namespace,
            created_by: at.created_by.to_owned(),
            kind: self.kind(),
            token_uid_gid: at.token_uid_gid,
        }
    }

    /// The spec of the pod its exposed URLs reach: the first task's (the training's, the
    /// master's, the first replica type's), as rendering chooses.
    pub fn url_spec(&self) -> &Spec {
        match self {
            Request::Training(r) => r.spec(),
            Request::Distributed(r) => r.master(),
            Request::Generic(r) => &r.first().spec,
        }
    }

    pub fn parse(value: &Value, kind: WorkloadKind) -> Result<Request, Vec<FieldError>> {
        match kind {
            WorkloadKind::Training => {
                parse::training(value).map(|r| Request::Training(Box::new(r)))
            }
            WorkloadKind::Distributed => {
                parse::distributed(value).map(|r| Request::Distributed(Box::new(r)))
            }
            WorkloadKind::Generic => parse::generic(value).map(|r| Request::Generic(Box::new(r))),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Request::Training(r) => &r.request().name,
            Request::Distributed(r) => &r.request().name,
            Request::Generic(r) => &r.request().name,
        }
    }

    /// Fields the request sets that have no effect: accepted, and told to the client.
    pub fn warnings(&self) -> &[FieldError] {
        match self {
            Request::Training(r) => r.warnings(),
            Request::Distributed(r) => r.warnings(),
            Request::Generic(r) => r.warnings(),
        }
    }

    /// The project the request names (an id or a name).
    pub fn project_id(&self) -> String {
        match self {
            Request::Training(r) => r.request().project_id.to_string(),
            Request::Distributed(r) => r.request().project_id.to_string(),
            Request::Generic(r) => r.request().project_id.to_string(),
        }
    }

    /// The cluster the request names, if any.
    pub fn cluster_id(&self) -> Option<&str> {
        match self {
            Request::Training(r) => r.request().cluster_id.as_deref(),
            Request::Distributed(r) => r.request().cluster_id.as_deref(),
            Request::Generic(r) => r.request().cluster_id.as_deref(),
        }
    }

    /// How long each run may last before Tephra stops it (`maxRunTimeSeconds`), if limited.
    pub fn max_run_time_seconds(&self) -> Option<i64> {
        match self {
            Request::Training(r) => r.spec().pod.max_run_time_seconds,
            Request::Distributed(r) => r.worker().pod.max_run_time_seconds,
            Request::Generic(r) => r.first().spec.pod.max_run_time_seconds,
        }
    }

    /// How long the Job may outlive the training's finish (`autoDeletionTimeAfterCompletionSeconds`).
    /// Tephra deletes it itself once it has recorded the outcome; see the controller.
    pub fn job_ttl_seconds(&self) -> Option<i64> {
        match self {
            Request::Training(r) => r.spec().auto_deletion_seconds.map(i64::from),
            Request::Distributed(r) => r.worker().auto_deletion_seconds.map(i64::from),
            // Clean-up All removes the Job (and so every pod) once the finish is recorded.
            Request::Generic(r) => match r.request().spec.clean_up() {
                CleanUpPolicy::All => Some(0),
                _ => r.first().spec.auto_deletion_seconds.map(i64::from),
            },
        }
    }

    /// Whether the workload is stored suspended, to run once resumed (a generic job's pause
    /// mode).
    pub fn starts_paused(&self) -> bool {
        matches!(self, Request::Generic(r) if r.request().spec.starts_paused())
    }

    pub fn uses_name_as_prefix(&self) -> bool {
        match self {
            Request::Training(r) => r.request().use_given_name_as_prefix == Some(true),
            Request::Distributed(r) => r.request().use_given_name_as_prefix == Some(true),
            Request::Generic(r) => r.request().use_given_name_as_prefix == Some(true),
        }
    }

    /// The most pods the request can have at once, and the field that asks for them.
    pub fn pod_count(&self) -> PodCount {
        match self {
            Request::Training(r) => r.request().pod_count(),
            Request::Distributed(r) => r.request().pod_count(),
            Request::Generic(r) => r.request().pod_count(),
        }
    }

    /// Refuses a request for more than `max` pods at once, naming the field and the flag that
    /// sets the maximum: one workload must not be able to flood the cluster and its scheduler.
    pub fn within_pod_limit(&self, max: u64) -> Result<(), FieldError> {
        let PodCount { pods, field } = self.pod_count();
        if pods <= max {
            return Ok(());
        }
        Err(FieldError {
            path: field,
            message: format!(
                "asks for {pods} pods at once; this Tephra allows at most {max} per workload \
                 (--max-pods-per-workload)"
            ),
        })
    }

    /// Looks up what the request needs from `profile` and its creator's token: the only step
    /// between a checked request and its objects that can refuse it.
    pub fn bind(
        &self,
        profile: &ClusterProfile,
        token_uid_gid: Option<(i64, i64)>,
    ) -> Result<Binding, Vec<FieldError>> {
        let replica_paths: Vec<String>;
        let (job_spec, tasks): (&Spec, Vec<(&str, &Spec)>) = match self {
            Request::Training(r) => (r.spec(), vec![("spec", r.spec())]),
            Request::Distributed(r) => {
                let worker = ("spec", r.worker());
                let master_path = r.request().spec.master_spec_path();
                // A master running the worker's spec needs nothing more.
                let tasks = if master_path == "spec" {
                    vec![worker]
                } else {
                    vec![(master_path, r.master()), worker]
                };
                (r.worker(), tasks)
            }
            Request::Generic(r) => {
                replica_paths = (0..r.replicas().count())
                    .map(|i| join(&format!("spec.replicaSpecs[{i}]"), "spec"))
                    .collect();
                let tasks = replica_paths
                    .iter()
                    .map(String::as_str)
                    .zip(r.replicas().map(|replica| &replica.spec))
                    .collect();
                (&r.first().spec, tasks)
            }
        };
        Binding::new(job_spec, &tasks, profile, token_uid_gid)
    }

    /// The Job and the objects beside it for `workload`, once [`Request::bind`] has looked up
    /// what they need.
    pub fn render_bound(
        &self,
        workload: &Owner,
        profile: &ClusterProfile,
        binding: &Binding,
    ) -> Rendered {
        let target = Target {
            workload,
            profile,
            binding,
        };
        match self {
            Request::Training(r) => render::training(r, target),
            Request::Distributed(r) => render::distributed(r, target),
            Request::Generic(r) => render::generic(r, target),
        }
    }

    /// Binds and renders: refused only for what the cluster or the creator (the token ids in
    /// `workload`) cannot give.
    pub fn render(
        &self,
        workload: &Owner,
        profile: &ClusterProfile,
    ) -> Result<Rendered, Vec<FieldError>> {
        let binding = self.bind(profile, workload.token_uid_gid)?;
        Ok(self.render_bound(workload, profile, &binding))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(value: Value) -> Request {
        Request::parse(&value, WorkloadKind::detect(&value)).expect("the request is valid")
    }

    #[test]
    fn requests_within_the_pod_maximum_pass() {
        let training = parsed(json!({
            "name": "a", "projectId": "p", "spec": { "image": "x", "parallelism": 1000 }
        }));
        assert_eq!(training.within_pod_limit(1000), Ok(()));
    }

    #[test]
    fn requests_beyond_the_pod_maximum_name_the_field_and_the_flag() {
        let training = parsed(json!({
            "name": "a", "projectId": "p", "spec": { "image": "x", "parallelism": 3000000 }
        }));
        assert_eq!(
            training.within_pod_limit(1000),
            Err(FieldError {
                path: "spec.parallelism".into(),
                message: "asks for 3000000 pods at once; this Tephra allows at most 1000 per \
                          workload (--max-pods-per-workload)"
                    .into(),
            })
        );

        // The master is a pod too.
        let distributed = parsed(json!({
            "name": "a", "projectId": "p",
            "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 1000 }
        }));
        let err = distributed.within_pod_limit(1000).unwrap_err();
        assert_eq!(err.path, "spec.numWorkers");
        assert!(
            err.message.starts_with("asks for 1001 pods"),
            "{}",
            err.message
        );
        assert!(distributed.within_pod_limit(1001).is_ok());

        let elastic = parsed(json!({
            "name": "a", "projectId": "p",
            "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 1,
                      "maxReplicas": 5000 }
        }));
        assert_eq!(
            elastic.within_pod_limit(1000).unwrap_err().path,
            "spec.maxReplicas"
        );

        let generic = parsed(json!({
            "name": "a", "projectId": "p",
            "spec": { "replicaSpecs": [
                { "type": "ps", "replicas": 2, "spec": { "image": "x" } },
                { "type": "worker", "replicas": 9999, "spec": { "image": "x" } }
            ] }
        }));
        let err = generic.within_pod_limit(1000).unwrap_err();
        assert_eq!(err.path, "spec.replicaSpecs[1].replicas");
        assert!(
            err.message.starts_with("asks for 10001 pods"),
            "{}",
            err.message
        );
    }
}
