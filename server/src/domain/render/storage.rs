//! Volumes and mounts for every kind of storage in a request, the PVCs Tephra must create, and the
//! init containers that clone git repositories.

use super::pod::PodContext;
use crate::domain::labels::Owner;
use app::model::training::request::*;
use app::model::validation::{Errors, index, join};
use k8s_openapi::api::core::v1::*;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

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
        read_only: Option<bool>,
        propagation: Option<&str>,
    ) {
        self.mounts.push(VolumeMount {
            name: volume.name.clone(),
            mount_path: mount_path.to_owned(),
            read_only: read_only.filter(|ro| *ro),
            mount_propagation: propagation.map(str::to_owned),
            ..VolumeMount::default()
        });
        self.volumes.push(volume);
    }
}

pub(super) fn render(
    spec: &TrainingSpec,
    ctx: &PodContext<'_>,
    claims: &mut Vec<PersistentVolumeClaim>,
    errors: &mut Errors,
) -> PodStorage {
    let mut out = PodStorage::default();
    if spec.compute.as_ref().and_then(|c| c.large_shm_request) == Some(true) {
        out.add(
            Volume {
                name: "dshm".into(),
                empty_dir: Some(EmptyDirVolumeSource {
                    medium: Some("Memory".into()),
                    ..Default::default()
                }),
                ..Volume::default()
            },
            "/dev/shm",
            None,
            None,
        );
    }
    if spec.create_home_dir == Some(true) {
        out.add(
            Volume {
                name: "home".into(),
                empty_dir: Some(EmptyDirVolumeSource::default()),
                ..Volume::default()
            },
            &ctx.profile.home_dir,
            None,
            None,
        );
    }
    let Some(storage) = &spec.storage else {
        return out;
    };
    let at = |kind: &str, i: usize| index(&ctx.at(&format!("storage.{kind}")), i);

    for (i, d) in storage.data_volume.iter().flatten().enumerate() {
        match ctx.profile.data_volumes.get(&d.id) {
            Some(claim) => out.add(
                pvc_volume(format!("data-{i}"), claim, Some(true)),
                &d.mount_path,
                Some(true),
                None,
            ),
            None => errors.add(
                join(&at("dataVolume", i), "id"),
                format!("{} is not a data volume registered in this cluster", d.id),
            ),
        }
    }
    for (i, p) in storage.pvc.iter().flatten().enumerate() {
        let name = format!("pvc-{i}");
        if p.existing_pvc == Some(true) {
            let claim = p.claim_name.clone().unwrap_or_default();
            out.add(
                pvc_volume(name, &claim, p.read_only),
                &p.path,
                p.read_only,
                None,
            );
            continue;
        }
        let Some(info) = &p.claim_info else { continue };
        let claim_spec = claim_spec(info);
        if p.ephemeral == Some(true) {
            // Lives and dies with the pod: each pod gets its own claim from the template.
            let volume = Volume {
                name: name.clone(),
                ephemeral: Some(EphemeralVolumeSource {
                    volume_claim_template: Some(PersistentVolumeClaimTemplate {
                        metadata: Some(ObjectMeta {
                            labels: Some(ctx.workload.labels()),
                            ..ObjectMeta::default()
                        }),
                        spec: claim_spec,
                    }),
                }),
                ..Volume::default()
            };
            out.add(volume, &p.path, p.read_only, None);
        } else {
            let claim_name = p
                .claim_name
                .clone()
                .unwrap_or_else(|| format!("{}-{name}", ctx.workload.job_name));
            claims.push(claim(&claim_name, claim_spec, ctx.workload));
            out.add(
                pvc_volume(name, &claim_name, p.read_only),
                &p.path,
                p.read_only,
                None,
            );
        }
    }
    for (i, g) in storage.git.iter().flatten().enumerate() {
        let name = format!("git-{i}");
        out.add(
            Volume {
                name: name.clone(),
                empty_dir: Some(EmptyDirVolumeSource::default()),
                ..Volume::default()
            },
            &g.path,
            None,
            None,
        );
        out.init_containers.push(git_clone(&name, g, ctx));
    }
    for (i, c) in storage.config_map_volume.iter().flatten().enumerate() {
        let volume = Volume {
            name: format!("configmap-{i}"),
            config_map: Some(ConfigMapVolumeSource {
                name: c.config_map.clone(),
                ..Default::default()
            }),
            ..Volume::default()
        };
        out.add(volume, &c.mount_path, Some(true), None);
    }
    for (i, s) in storage.secret_volume.iter().flatten().enumerate() {
        let volume = Volume {
            name: format!("secret-{i}"),
            secret: Some(SecretVolumeSource {
                secret_name: Some(s.secret.clone()),
                ..Default::default()
            }),
            ..Volume::default()
        };
        out.add(volume, &s.mount_path, Some(true), None);
    }
    for (i, h) in storage.host_path.iter().flatten().enumerate() {
        let volume = Volume {
            name: format!("hostpath-{i}"),
            host_path: Some(HostPathVolumeSource {
                path: h.path.clone(),
                type_: Some(String::new()),
            }),
            ..Volume::default()
        };
        let propagation = h.mount_propagation.map(|p| match p {
            MountPropagation::None => "None",
            MountPropagation::HostToContainer => "HostToContainer",
            MountPropagation::Bidirectional => "Bidirectional",
        });
        out.add(volume, &h.mount_path, h.read_only, propagation);
    }
    for (i, n) in storage.nfs.iter().flatten().enumerate() {
        let volume = Volume {
            name: format!("nfs-{i}"),
            nfs: Some(NFSVolumeSource {
                server: n.server.clone(),
                path: n.path.clone(),
                read_only: n.read_only,
            }),
            ..Volume::default()
        };
        out.add(volume, &n.mount_path, n.read_only, None);
    }
    for (i, b) in storage.s3.iter().flatten().enumerate() {
        let mut attributes = BTreeMap::from([("bucketName".to_owned(), b.bucket.clone())]);
        if let Some(url) = &b.url {
            attributes.insert("endpoint".into(), url.clone());
        }
        let volume = Volume {
            name: format!("s3-{i}"),
            csi: Some(CSIVolumeSource {
                driver: ctx.profile.s3_csi_driver.clone(),
                volume_attributes: Some(attributes),
                node_publish_secret_ref: b
                    .access_key_secret
                    .clone()
                    .map(|name| LocalObjectReference { name }),
                ..CSIVolumeSource::default()
            }),
            ..Volume::default()
        };
        out.add(volume, &b.path, None, None);
    }
    out
}

