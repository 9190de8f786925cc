//! What a container mounts: data volumes, claims, git clones, config maps, secrets, host paths,
//! NFS exports and S3 buckets.

use serde::{Deserialize, Serialize};

request_part! {
    pub struct Storage {
        pub data_volume: Option<Vec<DataVolume>>,
        pub pvc: Option<Vec<Pvc>>,
        pub git: Option<Vec<Git>>,
        pub config_map_volume: Option<Vec<ConfigMapVolume>>,
        pub secret_volume: Option<Vec<SecretVolume>>,
        pub host_path: Option<Vec<HostPath>>,
        pub nfs: Option<Vec<Nfs>>,
        pub s3: Option<Vec<S3>>,
        pub empty_dir_volume: Option<Vec<EmptyDirVolume>>,
    }
}

request_part! {
    /// A scratch directory that lives as long as the pod, on the node's disk or in memory.
    pub struct EmptyDirVolume {
        pub name: Option<String>,
        pub path: Option<String>,
        /// `Memory`, or absent for the node's disk.
        pub medium: Option<String>,
        pub size_limit: Option<String>,
        pub exclude: Option<bool>,
    }
}

request_part! {
    pub struct DataVolume {
        pub id: String,
        pub mount_path: String,
    }
}

request_part! {
    pub struct Pvc {
        pub name: Option<String>,
        pub existing_pvc: Option<bool>,
        pub claim_name: Option<String>,
        /// Where the claim is mounted in the container.
        pub path: String,
        pub read_only: Option<bool>,
        pub ephemeral: Option<bool>,
        pub claim_info: Option<ClaimInfo>,
    }
}

request_part! {
    pub struct ClaimInfo {
        pub size: Option<String>,
        pub storage_class: Option<String>,
        pub access_modes: Option<AccessModes>,
        pub volume_mode: Option<VolumeMode>,
    }
}

request_part! {
    pub struct AccessModes {
        pub read_write_once: Option<bool>,
        pub read_only_many: Option<bool>,
        pub read_write_many: Option<bool>,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum VolumeMode {
    Filesystem,
    Block,
}

request_part! {
    pub struct Git {
        pub name: Option<String>,
        /// The URL to clone. Run:ai's example leaves it out; without it there is nothing to clone, so
        /// Tephra requires it.
        pub repository: Option<String>,
        pub branch: Option<String>,
        pub revision: Option<String>,
        /// Where the clone appears in the container.
        pub path: String,
        pub password_secret: Option<String>,
        pub secret_key_of_user: Option<String>,
        pub secret_key_of_password: Option<String>,
    }
}

request_part! {
    pub struct ConfigMapVolume {
        pub name: Option<String>,
        pub config_map: String,
        pub mount_path: String,
    }
}

request_part! {
    pub struct SecretVolume {
        pub name: Option<String>,
        pub secret: String,
        pub mount_path: String,
    }
}

request_part! {
    pub struct HostPath {
        pub name: Option<String>,
        /// The directory on the node.
        pub path: String,
        pub read_only: Option<bool>,
        /// Where the directory appears in the container.
        pub mount_path: String,
        pub mount_propagation: Option<MountPropagation>,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum MountPropagation {
    None,
    HostToContainer,
    Bidirectional,
}

request_part! {
    pub struct Nfs {
        pub name: Option<String>,
        /// The exported directory on the server.
        pub path: String,
        pub read_only: Option<bool>,
        pub server: String,
        /// Where the export appears in the container.
        pub mount_path: String,
    }
}

request_part! {
    pub struct S3 {
        pub name: Option<String>,
        pub bucket: String,
        /// Where the bucket appears in the container.
        pub path: String,
        /// The S3 endpoint, for stores other than the cluster default.
        pub url: Option<String>,
        pub access_key_secret: Option<String>,
        pub secret_key_of_access_key_id: Option<String>,
        pub secret_key_of_secret_key: Option<String>,
    }
}
