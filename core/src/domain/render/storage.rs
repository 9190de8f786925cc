//! Volumes and mounts for every kind of storage in a request, the PVCs Tephra must create, and the
//! init containers that clone git repositories.

use super::pod::{PodContext, plain};
use crate::domain::labels::Owner;
use crate::model::training::checked::{
    Claim, ConfigMapVolume, EmptyDir, Git, HostPath, NewClaim, Nfs, Pvc, SecretVolume, Spec,
};
use crate::model::training::request::{MountPropagation, VolumeMode};
use k8s_openapi::api::core::v1::*;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// What the pods' storage needs created beside the Job, gathered over every task.
#[derive(Default)]
pub(super) struct StorageObjects {
    pub claims: Vec<PersistentVolumeClaim>,
    pub volumes: Vec<PersistentVolume>,
    pub secrets: Vec<super::rendered::S3Secret>,
}

#[derive(Default)]
pub(super) struct PodStorage {
    pub volumes: Vec<Volume>,
    pub mounts: Vec<VolumeMount>,
    pub init_containers: Vec<Container>,
}

impl PodStorage {
    fn add(
        &mut self,
        volume: Volume,
        mount_path: &str,
        read_only: bool,
        propagation: Option<&str>,
    ) {
        self.mounts.push(VolumeMount {
            name: volume.name.clone(),
            mount_path: mount_path.to_owned(),
            read_only: read_only.then_some(true),
            mount_propagation: propagation.map(str::to_owned),
            ..VolumeMount::default()
        });
        self.volumes.push(volume);
    }
}

pub(super) fn render(spec: &Spec, ctx: &PodContext<'_>, beside: &mut StorageObjects) -> PodStorage {
    let mut out = PodStorage::default();
    shm_and_home(spec, ctx, &mut out);
    let storage = &spec.storage;
    for (i, d) in storage.data_volumes.iter().enumerate() {
        // The binding holds a claim for every data volume the request mounts.
        if let Some(claim) = ctx.target.binding.data_volume(&d.id) {
            let volume = pvc_volume(format!("data-{i}"), claim, true);
            out.add(volume, d.mount.as_str(), true, None);
        }
    }
    for (i, p) in storage.pvcs.iter().enumerate() {
        let volume = pvc(format!("pvc-{i}"), p, ctx, &mut beside.claims);
        out.add(volume, p.mount.as_str(), p.read_only, None);
    }
    for (i, g) in storage.git.iter().enumerate() {
        let name = format!("git-{i}");
        out.add(
            empty_dir(name.clone(), Default::default()),
            g.mount.as_str(),
            false,
            None,
        );
        out.init_containers.push(git_clone(&name, g, ctx));
    }
    empty_dirs(&storage.empty_dirs, &mut out);
    config_maps(&storage.config_maps, &mut out);
    secrets(&storage.secrets, &mut out);
    host_paths(&storage.host_paths, &mut out);
    nfs(&storage.nfs, &mut out);
    for (i, b) in storage.s3.iter().enumerate() {
        let volume = super::s3::volume(i, b, ctx, beside);
        out.add(volume, b.mount.as_str(), false, None);
    }
    out
}

/// Scratch the pod gets without asking for storage: a larger /dev/shm, and a home directory.
fn shm_and_home(spec: &Spec, ctx: &PodContext<'_>, out: &mut PodStorage) {
    if spec.compute.as_ref().is_some_and(|c| c.large_shm) {
        let shm = EmptyDirVolumeSource {
            medium: Some("Memory".into()),
            ..Default::default()
        };
        out.add(empty_dir("dshm".into(), shm), "/dev/shm", false, None);
    }
    if spec.create_home_dir {
        let home = &ctx.target.profile.home_dir;
        out.add(
            empty_dir("home".into(), Default::default()),
            home,
            false,
            None,
        );
    }
}

