//! The objects a workload has beside its Job: the S3 driver's Secrets, S3 volumes, PVCs,
//! Services and Ingresses. They are created before the Job (a pod must find its claims and
//! Services), live through a suspend, and are deleted after the Job and its pods are gone.

use super::apply::{create_owned, delete_owned, sign};
use super::error::{Error, Result};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim, Secret, Service};
use k8s_openapi::api::networking::v1::Ingress;
use kube::{Api, Client};
use std::collections::BTreeMap;
use tephra_core::domain::ownership::OwnerKey;
use tephra_core::domain::render::{ACCESS_KEY_ID, Rendered, S3Secret, SECRET_ACCESS_KEY};
use uuid::Uuid;

/// Creates what is missing of the objects beside the Job, each signed as the workload's.
pub async fn create(
    client: &Client,
    key: &OwnerKey,
    id: Uuid,
    namespace: &str,
    rendered: &mut Rendered,
) -> Result<()> {
    let secrets = Api::<Secret>::namespaced(client.clone(), namespace);
    for s3 in &mut rendered.s3_secrets {
        copy_keys(&secrets, namespace, s3).await?;
        sign(key, id, &mut s3.secret);
        create_owned(&secrets, key, id, &s3.secret).await?;
    }
    let c = || client.clone();
    let volumes = &mut rendered.persistent_volumes;
    create_all(Api::<PersistentVolume>::all(c()), key, id, volumes).await?;
    let claims = &mut rendered.persistent_volume_claims;
    create_all(Api::namespaced(c(), namespace), key, id, claims).await?;
    create_all(
        Api::namespaced(c(), namespace),
        key,
        id,
        &mut rendered.services,
    )
    .await?;
    create_all(
        Api::namespaced(c(), namespace),
        key,
        id,
        &mut rendered.ingresses,
    )
    .await?;
    Ok(())
}

/// Signs and creates each of `objects` that the workload does not have yet.
async fn create_all<K>(api: Api<K>, key: &OwnerKey, id: Uuid, objects: &mut [K]) -> Result<()>
where
    K: kube::Resource + Clone + serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
    K::DynamicType: Default,
{
    for object in objects {
        sign(key, id, object);
        create_owned(&api, key, id, object).await?;
    }
    Ok(())
}

/// Fills the driver's Secret with the request's keys under the names the driver reads. The
/// request's secret is read when the Job is created, so a missing secret or key is reported
/// then, beside the phase, and the next attempt finds it once it is there.
async fn copy_keys(secrets: &Api<Secret>, namespace: &str, s3: &mut S3Secret) -> Result<()> {
    let Some((from, [id_key, secret_key])) = &s3.copy else {
        return Ok(());
    };
    let missing = |key: Option<&str>| Error::MissingSecret {
        namespace: namespace.to_owned(),
        name: from.clone(),
        key: key.map(str::to_owned),
    };
    let source = secrets.get_opt(from).await?.ok_or_else(|| missing(None))?;
    let read = |key: &str| -> Result<ByteString> {
        let data = source.data.as_ref().and_then(|d| d.get(key).cloned());
        let string = || {
            let text = source.string_data.as_ref()?.get(key)?;
            Some(ByteString(text.clone().into_bytes()))
        };
        data.or_else(string).ok_or_else(|| missing(Some(key)))
    };
    let data = BTreeMap::from([
        (ACCESS_KEY_ID.to_owned(), read(id_key)?),
        (SECRET_ACCESS_KEY.to_owned(), read(secret_key)?),
    ]);
    s3.secret.data = Some(data);
    Ok(())
}

/// Deletes the objects beside the Job; returns how many were not being deleted yet.
pub async fn delete(client: &Client, namespace: &str, id: Uuid, key: &OwnerKey) -> Result<usize> {
    let c = || client.clone();
    let claims = delete_owned(
        Api::<PersistentVolumeClaim>::namespaced(c(), namespace),
        id,
        key,
    );
    let claims = claims.await?;
    // A released S3 volume keeps the bucket (Retain) and would linger: it is the workload's.
    let volumes = delete_owned(Api::<PersistentVolume>::all(c()), id, key).await?;
    let secrets = delete_owned(Api::<Secret>::namespaced(c(), namespace), id, key).await?;
    let services = delete_owned(Api::<Service>::namespaced(c(), namespace), id, key).await?;
    let ingresses = delete_owned(Api::<Ingress>::namespaced(c(), namespace), id, key).await?;
    Ok(claims + volumes + secrets + services + ingresses)
}
