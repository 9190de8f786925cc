//! Project namespaces Tephra did not make: a training in a project whose namespace exists
//! without this installation's signature is not created, says why on the training, and leaves
//! the namespace as it was; once the namespace is gone, Tephra makes its own and the training
//! runs.

use crate::api::{TRAININGS, Tephra, id_of, prefix_for, training};
use anyhow::ensure;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::rbac::v1::RoleBinding;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

pub async fn a_project_namespace_tephra_did_not_make_is_refused_and_left_alone(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let admin = tb.client().await?;
    let namespaces = Api::<Namespace>::all(admin.clone());
    // Made before Tephra starts: the default project's namespace is someone else's.
    let taken = format!("{}default", prefix_for(&ns));
    let made: Namespace = serde_json::from_value(json!({ "metadata": {
        "name": taken, "labels": { "team": "speech" } } }))?;
    let before = namespaces.create(&PostParams::default(), &made).await?;
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let id = id_of(&t.submit(TRAININGS, &training("refused", 0)).await?)?;
        let failing = t
            .wait_until(TRAININGS, &id, "the refused namespace to be shown", |b| {
                b["status"]["reconcileError"]["permanent"] == true
            })
            .await?;
        let expected = format!(
            "namespace \"{taken}\" exists and is not this installation's; Tephra will not label \
             or use it"
        );
        ensure!(
            failing["status"]["reconcileError"]["message"] == expected.as_str(),
            "{failing}"
        );
        ensure!(t.jobs_of(&id).await?.is_empty(), "a Job in {taken}");
        let after = namespaces.get(&taken).await?;
        ensure!(
            after.metadata.resource_version == before.metadata.resource_version,
            "{taken} changed: {:?}",
            after.metadata
        );
        for (what, found) in [
            (
                "RoleBinding",
                Api::<RoleBinding>::namespaced(admin.clone(), &taken)
                    .list(&Default::default())
                    .await?
                    .items
                    .len(),
            ),
            (
                "NetworkPolicy",
                Api::<NetworkPolicy>::namespaced(admin.clone(), &taken)
                    .list(&Default::default())
                    .await?
                    .items
                    .len(),
            ),
        ] {
            ensure!(found == 0, "Tephra made a {what} in {taken}");
        }
        // Gone, the namespace no longer holds the training back: Tephra makes its own, signed.
        namespaces.delete(&taken, &DeleteParams::default()).await?;
        tephra_tests::wait_for(
            "the namespace to be deleted",
            Duration::from_secs(60),
            || async {
                let now = namespaces.get_opt(&taken).await.ok()?;
                now.is_none_or(|n| n.metadata.uid != before.metadata.uid)
                    .then_some(())
            },
        )
        .await?;
        let running = t.wait_phase(TRAININGS, &id, "Running").await?;
        ensure!(running["status"]["reconcileError"].is_null(), "{running}");
        let ours = namespaces.get(&taken).await?;
        let annotations = ours.metadata.annotations.unwrap_or_default();
        ensure!(
            annotations.contains_key("tephra.dev/owner"),
            "{taken} is not signed"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