fn empty_dirs(dirs: &[EmptyDir], out: &mut PodStorage) {
    for (i, d) in dirs.iter().enumerate() {
        let source = EmptyDirVolumeSource {
            medium: d.in_memory.then(|| "Memory".into()),
            size_limit: d
                .size_limit
                .as_ref()
                .map(|q| Quantity(q.as_str().to_owned())),
        };
        out.add(
            empty_dir(format!("emptydir-{i}"), source),
            d.mount.as_str(),
            false,
            None,
        );
    }
}

fn config_maps(maps: &[ConfigMapVolume], out: &mut PodStorage) {
    for (i, c) in maps.iter().enumerate() {
        let volume = Volume {
            name: format!("configmap-{i}"),
            config_map: Some(ConfigMapVolumeSource {
                name: c.config_map.to_string(),
                ..Default::default()
            }),
            ..Volume::default()
        };
        out.add(volume, c.mount.as_str(), true, None);
    }
}

fn secrets(secrets: &[SecretVolume], out: &mut PodStorage) {
    for (i, s) in secrets.iter().enumerate() {
        let volume = Volume {
            name: format!("secret-{i}"),
            secret: Some(SecretVolumeSource {
                secret_name: Some(s.secret.to_string()),
                ..Default::default()
            }),
            ..Volume::default()
        };
        out.add(volume, s.mount.as_str(), true, None);
    }
}

fn nfs(shares: &[Nfs], out: &mut PodStorage) {
    for (i, n) in shares.iter().enumerate() {
        let volume = Volume {
            name: format!("nfs-{i}"),
            nfs: Some(NFSVolumeSource {
                server: n.server.clone(),
                path: n.path.as_str().to_owned(),
                read_only: n.read_only,
            }),
            ..Volume::default()
        };
        out.add(volume, n.mount.as_str(), n.read_only == Some(true), None);
    }
}

fn empty_dir(name: String, source: EmptyDirVolumeSource) -> Volume {
    Volume {
        name,
        empty_dir: Some(source),
        ..Volume::default()
    }
}

/// The volume of a claim: an existing one, one Tephra creates (added to `claims`), or one per pod.
fn pvc(
    name: String,
    p: &Pvc,
    ctx: &PodContext<'_>,
    claims: &mut Vec<PersistentVolumeClaim>,
) -> Volume {
    let workload = ctx.target.workload;
    match &p.claim {
        Claim::Existing(claim) => pvc_volume(name, claim.as_str(), p.read_only),
        // Lives and dies with the pod: each pod gets its own claim from the template.
        Claim::New {
            ephemeral: true,
            spec,
            ..
        } => Volume {
            name,
            ephemeral: Some(EphemeralVolumeSource {
                volume_claim_template: Some(PersistentVolumeClaimTemplate {
                    metadata: Some(ObjectMeta {
                        labels: Some(workload.labels()),
                        ..ObjectMeta::default()
                    }),
                    spec: claim_spec(spec),
                }),
            }),
            ..Volume::default()
        },
        Claim::New {
            name: claim_name,
            spec,
            ..
        } => {
            let claim_name = claim_name.as_ref().map_or_else(
                || format!("{}-{name}", workload.job_name),
                |n| n.to_string(),
            );
            claims.push(claim(&claim_name, claim_spec(spec), workload));
            pvc_volume(name, &claim_name, p.read_only)
        }
    }
}

fn host_paths(paths: &[HostPath], out: &mut PodStorage) {
    for (i, h) in paths.iter().enumerate() {
        let volume = Volume {
            name: format!("hostpath-{i}"),
            host_path: Some(HostPathVolumeSource {
                path: h.path.as_str().to_owned(),
                type_: Some(String::new()),
            }),
            ..Volume::default()
        };
        let propagation = h.propagation.map(|p| match p {
            MountPropagation::None => "None",
            MountPropagation::HostToContainer => "HostToContainer",
            MountPropagation::Bidirectional => "Bidirectional",
        });
        out.add(volume, h.mount.as_str(), h.read_only, propagation);
    }
}

