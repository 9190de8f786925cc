//! Distributed trainings after Run:ai's distributed API: one spec for the workers, a framework,
//! how many workers, and a master that is the same as a worker or has its own spec.

use super::request::{ProjectId, TrainingSpec};
use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

/// `POST /api/v1/workloads/distributed`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DistributedRequest {
    pub name: String,
    pub use_given_name_as_prefix: Option<bool>,
    pub project_id: ProjectId,
    pub cluster_id: Option<String>,
    pub spec: DistributedSpec,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DistributedSpec {
    /// The worker's spec (and the master's, unless `master` is given).
    #[serde(flatten)]
    pub worker: TrainingSpec,
    pub distributed_framework: Framework,
    pub num_workers: i64,
    /// Run:ai's lower bound of workers (PyTorch): the gang is these workers and the master.
    /// Defaults to all of them.
    pub min_replicas: Option<i64>,
    /// Run:ai's upper bound of workers for an autoscaler (PyTorch); Tephra runs `numWorkers`.
    pub max_replicas: Option<i64>,
    pub master_spec_same_as_worker: Option<bool>,
    /// The master's own spec: Run:ai's top-level `masterSpec`, or `spec.master`.
    pub master: Option<TrainingSpec>,
    /// MPI: processes per worker in the hostfile (Run:ai's SDK sends 1 by default).
    pub slots_per_worker: Option<i64>,
    /// MPI: where the SSH keys are mounted (Run:ai's SDK sends `/root/.ssh` by default).
    pub ssh_auth_mount_path: Option<String>,
    /// MPI: start the launcher at once or once the workers are ready.
    pub mpi_launcher_creation_policy: Option<MpiLauncherCreationPolicy>,
    /// Which pods are removed when the training finishes.
    pub clean_pod_policy: Option<CleanPodPolicy>,
    /// Whether the master came as Run:ai's top-level `masterSpec` (errors name that path).
    #[serde(skip)]
    pub master_at_top: bool,
}

/// Where Run:ai mounts the SSH keys unless told otherwise.
pub const DEFAULT_SSH_PATH: &str = "/root/.ssh";

/// The keys of [`DistributedSpec`] beyond the worker's [`TrainingSpec`].
pub const DISTRIBUTED_KEYS: [&str; 10] = [
    "distributedFramework",
    "numWorkers",
    "minReplicas",
    "maxReplicas",
    "masterSpecSameAsWorker",
    "master",
    "slotsPerWorker",
    "sshAuthMountPath",
    "mpiLauncherCreationPolicy",
    "cleanPodPolicy",
];

request_choice! {
    pub enum MpiLauncherCreationPolicy {
        AtStartup,
        WaitForWorkersReady,
    }
}

request_choice! {
    pub enum CleanPodPolicy {
        None,
        All,
        Running,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Framework {
    PyTorch,
    #[serde(rename = "MPI")]
    Mpi,
    #[serde(rename = "TF", alias = "TensorFlow")]
    TensorFlow,
    XGBoost,
}

impl Framework {
    pub fn as_str(self) -> &'static str {
        match self {
            Framework::PyTorch => "PyTorch",
            Framework::Mpi => "MPI",
            Framework::TensorFlow => "TF",
            Framework::XGBoost => "XGBoost",
        }
    }

    /// Task names of the master and the workers in the Volcano Job (what the plugins expect).
    pub fn task_names(self) -> (&'static str, &'static str) {
        match self {
            Framework::Mpi => ("mpimaster", "mpiworker"),
            Framework::TensorFlow => ("chief", "worker"),
            Framework::PyTorch | Framework::XGBoost => ("master", "worker"),
        }
    }
}

impl DistributedSpec {
    /// The master's spec: its own, or the worker's.
    pub fn master_spec(&self) -> &TrainingSpec {
        match (&self.master, self.master_spec_same_as_worker) {
            (Some(master), Some(false) | None) => master,
            _ => &self.worker,
        }
    }

    /// Where [`DistributedSpec::master_spec`] is in the request: `masterSpec`, `spec.master`
    /// or `spec`.
    pub fn master_spec_path(&self) -> &'static str {
        match (&self.master, self.master_spec_same_as_worker) {
            (Some(_), Some(false) | None) => self.master_path(),
            _ => "spec",
        }
    }

    /// Where the master's own spec is given: `masterSpec` or `spec.master`.
    pub fn master_path(&self) -> &'static str {
        if self.master_at_top {
            "masterSpec"
        } else {
            "spec.master"
        }
    }
}
