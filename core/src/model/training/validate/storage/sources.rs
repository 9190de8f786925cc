//! Volume sources besides data volumes and claims: git clones, config maps and secrets, host
//! paths, NFS exports and S3 buckets, each with its mount path checked against the others.

use super::Mounts;
use crate::model::training::checked::{Git, HostPath, Nfs, S3, SecretKeys};
use crate::model::training::request::{self as r, MountPropagation};
use crate::model::training::values::{AbsolutePath, MountPath, ObjectName};
use crate::model::validation::{self as v, Errors, all, index, join};

pub(super) fn git(
    errors: &mut Errors,
    repos: &[r::Git],
    path: &str,
    mounts: &mut Mounts,
) -> Option<Vec<Git>> {
    let mut checked = Vec::new();
    for (i, g) in repos.iter().enumerate() {
        let before = errors.count();
        let item = index(path, i);
        let mount = mounts.mount(join(&item, "path"), &g.path);
        match g.repository.as_deref() {
            None | Some("") => errors.add(
                join(&item, "repository"),
                "is required: the URL to clone, e.g. https://github.com/org/repo.git",
            ),
            Some(url)
                if !(url.starts_with("https://")
                    || url.starts_with("http://")
                    || url.starts_with("ssh://")
                    || url.starts_with("git@")) =>
            {
                errors.add(
                    join(&item, "repository"),
                    format!("must be an https://, http://, ssh:// or git@ URL (got {url:?})"),
                )
            }
            Some(_) => {}
        }
        for (field, value) in [("branch", &g.branch), ("revision", &g.revision)] {
            if let Some(value) = value
                && (value.is_empty()
                    || value.starts_with('-')
                    || value.contains(char::is_whitespace))
            {
                errors.add(join(&item, field), format!("must be a git ref name without spaces, not starting with '-' (got {value:?})"));
            }
        }
        let credentials = secret_with_keys(
            errors,
            &item,
            ("passwordSecret", g.password_secret.as_deref()),
            [
                ("secretKeyOfUser", &g.secret_key_of_user),
                ("secretKeyOfPassword", &g.secret_key_of_password),
            ],
        );
        let repository = g.repository.clone().filter(|_| errors.count() == before);
        checked.push(mount.zip(repository).zip(credentials).map(
            |((mount, repository), credentials)| Git {
                repository,
                branch: g.branch.clone(),
                revision: g.revision.clone(),
                mount,
                credentials,
            },
        ));
    }
    all(checked)
}

/// Config map or secret volumes: each names an object (in `field`) and where it is mounted.
pub(super) fn named_volumes<'a, T>(
    errors: &mut Errors,
    (path, field): (&str, &str),
    volumes: impl Iterator<Item = (&'a str, &'a str)>,
    mounts: &mut Mounts,
    volume: fn(ObjectName, MountPath) -> T,
) -> Option<Vec<T>> {
    let mut checked = Vec::new();
    for (i, (name, mount_path)) in volumes.enumerate() {
        let item = index(path, i);
        let name = errors.take(join(&item, field), ObjectName::new(name));
        let mount = mounts.mount(join(&item, "mountPath"), mount_path);
        checked.push(name.zip(mount).map(|(name, mount)| volume(name, mount)));
    }
    all(checked)
}

pub(super) fn host_paths(
    errors: &mut Errors,
    paths: &[r::HostPath],
    path: &str,
    mounts: &mut Mounts,
) -> Option<Vec<HostPath>> {
    let mut checked = Vec::new();
    for (i, h) in paths.iter().enumerate() {
        let item = index(path, i);
        let host = errors.take(join(&item, "path"), AbsolutePath::new(&h.path));
        let mount = mounts.mount(join(&item, "mountPath"), &h.mount_path);
        let propagation_ok = h.mount_propagation != Some(MountPropagation::Bidirectional);
        if !propagation_ok {
            errors.add(join(&item, "mountPropagation"), "Bidirectional needs a privileged container, which Tephra does not run; use None or HostToContainer");
        }
        checked.push(
            host.zip(mount)
                .filter(|_| propagation_ok)
                .map(|(path, mount)| HostPath {
                    path,
                    mount,
                    read_only: h.read_only == Some(true),
                    propagation: h.mount_propagation,
                }),
        );
    }
    all(checked)
}