fn pvc_volume(name: String, claim: &str, read_only: bool) -> Volume {
    Volume {
        name,
        persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
            claim_name: claim.to_owned(),
            read_only: read_only.then_some(true),
        }),
        ..Volume::default()
    }
}

fn claim_spec(info: &NewClaim) -> PersistentVolumeClaimSpec {
    let modes = &info.access_modes;
    let access_modes: Vec<String> = [
        (modes.read_write_once, "ReadWriteOnce"),
        (modes.read_only_many, "ReadOnlyMany"),
        (modes.read_write_many, "ReadWriteMany"),
    ]
    .into_iter()
    .filter(|(on, _)| *on == Some(true))
    .map(|(_, mode)| mode.to_owned())
    .collect();
    PersistentVolumeClaimSpec {
        access_modes: Some(access_modes),
        storage_class_name: info.storage_class.as_ref().map(ToString::to_string),
        volume_mode: info.volume_mode.map(|m| match m {
            VolumeMode::Filesystem => "Filesystem".into(),
            VolumeMode::Block => "Block".into(),
        }),
        resources: Some(VolumeResourceRequirements {
            requests: Some(BTreeMap::from([(
                "storage".to_owned(),
                Quantity(info.size.as_str().to_owned()),
            )])),
            ..VolumeResourceRequirements::default()
        }),
        ..PersistentVolumeClaimSpec::default()
    }
}

fn claim(name: &str, spec: PersistentVolumeClaimSpec, workload: &Owner) -> PersistentVolumeClaim {
    PersistentVolumeClaim {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(workload.namespace.clone()),
            labels: Some(workload.labels()),
            annotations: Some(workload.annotations()),
            ..ObjectMeta::default()
        },
        spec: Some(spec),
        ..PersistentVolumeClaim::default()
    }
}

/// Clones a repository into the shared empty directory before the training starts. The request's
/// values reach the script only as environment variables, never spliced into it.
fn git_clone(volume: &str, g: &Git, ctx: &PodContext<'_>) -> Container {
    const SCRIPT: &str = r#"set -eu
url="$GIT_REPOSITORY"
if [ -n "${GIT_USERNAME:-}" ]; then
  git config --global credential.helper '!f() { echo "username=$GIT_USERNAME"; echo "password=$GIT_PASSWORD"; }; f'
fi
if [ -n "${GIT_BRANCH:-}" ]; then
  git clone --branch "$GIT_BRANCH" -- "$url" /repo
else
  git clone -- "$url" /repo
fi
if [ -n "${GIT_REVISION:-}" ]; then
  git -C /repo checkout --detach "$GIT_REVISION"
fi
"#;
    let mut env = vec![plain("GIT_REPOSITORY", &g.repository)];
    if let Some(branch) = &g.branch {
        env.push(plain("GIT_BRANCH", branch));
    }
    if let Some(revision) = &g.revision {
        env.push(plain("GIT_REVISION", revision));
    }
    if let Some(credentials) = &g.credentials {
        for (name, key) in ["GIT_USERNAME", "GIT_PASSWORD"]
            .into_iter()
            .zip(&credentials.keys)
        {
            env.push(EnvVar {
                name: name.into(),
                value_from: Some(EnvVarSource {
                    secret_key_ref: Some(SecretKeySelector {
                        name: credentials.secret.to_string(),
                        key: key.clone(),
                        optional: Some(false),
                    }),
                    ..EnvVarSource::default()
                }),
                ..EnvVar::default()
            });
        }
    }
    Container {
        name: format!("{volume}-clone"),
        image: Some(ctx.target.profile.git_image.clone()),
        command: Some(vec!["sh".into(), "-c".into(), SCRIPT.into()]),
        env: Some(env),
        volume_mounts: Some(vec![VolumeMount {
            name: volume.to_owned(),
            mount_path: "/repo".into(),
            ..VolumeMount::default()
        }]),
        ..Container::default()
    }
}
