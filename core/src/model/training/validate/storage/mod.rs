//! What a container mounts: data volumes, claims, git clones, config maps and secrets, host
//! paths, NFS exports and S3 buckets, and where each appears.

mod sources;

use self::sources::{git, host_paths, named_volumes, nfs, s3};
use super::is_uuid;
use super::spec::listed;
use crate::model::training::checked::{
    Claim, ConfigMapVolume, DataVolume, EmptyDir, NewClaim, Pvc, SecretVolume, Storage,
};
use crate::model::training::request::{self as r, ClaimInfo, Storage as RequestStorage};
use crate::model::training::values::{MountPath, ObjectName, Quantity};
use crate::model::validation::{Errors, all, index, join};
use std::collections::BTreeSet;

pub(super) fn storage_rules(
    errors: &mut Errors,
    s: &RequestStorage,
    path: &str,
) -> Option<Storage> {
    // Mount paths must be distinct across every kind of storage: the second mount would hide the
    // first. Their errors come after every other storage rule's.
    let mut mounts = Mounts::default();
    let at = |field: &str| join(path, field);
    let checked = (
        data_volumes(
            errors,
            listed(&s.data_volume),
            &at("dataVolume"),
            &mut mounts,
        ),
        pvcs(errors, listed(&s.pvc), &at("pvc"), &mut mounts),
        git(errors, listed(&s.git), &at("git"), &mut mounts),
        named_volumes(
            errors,
            (&at("configMapVolume"), "configMap"),
            listed(&s.config_map_volume)
                .iter()
                .map(|c| (c.config_map.as_str(), c.mount_path.as_str())),
            &mut mounts,
            |config_map, mount| ConfigMapVolume { config_map, mount },
        ),
        named_volumes(
            errors,
            (&at("secretVolume"), "secret"),
            listed(&s.secret_volume)
                .iter()
                .map(|v| (v.secret.as_str(), v.mount_path.as_str())),
            &mut mounts,
            |secret, mount| SecretVolume { secret, mount },
        ),
        host_paths(errors, listed(&s.host_path), &at("hostPath"), &mut mounts),
        nfs(errors, listed(&s.nfs), &at("nfs"), &mut mounts),
        s3(errors, listed(&s.s3), &at("s3"), &mut mounts),
        empty_dirs(
            errors,
            listed(&s.empty_dir_volume),
            &at("emptyDirVolume"),
            &mut mounts,
        ),
    );
    errors.absorb(mounts.errors);
    let (data_volumes, pvcs, git, config_maps, secrets, host_paths, nfs, s3, empty_dirs) = checked;
    Some(Storage {
        data_volumes: data_volumes?,
        pvcs: pvcs?,
        git: git?,
        config_maps: config_maps?,
        secrets: secrets?,
        host_paths: host_paths?,
        nfs: nfs?,
        s3: s3?,
        empty_dirs: empty_dirs?,
    })
}

/// Every mount path so far, and what is wrong with them.
#[derive(Default)]
pub(super) struct Mounts {
    seen: BTreeSet<String>,
    errors: Errors,
}

impl Mounts {
    /// The mount path at `field`, unless it is not one or another volume has it.
    pub(super) fn mount(&mut self, field: String, path: &str) -> Option<MountPath> {
        let mount = self.errors.take(&field, MountPath::new(path))?;
        if self.seen.insert(mount.bare().to_owned()) {
            Some(mount)
        } else {
            self.errors
                .add(field, format!("{path:?} is already used by another volume"));
            None
        }
    }
}

fn empty_dirs(
    errors: &mut Errors,
    dirs: &[r::EmptyDirVolume],
    path: &str,
    mounts: &mut Mounts,
) -> Option<Vec<EmptyDir>> {
    let mut checked = Vec::new();
    for (i, d) in dirs.iter().enumerate() {
        if d.exclude == Some(true) {
            continue;
        }
        let item = index(path, i);
        let before = errors.count();
        let in_memory = match d.medium.as_deref() {
            None | Some("") => false,
            Some("Memory") => true,
            Some(other) => {
                errors.add(
                    join(&item, "medium"),
                    format!("must be Memory, or left out for the node's disk (got {other:?})"),
                );
                false
            }
        };
        let size_limit = errors.take_some(
            join(&item, "sizeLimit"),
            d.size_limit.as_deref(),
            Quantity::positive,
        );
        let mount = match d.path.as_deref() {
            Some(p) => mounts.mount(join(&item, "path"), p),
            None => {
                errors.add(
                    join(&item, "path"),
                    "is required: where the directory is mounted",
                );
                None
            }
        };
        let ok = errors.count() == before;
        checked.push(
            mount
                .zip(size_limit)
                .filter(|_| ok)
                .map(|(mount, size_limit)| EmptyDir {
                    mount,
                    in_memory,
                    size_limit,
                }),
        );
    }
    all(checked)
}

