//! What the chart's service account is granted, tried as the account against the testbed's API
//! server: each dangerous use of a granted verb is refused (by RBAC where it can say so, else by
//! the chart's admission policies) and leaves nothing behind; what Tephra does still works.

use crate::namespaces::{PREFIX, delete_namespaces, project_namespace, suffix};
use anyhow::{Context, anyhow, ensure};
use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::api::core::v1::{Namespace, PersistentVolume, Secret};
use k8s_openapi::api::rbac::v1::RoleBinding;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, Resource};
use serde_json::{Value, json};
use std::sync::Arc;
use tephra_tests::chart::RELEASE_NAMESPACE;
use tephra_tests::service_account::ChartAccount;
use tephra_tests::testbed::{Testbed, job_resource};

/// Tephra's labels and a signature annotation (the policies check it is there; only Tephra can
/// check it verifies), so a refusal is for the one thing a case gets wrong.
fn tephra_meta(name: &str) -> Value {
    json!({
        "name": name,
        "labels": { "app.kubernetes.io/managed-by": "tephra",
                    "tephra.dev/workload-id": "00000000-0000-0000-0000-000000000001" },
        "annotations": { "tephra.dev/owner": "00" },
    })
}

/// The request was refused with 403, by RBAC or an admission policy.
fn forbidden<T>(result: Result<T, kube::Error>, what: &str) -> anyhow::Result<()> {
    match result {
        Err(kube::Error::Api(status)) if status.code == 403 => Ok(()),
        Err(e) => Err(anyhow!("{what}: expected 403, got {e}")),
        Ok(_) => Err(anyhow!("{what}: the API server allowed it")),
    }
}

/// Creating `object` as the account in `namespace` is refused, and nothing of that name is there.
async fn create_refused<K>(
    account: &Client,
    admin: &Client,
    namespace: &str,
    object: Value,
    what: &str,
) -> anyhow::Result<()>
where
    K: Resource<Scope = NamespaceResourceScope>
        + Clone
        + serde::Serialize
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
    K::DynamicType: Default,
{
    let object: K = serde_json::from_value(object)?;
    let name = object.meta().name.clone().unwrap_or_default();
    let result = Api::<K>::namespaced(account.clone(), namespace)
        .create(&PostParams::default(), &object)
        .await;
    forbidden(result, what)?;
    let left = Api::<K>::namespaced(admin.clone(), namespace)
        .get_opt(&name)
        .await?;
    ensure!(left.is_none(), "{what}: {name} exists in {namespace}");
    Ok(())
}

pub async fn the_chart_account_is_refused_each_dangerous_use_of_what_it_is_granted(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let account = ChartAccount::install(&tb).await?;
    let (client, admin) = (account.client().await?, tb.client().await?);
    let project = project_namespace(&account, "boundary").await?;
    let result = async {
        secrets_refused(&client, &admin, &project).await?;
        namespaces_refused(&client, &admin).await?;
        jobs_refused(&client, &admin, &project).await?;
        volumes_refused(&client, &admin, &project).await?;
        bindings_refused(&client, &admin, &account, &project).await
    }
    .await;
    delete_namespaces(&admin, &[&project]).await;
    result
}

async fn secrets_refused(client: &Client, admin: &Client, project: &str) -> anyhow::Result<()> {
    let token = |name: &str| {
        let mut meta = tephra_meta(name);
        meta["annotations"]["kubernetes.io/service-account.name"] = json!("default");
        json!({ "metadata": meta, "type": "kubernetes.io/service-account-token" })
    };
    for namespace in ["default", "kube-system", project] {
        let what = format!("a service-account token Secret in {namespace}");
        create_refused::<Secret>(client, admin, namespace, token("minted"), &what).await?;
    }
    let unlabelled = json!({ "metadata": { "name": "bare", "annotations": {
        "tephra.dev/owner": "00" } }, "type": "Opaque" });
    let what = "an unlabelled Secret in a project namespace";
    create_refused::<Secret>(client, admin, project, unlabelled, what).await?;
    let tls = json!({ "metadata": tephra_meta("tls"), "type": "kubernetes.io/tls",
        "data": { "tls.crt": "", "tls.key": "" } });
    create_refused::<Secret>(client, admin, project, tls, "a TLS Secret").await?;
    let opaque = json!({ "metadata": tephra_meta("elsewhere"), "type": "Opaque" });
    let what = "an Opaque Secret in default";
    create_refused::<Secret>(client, admin, "default", opaque, what).await?;
    let what = "an Opaque Secret in the release namespace";
    let opaque = json!({ "metadata": tephra_meta("elsewhere"), "type": "Opaque" });
    create_refused::<Secret>(client, admin, RELEASE_NAMESPACE, opaque, what).await?;
    let kube_system = Api::<Secret>::namespaced(client.clone(), "kube-system");
    forbidden(
        kube_system.get("anything").await,
        "reading a Secret in kube-system",
    )?;
    let listed = Api::<Secret>::all(client.clone())
        .list(&ListParams::default())
        .await;
    forbidden(listed, "listing Secrets in every namespace")?;
    let listed = Api::<Secret>::namespaced(client.clone(), "default")
        .list(&ListParams::default())
        .await;
    forbidden(listed, "listing Secrets in default")?;
    // A user's own Secret in the project namespace (the S3 keys a request names) is read, never
    // deleted: Tephra deletes only what it signed.
    let users: Secret = serde_json::from_value(json!({ "metadata": { "name": "s3-keys" },
        "stringData": { "key": "value" } }))?;
    Api::<Secret>::namespaced(admin.clone(), project)
        .create(&PostParams::default(), &users)
        .await?;
    let secrets = Api::<Secret>::namespaced(client.clone(), project);
    secrets
        .get("s3-keys")
        .await
        .context("reading a user's S3 keys")?;
    let deleted = secrets.delete("s3-keys", &DeleteParams::default()).await;
    forbidden(deleted, "deleting a Secret Tephra did not sign")?;
    Ok(())
}