fn pvc_volume(name: String, claim: &str, read_only: Option<bool>) -> Volume {
    Volume {
        name,
        persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
            claim_name: claim.to_owned(),
            read_only: read_only.filter(|ro| *ro),
        }),
        ..Volume::default()
    }
}

fn claim_spec(info: &ClaimInfo) -> PersistentVolumeClaimSpec {
    let modes = info.access_modes.clone().unwrap_or_default();
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
        storage_class_name: info.storage_class.clone(),
        volume_mode: info.volume_mode.map(|m| match m {
            VolumeMode::Filesystem => "Filesystem".into(),
            VolumeMode::Block => "Block".into(),
        }),
        resources: Some(VolumeResourceRequirements {
            requests: Some(BTreeMap::from([(
                "storage".to_owned(),
                Quantity(info.size.clone().unwrap_or_default().trim().to_owned()),
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
    let mut env = vec![plain(
        "GIT_REPOSITORY",
        g.repository.as_deref().unwrap_or_default(),
    )];
    if let Some(branch) = &g.branch {
        env.push(plain("GIT_BRANCH", branch));
    }
    if let Some(revision) = &g.revision {
        env.push(plain("GIT_REVISION", revision));
    }
    if let Some(secret) = &g.password_secret {
        for (name, key) in [
            ("GIT_USERNAME", &g.secret_key_of_user),
            ("GIT_PASSWORD", &g.secret_key_of_password),
        ] {
            env.push(EnvVar {
                name: name.into(),
                value_from: Some(EnvVarSource {
                    secret_key_ref: Some(SecretKeySelector {
                        name: secret.clone(),
                        key: key.clone().unwrap_or_default(),
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
        image: Some(ctx.profile.git_image.clone()),
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

fn plain(name: &str, value: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value: Some(value.into()),
        ..EnvVar::default()
    }
}
