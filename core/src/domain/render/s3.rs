//! S3 buckets for the k8s-csi-s3 driver (`ru.yandex.s3.csi`, yandex-cloud/k8s-csi-s3), as its
//! documentation mounts an existing bucket: a static PersistentVolume whose `volumeHandle` is the
//! bucket, bound to a claim the pod mounts. The driver takes no inline volumes (it stages every
//! volume), and it reads the credentials and the endpoint from one Secret under fixed key names,
//! so Tephra writes that Secret from the request's (see [`S3Secret`]).

use super::pod::PodContext;
use super::rendered::S3Secret;
use super::storage::StorageObjects;
use crate::domain::labels::Owner;
use crate::model::training::checked::S3;
use k8s_openapi::api::core::v1::*;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// The keys the driver reads from its Secret.
pub const ACCESS_KEY_ID: &str = "accessKeyID";
pub const SECRET_ACCESS_KEY: &str = "secretAccessKey";
pub const ENDPOINT: &str = "endpoint";
/// The driver's recommended mounter.
const MOUNTER: &str = "geesefs";
/// A bucket has no size; the volume and its claim must still state one, and they must agree.
const CAPACITY: &str = "1Ti";

/// The pod's volume for bucket `i` of the task's spec, and what it needs beside the Job: the
/// PersistentVolume (cluster-wide, so named by the workload's id), its claim and the Secret.
pub(super) fn volume(i: usize, b: &S3, ctx: &PodContext<'_>, out: &mut StorageObjects) -> Volume {
    let workload = ctx.target.workload;
    let name = format!("{}-{}-s3-{i}", workload.job_name, ctx.task);
    let volume_name = format!("tephra-{}-{}-s3-{i}", workload.id, ctx.task);
    let secret = secret(&name, b, workload);
    let secret_ref = secret.as_ref().map(|_| SecretReference {
        name: Some(name.clone()),
        namespace: Some(workload.namespace.clone()),
    });
    out.volumes.push(PersistentVolume {
        metadata: meta(&volume_name, None, workload),
        spec: Some(PersistentVolumeSpec {
            capacity: Some(capacity()),
            access_modes: Some(vec!["ReadWriteMany".into()]),
            storage_class_name: Some(String::new()),
            // The bucket is the user's: releasing the volume must not empty it.
            persistent_volume_reclaim_policy: Some("Retain".into()),
            claim_ref: Some(ObjectReference {
                namespace: Some(workload.namespace.clone()),
                name: Some(name.clone()),
                ..ObjectReference::default()
            }),
            csi: Some(CSIPersistentVolumeSource {
                driver: ctx.target.profile.s3_csi_driver.clone(),
                volume_handle: b.bucket.clone(),
                volume_attributes: Some(BTreeMap::from([("mounter".into(), MOUNTER.into())])),
                node_stage_secret_ref: secret_ref.clone(),
                node_publish_secret_ref: secret_ref,
                ..CSIPersistentVolumeSource::default()
            }),
            ..PersistentVolumeSpec::default()
        }),
        ..PersistentVolume::default()
    });
    out.claims.push(PersistentVolumeClaim {
        metadata: meta(&name, Some(&workload.namespace), workload),
        spec: Some(PersistentVolumeClaimSpec {
            access_modes: Some(vec!["ReadWriteMany".into()]),
            // Empty: no provisioner; the claim binds the volume above, named both ways.
            storage_class_name: Some(String::new()),
            volume_name: Some(volume_name),
            resources: Some(VolumeResourceRequirements {
                requests: Some(capacity()),
                ..VolumeResourceRequirements::default()
            }),
            ..PersistentVolumeClaimSpec::default()
        }),
        ..PersistentVolumeClaim::default()
    });
    out.secrets.extend(secret);
    Volume {
        name: format!("s3-{i}"),
        persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
            claim_name: name,
            read_only: None,
        }),
        ..Volume::default()
    }
}

/// The driver's Secret: the endpoint from `url`, and the keys copied from the request's secret.
/// None when there is neither (a public bucket at the driver's default endpoint).
fn secret(name: &str, b: &S3, workload: &Owner) -> Option<S3Secret> {
    if b.url.is_none() && b.credentials.is_none() {
        return None;
    }
    let copy = b.credentials.as_ref().map(|c| {
        let [id, key] = &c.keys;
        (c.secret.to_string(), [id.clone(), key.clone()])
    });
    let mut annotations = workload.annotations();
    if let Some((from, [id, key])) = &copy {
        // Says in the object where its keys come from, for whoever reads the YAML or the cluster.
        annotations.insert(
            COPIED_FROM.into(),
            format!("{from}: {id} as {ACCESS_KEY_ID}, {key} as {SECRET_ACCESS_KEY}"),
        );
    }
    Some(S3Secret {
        secret: Secret {
            metadata: ObjectMeta {
                annotations: Some(annotations),
                ..meta(name, Some(&workload.namespace), workload)
            },
            string_data: b
                .url
                .as_ref()
                .map(|url| BTreeMap::from([(ENDPOINT.to_owned(), url.clone())])),
            type_: Some("Opaque".into()),
            ..Secret::default()
        },
        copy,
    })
}

/// The annotation on the driver's Secret naming the request's secret and keys it copies.
pub const COPIED_FROM: &str = "tephra.dev/s3-keys-from";

fn capacity() -> BTreeMap<String, Quantity> {
    BTreeMap::from([("storage".to_owned(), Quantity(CAPACITY.into()))])
}

fn meta(name: &str, namespace: Option<&str>, workload: &Owner) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: namespace.map(str::to_owned),
        labels: Some(workload.labels()),
        annotations: Some(workload.annotations()),
        ..ObjectMeta::default()
    }
}
