//! Requests after validation: what the renderer reads. Each checked request keeps the request as
//! it came (for its name, project and anything stored or shown) beside its specs in checked form,
//! where every value that had to be parsed (quantities, names, paths, command lines, int32
//! numbers) is a type from `values` and every choice the validator settled (which GPU style,
//! which kind of claim) is an enum. Only the validator builds them, so a checked request is
//! always one the validator accepted.

mod compute;
mod pod;
mod security;
mod storage;

pub use compute::{Compute, Gpu};
pub use pod::{MAX_RUN_TIME_SECONDS, NodeRequirement, NodeTerm, PodSettings, RelatedLink};
pub use security::{Security, UidGid};
pub use storage::{
    Claim, ConfigMapVolume, DataVolume, EmptyDir, Git, HostPath, NewClaim, Nfs, Pvc, S3,
    SecretKeys, SecretVolume, Storage,
};

use super::distributed::DEFAULT_SSH_PATH;
use super::distributed::{DistributedRequest, Framework, MpiLauncherCreationPolicy};
use super::generic::GenericRequest;
use super::request::RestartPolicy;
use super::request::{
    AffinityType, HttpScheme, ImagePullPolicy, ServiceType, TaintEffect, TolerationOperator,
    TrainingRequest,
};
use super::values::{AbsolutePath, ObjectName, Words};
use crate::model::validation::FieldError;

/// A single-task training ([`TrainingRequest`]) that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct Training {
    request: TrainingRequest,
    spec: Spec,
    /// How many pods run (`parallelism`, 1 when not set).
    parallelism: i32,
    completions: Option<i32>,
    /// Fields accepted without effect, for the client to see.
    warnings: Vec<FieldError>,
}

impl Training {
    pub(crate) fn new(
        request: TrainingRequest,
        spec: Spec,
        parallelism: i32,
        completions: Option<i32>,
    ) -> Training {
        Training {
            request,
            spec,
            parallelism,
            completions,
            warnings: Vec::new(),
        }
    }

    pub(crate) fn warned(self, warnings: Vec<FieldError>) -> Training {
        Training { warnings, ..self }
    }

    /// Fields the request sets that have no effect (accepted, as Run:ai accepts them).
    pub fn warnings(&self) -> &[FieldError] {
        &self.warnings
    }

    /// The request as it came.
    pub fn request(&self) -> &TrainingRequest {
        &self.request
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    pub fn parallelism(&self) -> i32 {
        self.parallelism
    }

    pub fn completions(&self) -> Option<i32> {
        self.completions
    }

    /// Every pod the training creates: one per completion when completions exceed parallelism
    /// (Volcano does not start a task's pods again once they succeeded).
    pub fn pods(&self) -> i32 {
        self.parallelism.max(self.completions.unwrap_or(0))
    }
}

/// A distributed training ([`DistributedRequest`]) that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct Distributed {
    request: DistributedRequest,
    worker: Spec,
    /// The master's own spec, when it does not run the worker's.
    master: Option<Spec>,
    workers: i32,
    /// How many pods are scheduled as one gang: `minReplicas` workers and the master (all of
    /// them when not set).
    gang: i32,
    warnings: Vec<FieldError>,
}

impl Distributed {
    pub(crate) fn new(
        request: DistributedRequest,
        worker: Spec,
        master: Option<Spec>,
        workers: i32,
        gang: i32,
    ) -> Distributed {
        Distributed {
            request,
            worker,
            master,
            workers,
            gang,
            warnings: Vec::new(),
        }
    }

    pub(crate) fn warned(self, warnings: Vec<FieldError>) -> Distributed {
        Distributed { warnings, ..self }
    }

    /// Fields the request sets that have no effect (accepted, as Run:ai accepts them).
    pub fn warnings(&self) -> &[FieldError] {
        &self.warnings
    }

    /// The request as it came.
    pub fn request(&self) -> &DistributedRequest {
        &self.request
    }

    pub fn framework(&self) -> Framework {
        self.request.spec.distributed_framework
    }

    pub fn worker(&self) -> &Spec {
        &self.worker
    }

    /// The master's spec: its own, or the worker's.
    pub fn master(&self) -> &Spec {
        self.master.as_ref().unwrap_or(&self.worker)
    }

    pub fn workers(&self) -> i32 {
        self.workers
    }

    pub fn gang(&self) -> i32 {
        self.gang
    }

    /// An elastic PyTorch training's bounds in pods (the master counts, as torchrun's nodes do):
    /// the gang, and every worker created with `maxReplicas` and the master.
    pub fn elastic_nodes(&self) -> Option<(i32, i32)> {
        let elastic = self.framework() == Framework::PyTorch;
        (elastic && self.request.spec.max_replicas.is_some())
            .then(|| (self.gang, self.workers.saturating_add(1)))
    }

    /// Run:ai's `mpiLauncherCreationPolicy: WaitForWorkersReady`: the MPI launcher is created
    /// once every worker of the gang is running and ready.
    pub fn launcher_waits_for_workers(&self) -> bool {
        let spec = &self.request.spec;
        spec.distributed_framework == Framework::Mpi
            && spec.mpi_launcher_creation_policy
                == Some(MpiLauncherCreationPolicy::WaitForWorkersReady)
    }

    /// Where MPI pods find their SSH keys, when not Run:ai's and Volcano's default.
    pub fn ssh_key_path(&self) -> Option<&str> {
        let spec = &self.request.spec;
        spec.ssh_auth_mount_path.as_deref().filter(|path| {
            spec.distributed_framework == Framework::Mpi && *path != DEFAULT_SSH_PATH
        })
    }
}

