//! What a checked container mounts. Every mount path is distinct from the others.

use crate::model::training::request::{AccessModes, MountPropagation, VolumeMode};
use crate::model::training::values::{AbsolutePath, MountPath, ObjectName, Quantity};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Storage {
    pub data_volumes: Vec<DataVolume>,
    pub pvcs: Vec<Pvc>,
    pub git: Vec<Git>,
    pub config_maps: Vec<ConfigMapVolume>,
    pub secrets: Vec<SecretVolume>,
    pub host_paths: Vec<HostPath>,
    pub nfs: Vec<Nfs>,
    pub s3: Vec<S3>,
    pub empty_dirs: Vec<EmptyDir>,
}

/// Scratch space for the pod's life: on the node's disk, or in memory (counted against the
/// container's memory limit).
#[derive(Debug, Clone, PartialEq)]
pub struct EmptyDir {
    pub mount: MountPath,
    pub in_memory: bool,
    pub size_limit: Option<Quantity>,
}

/// A data volume an administrator registered, by its UUID; the cluster's profile names its claim.
#[derive(Debug, Clone, PartialEq)]
pub struct DataVolume {
    pub id: String,
    pub mount: MountPath,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pvc {
    pub mount: MountPath,
    pub read_only: bool,
    pub claim: Claim,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// A claim that exists in the namespace.
    Existing(ObjectName),
    /// A claim Tephra creates: named `name`, or after the job; per pod when `ephemeral`.
    New {
        name: Option<ObjectName>,
        ephemeral: bool,
        spec: NewClaim,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewClaim {
    pub size: Quantity,
    pub storage_class: Option<ObjectName>,
    /// At least one is enabled.
    pub access_modes: AccessModes,
    pub volume_mode: Option<VolumeMode>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Git {
    pub repository: String,
    pub branch: Option<String>,
    pub revision: Option<String>,
    pub mount: MountPath,
    /// The secret with the user name and password.
    pub credentials: Option<SecretKeys>,
}

/// A secret and the two keys read from it (user and password, or access key id and secret key).
#[derive(Debug, Clone, PartialEq)]
pub struct SecretKeys {
    pub secret: ObjectName,
    pub keys: [String; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConfigMapVolume {
    pub config_map: ObjectName,
    pub mount: MountPath,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SecretVolume {
    pub secret: ObjectName,
    pub mount: MountPath,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HostPath {
    pub path: AbsolutePath,
    pub mount: MountPath,
    pub read_only: bool,
    pub propagation: Option<MountPropagation>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Nfs {
    pub server: String,
    pub path: AbsolutePath,
    pub mount: MountPath,
    /// As the request says it; the NFS volume source carries it too.
    pub read_only: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct S3 {
    pub bucket: String,
    pub mount: MountPath,
    pub url: Option<String>,
    pub credentials: Option<SecretKeys>,
}