pub(super) fn nfs(
    errors: &mut Errors,
    exports: &[r::Nfs],
    path: &str,
    mounts: &mut Mounts,
) -> Option<Vec<Nfs>> {
    let mut checked = Vec::new();
    for (i, n) in exports.iter().enumerate() {
        let item = index(path, i);
        let export = errors.take(join(&item, "path"), AbsolutePath::new(&n.path));
        let server_ok = !(n.server.is_empty()
            || n.server.contains(char::is_whitespace)
            || n.server.contains('/'));
        if !server_ok {
            errors.add(
                join(&item, "server"),
                format!("must be a host name or IP address (got {:?})", n.server),
            );
        }
        let mount = mounts.mount(join(&item, "mountPath"), &n.mount_path);
        checked.push(
            export
                .zip(mount)
                .filter(|_| server_ok)
                .map(|(path, mount)| Nfs {
                    server: n.server.clone(),
                    path,
                    mount,
                    read_only: n.read_only,
                }),
        );
    }
    all(checked)
}

pub(super) fn s3(
    errors: &mut Errors,
    buckets: &[r::S3],
    path: &str,
    mounts: &mut Mounts,
) -> Option<Vec<S3>> {
    let mut checked = Vec::new();
    for (i, b) in buckets.iter().enumerate() {
        let before = errors.count();
        let item = index(path, i);
        if b.bucket.len() < 3 || b.bucket.len() > 63 || v::dns1123_subdomain(&b.bucket).is_err() {
            errors.add(join(&item, "bucket"), format!("must be an S3 bucket name: 3 to 63 lowercase letters, digits, '-' or '.' (got {:?})", b.bucket));
        }
        let mount = mounts.mount(join(&item, "path"), &b.path);
        if let Some(url) = &b.url
            && !(url.starts_with("https://") || url.starts_with("http://"))
        {
            errors.add(
                join(&item, "url"),
                format!("must be an http:// or https:// URL (got {url:?})"),
            );
        }
        let credentials = secret_with_keys(
            errors,
            &item,
            ("accessKeySecret", b.access_key_secret.as_deref()),
            [
                ("secretKeyOfAccessKeyId", &b.secret_key_of_access_key_id),
                ("secretKeyOfSecretKey", &b.secret_key_of_secret_key),
            ],
        );
        let ok = errors.count() == before;
        checked.push(
            mount
                .zip(credentials)
                .filter(|_| ok)
                .map(|(mount, credentials)| S3 {
                    bucket: b.bucket.clone(),
                    mount,
                    url: b.url.clone(),
                    credentials,
                }),
        );
    }
    all(checked)
}

/// A secret reference and the keys read from it, all of which must be named; `Some(None)` when
/// there is no secret.
pub(super) fn secret_with_keys(
    errors: &mut Errors,
    item: &str,
    (secret_field, secret): (&str, Option<&str>),
    keys: [(&str, &Option<String>); 2],
) -> Option<Option<SecretKeys>> {
    let Some(secret) = secret else {
        return Some(None);
    };
    let secret = errors.take(join(item, secret_field), ObjectName::new(secret));
    let keys = keys.map(|(field, key)| match key {
        Some(key) => errors
            .take(join(item, field), v::config_key(key))
            .map(|()| key.clone()),
        None => {
            errors.add(
                join(item, field),
                format!("is required with {secret_field}"),
            );
            None
        }
    });
    let [first, second] = keys;
    Some(Some(SecretKeys {
        secret: secret?,
        keys: [first?, second?],
    }))
}