async fn namespaces_refused(client: &Client, admin: &Client) -> anyhow::Result<()> {
    let namespaces = Api::<Namespace>::all(client.clone());
    let admins = Api::<Namespace>::all(admin.clone());
    for name in ["kube-system", "default", RELEASE_NAMESPACE] {
        let before = admins.get(name).await?;
        let patch = json!({ "metadata": { "labels": {
            "pod-security.kubernetes.io/enforce": "privileged" } } });
        let result = namespaces
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await;
        forbidden(result, &format!("relabelling {name}"))?;
        let after = admins.get(name).await?;
        ensure!(
            after.metadata.labels == before.metadata.labels,
            "{name}'s labels changed"
        );
    }
    for (name, signed, what) in [
        (
            format!("boundary-{}", suffix()),
            true,
            "a namespace without the prefix",
        ),
        (
            format!("{PREFIX}unsigned-{}", suffix()),
            false,
            "a namespace without the signature",
        ),
    ] {
        let mut meta = json!({ "name": name });
        if signed {
            meta["annotations"] = json!({ "tephra.dev/owner": "00" });
        }
        let namespace: Namespace = serde_json::from_value(json!({ "metadata": meta }))?;
        let result = namespaces.create(&PostParams::default(), &namespace).await;
        forbidden(result, what)?;
        ensure!(
            admins.get_opt(&name).await?.is_none(),
            "{what}: {name} exists"
        );
    }
    Ok(())
}

/// A Volcano Job as Tephra renders one (the fields its CRD requires), with `meta`.
fn job(namespace: &str, meta: Value) -> anyhow::Result<DynamicObject> {
    let mut meta = meta;
    meta["namespace"] = json!(namespace);
    Ok(serde_json::from_value(json!({
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": meta,
        "spec": { "schedulerName": "volcano", "minAvailable": 1,
                  "tasks": [{ "name": "w", "replicas": 1, "template": { "spec": {
                      "restartPolicy": "Never",
                      "containers": [{ "name": "w", "image": "busybox" }] } } }] }
    }))?)
}

async fn jobs_refused(client: &Client, admin: &Client, project: &str) -> anyhow::Result<()> {
    let unsigned = json!({ "name": "unsigned",
        "labels": { "app.kubernetes.io/managed-by": "tephra" } });
    for (namespace, meta, what) in [
        (
            "default",
            tephra_meta("elsewhere"),
            "a Volcano Job in default",
        ),
        (
            project,
            unsigned,
            "an unsigned Volcano Job in a project namespace",
        ),
    ] {
        let object = job(namespace, meta)?;
        let name = object.metadata.name.clone().unwrap_or_default();
        let jobs =
            Api::<DynamicObject>::namespaced_with(client.clone(), namespace, &job_resource());
        forbidden(jobs.create(&PostParams::default(), &object).await, what)?;
        let admins =
            Api::<DynamicObject>::namespaced_with(admin.clone(), namespace, &job_resource());
        ensure!(admins.get_opt(&name).await?.is_none(), "{what}: it exists");
    }
    Ok(())
}

/// An S3 volume as Tephra renders one (`domain::render::s3`), bound to a claim in `project`,
/// with the driver's Secret in `secrets`.
pub fn s3_volume(name: &str, project: &str, secrets: &str) -> Value {
    let secret = json!({ "name": "keys", "namespace": secrets });
    json!({
        "metadata": tephra_meta(name),
        "spec": { "capacity": { "storage": "1Ti" }, "accessModes": ["ReadWriteMany"],
                  "storageClassName": "", "persistentVolumeReclaimPolicy": "Retain",
                  "claimRef": { "namespace": project, "name": name },
                  "csi": { "driver": "ru.yandex.s3.csi", "volumeHandle": "bucket",
                           "nodeStageSecretRef": secret, "nodePublishSecretRef": secret } }
    })
}

