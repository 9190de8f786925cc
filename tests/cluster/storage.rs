//! Storage that mounts on the testbed, as far as fake nodes allow: every claim a training uses is
//! created and bound by the cluster's own volume controllers (the testbed provisions its default
//! class), the pod is bound with each volume referring to the right object, an S3 bucket is a
//! static volume for the k8s-csi-s3 driver with the keys the driver reads, and the workload's
//! objects go with it while the user's own claims stay.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{
    ConfigMap, Namespace, PersistentVolume, PersistentVolumeClaim, Pod, Secret, Volume,
};
use kube::Api;
use kube::api::{ListParams, PostParams};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

const DATA_VOLUME: &str = "6b0d2f6e-3c1a-4e8e-9d36-5a4f3f7c1b20";

pub async fn every_kind_of_storage_is_created_bound_and_mounted(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    // The bucket's endpoint is one the profile offers: node protection refuses any other.
    let profile = format!(
        "dataVolumes:\n  {DATA_VOLUME}: imagenet\ns3Endpoints: [\"http://minio.lab:9000\"]\n"
    );
    let (t, _profile) = Tephra::start_with_profile(&tb, &ns, &profile).await?;
    let result = async {
        let ns = t.namespace();
        users_objects(&t, &ns).await?;
        let mut body = training("storage", 0);
        body["spec"]["storage"] = json!({
            "dataVolume": [{ "id": DATA_VOLUME, "mountPath": "/data/imagenet" }],
            "pvc": [
                { "existingPvc": true, "claimName": "shared", "path": "/shared" },
                { "existingPvc": false, "path": "/scratch",
                  "claimInfo": { "size": "1Gi", "accessModes": { "readWriteOnce": true } } },
                { "existingPvc": false, "ephemeral": true, "path": "/per-pod",
                  "claimInfo": { "size": "1Gi", "storageClass": "standard",
                                 "accessModes": { "readWriteOnce": true } } }],
            "git": [{ "repository": "https://github.com/org/repo.git", "branch": "main",
                      "path": "/code" }],
            "s3": [{ "bucket": "my-bucket", "path": "/s3", "url": "http://minio.lab:9000",
                     "accessKeySecret": "s3-keys", "secretKeyOfAccessKeyId": "AccessKeyId",
                     "secretKeyOfSecretKey": "SecretKey" }],
        });
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let pods = t.pods_of(&id).await?;
        let pod = pods.first().context("a pod")?;
        ensure!(pods.len() == 1 && bound(pod), "the pod is bound: {pods:?}");
        let job = pod_volumes(pod);
        let claim_of = |name: &str| {
            job.get(name)
                .and_then(|v| v.persistent_volume_claim.as_ref())
                .map(|c| (c.claim_name.clone(), c.read_only == Some(true)))
        };
        let job_name = "storage";
        ensure!(
            claim_of("data-0") == Some(("imagenet".into(), true)),
            "{job:?}"
        );
        ensure!(
            claim_of("pvc-0") == Some(("shared".into(), false)),
            "{job:?}"
        );
        ensure!(
            claim_of("pvc-1") == Some((format!("{job_name}-pvc-1"), false)),
            "{job:?}"
        );
        ensure!(
            claim_of("s3-0") == Some((format!("{job_name}-train-s3-0"), false)),
            "{job:?}"
        );
        ensure!(job.get("pvc-2").is_some_and(|v| v.ephemeral.is_some()));
        ensure!(job.get("git-0").is_some_and(|v| v.empty_dir.is_some()));
        let clone = pod
            .spec
            .as_ref()
            .and_then(|s| s.init_containers.as_ref())
            .and_then(|c| c.first())
            .context("the git clone runs first")?;
        let env: Vec<_> = clone
            .env
            .iter()
            .flatten()
            .map(|e| (&e.name, &e.value))
            .collect();
        ensure!(
            env.contains(&(
                &"GIT_REPOSITORY".to_owned(),
                &Some("https://github.com/org/repo.git".to_owned())
            )),
            "{env:?}"
        );

        // Every claim the pod uses is bound, the per-pod one included.
        let claims: Api<PersistentVolumeClaim> = Api::namespaced(t.kube.clone(), &ns);
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        for name in [
            "imagenet".to_owned(),
            "shared".into(),
            format!("{job_name}-pvc-1"),
            format!("{pod_name}-pvc-2"),
            format!("{job_name}-train-s3-0"),
        ] {
            let claim = claims.get(&name).await.with_context(|| name.clone())?;
            let phase = claim.status.and_then(|s| s.phase);
            ensure!(phase.as_deref() == Some("Bound"), "{name} is {phase:?}");
        }

        // The bucket: a static volume for the driver, bound to the claim, its Secret holding the
        // request's keys under the driver's names, and the endpoint.
        let volumes: Api<PersistentVolume> = Api::all(t.kube.clone());
        let volume = volumes.get(&format!("tephra-{id}-train-s3-0")).await?;
        let spec = volume.spec.clone().context("spec")?;
        let csi = spec.csi.context("a CSI volume")?;
        ensure!(csi.driver == "ru.yandex.s3.csi" && csi.volume_handle == "my-bucket");
        let secret_name = format!("{job_name}-train-s3-0");
        for reference in [&csi.node_stage_secret_ref, &csi.node_publish_secret_ref] {
            let reference = reference.as_ref().context("secret reference")?;
            ensure!(reference.name.as_deref() == Some(secret_name.as_str()));
            ensure!(reference.namespace.as_deref() == Some(ns.as_str()));
        }
        let phase = volume.status.and_then(|s| s.phase);
        ensure!(
            phase.as_deref() == Some("Bound"),
            "the S3 volume is {phase:?}"
        );
        let secrets: Api<Secret> = Api::namespaced(t.kube.clone(), &ns);
        let data = secrets.get(&secret_name).await?.data.unwrap_or_default();
        let text = |key: &str| {
            data.get(key)
                .map(|b| String::from_utf8_lossy(&b.0).into_owned())
        };
        ensure!(
            (
                text("accessKeyID"),
                text("secretAccessKey"),
                text("endpoint")
            ) == (
                Some("AKIA-TEST".into()),
                Some("s3cr3t".into()),
                Some("http://minio.lab:9000".into())
            ),
            "{:?}",
            data.keys().collect::<Vec<_>>()
        );

        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        ensure!(status == 202);
        t.wait_gone(TRAININGS, &id).await?;
        let selector = ListParams::default().labels(&format!("tephra.dev/workload-id={id}"));
        let left_volumes = volumes.list(&selector).await?.items;
        ensure!(
            left_volumes
                .iter()
                .all(|v| v.metadata.deletion_timestamp.is_some()),
            "the S3 volume goes with the workload: {left_volumes:?}"
        );
        ensure!(
            secrets.list(&selector).await?.items.is_empty(),
            "the driver's Secret goes too"
        );
        let left_claims = claims.list(&selector).await?.items;
        ensure!(
            left_claims
                .iter()
                .all(|c| c.metadata.deletion_timestamp.is_some()),
            "the claims Tephra made go"
        );
        for name in ["imagenet", "shared"] {
            let claim = claims.get(name).await?;
            ensure!(
                claim.metadata.deletion_timestamp.is_none(),
                "{name} is the user's; it stays"
            );
        }
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// An S3 volume whose secret is not there yet waits with the reason, and runs once it is.
pub async fn an_s3_volume_waits_for_its_secret_and_runs_once_it_exists(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("s3-late", 0);
        body["spec"]["storage"] = json!({ "s3": [{
            "bucket": "late-bucket", "path": "/s3", "accessKeySecret": "late-keys",
            "secretKeyOfAccessKeyId": "id", "secretKeyOfSecretKey": "key" }] });
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        let waiting = t
            .wait_until(TRAININGS, &id, "the missing secret to be named", |b| {
                b["phaseMessage"]
                    .as_str()
                    .is_some_and(|m| m.contains("late-keys") && m.contains("does not exist"))
            })
            .await?;
        ensure!(
            t.jobs_of(&id).await?.is_empty(),
            "no Job without its volume: {waiting}"
        );
        let ns = t.namespace();
        let secret = secret("late-keys", [("id", "AKIA-LATE"), ("key", "late")]);
        Api::<Secret>::namespaced(t.kube.clone(), &ns)
            .create(&PostParams::default(), &secret)
            .await?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        ensure!(status == 202);
        t.wait_gone(TRAININGS, &id).await?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// What the user has in the project's namespace before submitting: a claim of their own, the
/// claim an administrator registered as a data volume, and the S3 keys under their own names.
async fn users_objects(t: &Tephra, ns: &str) -> anyhow::Result<()> {
    project_namespace(t).await?;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(t.kube.clone(), ns);
    for name in ["imagenet", "shared"] {
        let claim: PersistentVolumeClaim = serde_json::from_value(json!({
            "metadata": { "name": name },
            "spec": { "accessModes": ["ReadWriteMany"],
                      "resources": { "requests": { "storage": "5Gi" } } } }))?;
        claims.create(&PostParams::default(), &claim).await?;
    }
    let keys = secret(
        "s3-keys",
        [("AccessKeyId", "AKIA-TEST"), ("SecretKey", "s3cr3t")],
    );
    Api::<Secret>::namespaced(t.kube.clone(), ns)
        .create(&PostParams::default(), &keys)
        .await?;
    Ok(())
}

/// The project's namespace, for what a user keeps there: Tephra makes it (signed) when it
/// starts; one made by hand first would be refused as not Tephra's.
pub(crate) async fn project_namespace(t: &Tephra) -> anyhow::Result<()> {
    let name = t.namespace();
    let namespaces = Api::<Namespace>::all(t.kube.clone());
    tephra_tests::wait_for(
        "Tephra to make the project's namespace",
        std::time::Duration::from_secs(60),
        || async {
            let found = namespaces.get_opt(&name).await.ok()??;
            let annotations = found.metadata.annotations?;
            annotations.contains_key("tephra.dev/owner").then_some(())
        },
    )
    .await
}

/// An opaque Secret with two keys.
pub(crate) fn secret(name: &str, data: [(&str, &str); 2]) -> Secret {
    Secret {
        metadata: kube::api::ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some(
            data.into_iter()
                .map(|(k, v)| (k.to_owned(), ByteString(v.as_bytes().to_vec())))
                .collect(),
        ),
        ..Secret::default()
    }
}

fn bound(pod: &Pod) -> bool {
    pod.spec.as_ref().is_some_and(|s| s.node_name.is_some())
}

fn pod_volumes(pod: &Pod) -> BTreeMap<String, Volume> {
    pod.spec
        .iter()
        .flat_map(|s| s.volumes.iter().flatten())
        .map(|v| (v.name.clone(), v.clone()))
        .collect()
}

/// What seed 003 names in the project's namespace, made as its user would before submitting:
/// the Secret and the ConfigMap it mounts (both called "string"), the Secret its
/// `POSTGRES_PASSWORD` comes from, and its git clone's credentials. A kubelet starts no pod that
/// misses one (so does the testbed's).
pub(crate) async fn seed_003_objects(t: &Tephra) -> anyhow::Result<()> {
    project_namespace(t).await?;
    let ns = t.namespace();
    let secrets = Api::<Secret>::namespaced(t.kube.clone(), &ns);
    for made in [
        secret("string", [("username", "ml"), ("token", "t0ken")]),
        secret(
            "postgress-secret",
            [("POSTGRES_PASSWORD", "pg"), ("POSTGRES_USER", "ml")],
        ),
        secret("my-password-secret", [("User", "ml"), ("Password", "pw")]),
    ] {
        secrets.create(&PostParams::default(), &made).await?;
    }
    let config: ConfigMap = serde_json::from_value(json!({
        "metadata": { "name": "string" }, "data": { "settings.yaml": "epochs: 3" } }))?;
    Api::<ConfigMap>::namespaced(t.kube.clone(), &ns)
        .create(&PostParams::default(), &config)
        .await?;
    Ok(())
}