fn data_volumes(
    errors: &mut Errors,
    volumes: &[r::DataVolume],
    path: &str,
    mounts: &mut Mounts,
) -> Option<Vec<DataVolume>> {
    let mut checked = Vec::new();
    for (i, d) in volumes.iter().enumerate() {
        let item = index(path, i);
        let id_ok = is_uuid(&d.id);
        if !id_ok {
            errors.add(
                join(&item, "id"),
                format!("must be the UUID of a data volume (got {:?})", d.id),
            );
        }
        let mount = mounts.mount(join(&item, "mountPath"), &d.mount_path);
        checked.push(mount.filter(|_| id_ok).map(|mount| DataVolume {
            id: d.id.clone(),
            mount,
        }));
    }
    all(checked)
}

fn pvcs(errors: &mut Errors, pvcs: &[r::Pvc], path: &str, mounts: &mut Mounts) -> Option<Vec<Pvc>> {
    let mut checked = Vec::new();
    for (i, p) in pvcs.iter().enumerate() {
        let item = index(path, i);
        let mount = mounts.mount(join(&item, "path"), &p.path);
        let name = errors.take_some(
            join(&item, "claimName"),
            p.claim_name.as_deref(),
            ObjectName::new,
        );
        let claim = if p.existing_pvc == Some(true) {
            existing_pvc(errors, p, &item, name)
        } else {
            match &p.claim_info {
                None => {
                    errors.add(join(&item, "claimInfo"), "is required to create a new claim (size, storageClass, accessModes); or set existingPvc to mount one that exists");
                    None
                }
                Some(info) => claim_info(errors, info, &join(&item, "claimInfo"))
                    .zip(name)
                    .map(|(spec, name)| Claim::New {
                        name,
                        ephemeral: p.ephemeral == Some(true),
                        spec,
                    }),
            }
        };
        checked.push(mount.zip(claim).map(|(mount, claim)| Pvc {
            mount,
            read_only: p.read_only == Some(true),
            claim,
        }));
    }
    all(checked)
}

fn existing_pvc(
    errors: &mut Errors,
    p: &r::Pvc,
    item: &str,
    name: Option<Option<ObjectName>>,
) -> Option<Claim> {
    let before = errors.count();
    if p.claim_name.is_none() {
        errors.add(
            join(item, "claimName"),
            "is required with existingPvc: the claim to mount",
        );
    }
    if p.claim_info.is_some() {
        errors.add(
            join(item, "claimInfo"),
            "must not be set with existingPvc: the claim already exists",
        );
    }
    if p.ephemeral == Some(true) {
        errors.add(join(item, "ephemeral"), "must not be true with existingPvc");
    }
    name.flatten()
        .filter(|_| errors.count() == before)
        .map(Claim::Existing)
}

/// The claim Tephra creates when the PVC is not an existing one.
fn claim_info(errors: &mut Errors, info: &ClaimInfo, info_path: &str) -> Option<NewClaim> {
    let size = match &info.size {
        None => {
            errors.add(join(info_path, "size"), "is required, e.g. 10Gi");
            None
        }
        Some(size) => errors.take(join(info_path, "size"), Quantity::positive(size)),
    };
    let storage_class = errors.take_some(
        join(info_path, "storageClass"),
        info.storage_class.as_deref(),
        ObjectName::new,
    );
    let modes = info.access_modes.clone().unwrap_or_default();
    let any_mode = [
        modes.read_write_once,
        modes.read_only_many,
        modes.read_write_many,
    ]
    .contains(&Some(true));
    if !any_mode {
        errors.add(
            join(info_path, "accessModes"),
            "must enable at least one of readWriteOnce, readOnlyMany, readWriteMany",
        );
    }
    Some(NewClaim {
        size: size?,
        storage_class: storage_class?,
        access_modes: Some(modes).filter(|_| any_mode)?,
        volume_mode: info.volume_mode,
    })
}

#[cfg(test)]
mod tests;