async fn volumes_refused(client: &Client, admin: &Client, project: &str) -> anyhow::Result<()> {
    let host = format!("tephra-host-{}", suffix());
    let host_path = json!({
        "metadata": tephra_meta(&host),
        "spec": { "capacity": { "storage": "1Gi" }, "accessModes": ["ReadWriteOnce"],
                  "hostPath": { "path": "/" },
                  "claimRef": { "namespace": project, "name": "root" } }
    });
    let nfs = format!("tephra-nfs-{}", suffix());
    let mut other_driver = s3_volume(&nfs, project, project);
    other_driver["spec"]["csi"]["driver"] = json!("nfs.csi.k8s.io");
    let stolen = format!("tephra-stolen-{}", suffix());
    let unbound = format!("tephra-unbound-{}", suffix());
    let mut no_claim = s3_volume(&unbound, project, project);
    no_claim["spec"]
        .as_object_mut()
        .map(|spec| spec.remove("claimRef"));
    for (name, volume, what) in [
        (&host, host_path, "a hostPath volume"),
        (&nfs, other_driver, "a volume of another CSI driver"),
        (
            &stolen,
            s3_volume(&stolen, project, "kube-system"),
            "an S3 volume reading kube-system's Secrets",
        ),
        (&unbound, no_claim, "an S3 volume any claim could bind"),
    ] {
        let volume: PersistentVolume = serde_json::from_value(volume)?;
        let result = Api::<PersistentVolume>::all(client.clone())
            .create(&PostParams::default(), &volume)
            .await;
        forbidden(result, what)?;
        let left = Api::<PersistentVolume>::all(admin.clone())
            .get_opt(name)
            .await?;
        ensure!(left.is_none(), "{what}: {name} exists");
    }
    Ok(())
}

async fn bindings_refused(
    client: &Client,
    admin: &Client,
    account: &ChartAccount,
    project: &str,
) -> anyhow::Result<()> {
    let binding = |role: &str, account_name: &str| {
        let mut meta = tephra_meta("escalated");
        meta.as_object_mut().map(|m| m.remove("labels"));
        json!({
            "metadata": meta,
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role },
            "subjects": [{ "kind": "ServiceAccount", "name": account_name,
                           "namespace": account.namespace }],
        })
    };
    let project_role = account.project_role.clone();
    for (namespace, object, what) in [
        (
            project,
            binding("cluster-admin", &account.name),
            "binding cluster-admin in a project namespace",
        ),
        (
            "default",
            binding("cluster-admin", &account.name),
            "binding cluster-admin in default",
        ),
        (
            "default",
            binding(&project_role, &account.name),
            "binding the project role in default",
        ),
        (
            "kube-system",
            binding(&project_role, &account.name),
            "binding the project role in kube-system",
        ),
        (
            RELEASE_NAMESPACE,
            binding(&project_role, &account.name),
            "binding the project role in the release namespace",
        ),
        (
            project,
            binding(&project_role, "default"),
            "binding the project role for another account",
        ),
        (
            project,
            binding("edit", &account.name),
            "binding another role",
        ),
    ] {
        create_refused::<RoleBinding>(client, admin, namespace, object, what).await?;
    }
    Ok(())
}

pub async fn the_chart_account_may_still_do_what_tephra_does_in_its_namespaces(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let account = ChartAccount::install(&tb).await?;
    let (client, admin) = (account.client().await?, tb.client().await?);
    let project = project_namespace(&account, "allowed").await?;
    let result = async {
        let secrets = Api::<Secret>::namespaced(client.clone(), &project);
        let secret: Secret = serde_json::from_value(json!({ "metadata": tephra_meta("s3-copy"),
            "type": "Opaque", "stringData": { "endpoint": "https://s3.example.org" } }))?;
        secrets
            .create(&PostParams::default(), &secret)
            .await
            .context("a signed, labelled Opaque Secret in a project namespace")?;
        secrets.get("s3-copy").await?;
        secrets.delete("s3-copy", &DeleteParams::default()).await?;
        let name = format!("tephra-s3-{}", suffix());
        let volume: PersistentVolume =
            serde_json::from_value(s3_volume(&name, &project, &project))?;
        let volumes = Api::<PersistentVolume>::all(client.clone());
        volumes
            .create(&PostParams::default(), &volume)
            .await
            .context("a signed S3 volume bound to a claim in a project namespace")?;
        volumes.delete(&name, &DeleteParams::default()).await?;
        Ok(())
    }
    .await;
    delete_namespaces(&admin, &[&project]).await;
    result
}