/// A generic multi-replica request ([`GenericRequest`]) that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct Generic {
    request: GenericRequest,
    /// The first replica type, whose spec also sets the Job's own fields; there is always one.
    first: Replica,
    rest: Vec<Replica>,
    warnings: Vec<FieldError>,
}

impl Generic {
    /// `None` without any replica type (which the validator refuses).
    pub(crate) fn new(request: GenericRequest, replicas: Vec<Replica>) -> Option<Generic> {
        let mut replicas = replicas.into_iter();
        let first = replicas.next()?;
        Some(Generic {
            request,
            first,
            rest: replicas.collect(),
            warnings: Vec::new(),
        })
    }

    pub(crate) fn warned(self, warnings: Vec<FieldError>) -> Generic {
        Generic { warnings, ..self }
    }

    /// Fields the request sets that have no effect (accepted, as Run:ai accepts them).
    pub fn warnings(&self) -> &[FieldError] {
        &self.warnings
    }

    /// The request as it came.
    pub fn request(&self) -> &GenericRequest {
        &self.request
    }

    /// The first replica type.
    pub fn first(&self) -> &Replica {
        &self.first
    }

    /// Every replica type, in the request's order.
    pub fn replicas(&self) -> impl Iterator<Item = &Replica> {
        std::iter::once(&self.first).chain(&self.rest)
    }
}

/// One replica type of a generic request.
#[derive(Debug, Clone, PartialEq)]
pub struct Replica {
    /// The replica type; also the Volcano task's name.
    pub kind: String,
    pub count: i32,
    /// The pod's restart policy while restarts remain.
    pub restart_policy: RestartPolicy,
    /// How many restarts of this type's pods Volcano allows before the type has failed (0:
    /// none, and the pods never restart).
    pub restarts: i32,
    pub spec: Spec,
    /// What debug mode runs instead, when it is enabled.
    pub debug: Option<Override>,
    /// What replaces the command on resume, when the request starts paused and names this type.
    pub resume: Option<Override>,
}

impl Replica {
    /// Whether the kubelet restarts this type's containers: a policy other than Never, with a
    /// limit above 0 (Volcano treats a task maxRetry of 0 as 3).
    pub fn restarts_in_place(&self) -> bool {
        self.restart_policy != RestartPolicy::Never && self.restarts > 0
    }
}

/// A command (and args) that replaces a replica's in a run mode.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Override {
    pub command: Option<Words>,
    pub args: Option<Words>,
    pub skip_init_container: bool,
}

/// One container and its pod, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The image, without surrounding spaces.
    pub image: String,
    pub image_pull_policy: Option<ImagePullPolicy>,
    /// Distinct secret names.
    pub image_pull_secrets: Vec<ObjectName>,
    pub command: Option<Words>,
    pub args: Option<Words>,
    pub working_dir: Option<AbsolutePath>,
    pub create_home_dir: bool,
    pub tty: bool,
    pub stdin: bool,
    pub readiness: Option<Probe>,
    pub node_type: Option<String>,
    pub node_pools: Vec<String>,
    pub pod_affinity: Option<PodAffinity>,
    pub environment: Vec<EnvVar>,
    /// Names of variables a default must not add.
    pub excluded_environment: Vec<String>,
    /// Labels and annotations to set, without the excluded ones.
    pub labels: Vec<(String, String)>,
    pub annotations: Vec<(String, String)>,
    pub tolerations: Vec<Toleration>,
    pub terminate_after_preemption: bool,
    pub auto_deletion_seconds: Option<i32>,
    pub backoff_limit: Option<i32>,
    pub ports: Vec<Port>,
    /// Run:ai's `exposedUrls`: a Service, and an Ingress path when the cluster has an ingress
    /// class.
    pub exposed_urls: Vec<ExposedUrl>,
    pub priority_class: Option<ObjectName>,
    /// `None` when the request has no `compute` (the pod then sets no resources at all).
    pub compute: Option<Compute>,
    pub storage: Storage,
    /// `None` when the request has no `security` (the container then has no security context).
    pub security: Option<Security>,
    pub pod: PodSettings,
}

/// A readiness probe: an HTTP GET with int32 timings.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub initial_delay_seconds: Option<i32>,
    pub period_seconds: Option<i32>,
    pub timeout_seconds: Option<i32>,
    pub success_threshold: Option<i32>,
    pub failure_threshold: Option<i32>,
    pub path: Option<String>,
    pub port: i32,
    pub host: Option<String>,
    pub scheme: Option<HttpScheme>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PodAffinity {
    pub kind: AffinityType,
    /// The topology key (a label key).
    pub key: String,
}

/// An environment variable with a value or from a secret's key.
#[derive(Debug, Clone, PartialEq)]
pub enum EnvVar {
    Value {
        name: String,
        value: String,
    },
    Secret {
        name: String,
        secret: ObjectName,
        key: String,
    },
}

impl EnvVar {
    pub fn name(&self) -> &str {
        match self {
            EnvVar::Value { name, .. } | EnvVar::Secret { name, .. } => name,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Toleration {
    /// `None` matches every key (with `Exists`).
    pub key: Option<String>,
    pub operator: TolerationOperator,
    pub value: Option<String>,
    pub effect: Option<TaintEffect>,
    pub seconds: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExposedUrl {
    pub container: i32,
    /// `authorizedUsers` or `authorizedGroups` when the request restricts who may open it.
    pub restricted_by: Option<&'static str>,
    /// Who may open it besides being allowed to read the project's workloads: a user id, e-mail
    /// or subject in `authorized_users`, or a group in `authorized_groups`. Both empty: every
    /// such reader.
    pub authorized_users: Vec<String>,
    pub authorized_groups: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Port {
    pub container: i32,
    pub external: Option<i32>,
    pub service_type: Option<ServiceType>,
    pub name: Option<String>,
}
