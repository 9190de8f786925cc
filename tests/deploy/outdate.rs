//! The chart's account against the testbed: the one change it may make to a pod (outdating it for
//! a scale-down) is allowed, and every other change to that pod is refused.

use crate::namespaces::{delete_namespaces, project_namespace};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::service_account::ChartAccount;
use tephra_tests::testbed::Testbed;

/// The annotation Tephra changes on the pods a scale-down removes (server/src/cluster/live_edit.rs).
const VERSION: &str = "volcano.sh/job-version";

/// RBAC grants `patch` on pods for that annotation alone; the chart's admission policy refuses
/// every other change the account tries.
pub async fn the_chart_account_may_outdate_a_pod_and_change_nothing_else(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let account = ChartAccount::install(&tb).await?;
    let admin = tb.client().await?;
    // Pods are patched in project namespaces only (the project role).
    let project = project_namespace(&account, "versions").await?;
    let result = outdate_a_pod(&account, &admin, &project).await;
    delete_namespaces(&admin, &[&project]).await;
    result
}

async fn outdate_a_pod(
    account: &ChartAccount,
    admin: &kube::Client,
    namespace: &str,
) -> anyhow::Result<()> {
    let admin = Api::<Pod>::namespaced(admin.clone(), namespace);
    let name = "tephra-versions";
    let pod: Pod = serde_json::from_value(json!({
        "metadata": { "name": name, "labels": { "app": "trainer" },
                      "annotations": { VERSION: "0", "volcano.sh/task-spec": "worker" } },
        "spec": { "containers": [{ "name": "c", "image": "busybox:1.36" }] },
    }))?;
    // A new namespace gets its default service account a moment after it is made.
    tephra_tests::wait_for(
        "a pod in the new namespace",
        Duration::from_secs(30),
        || async { admin.create(&PostParams::default(), &pod).await.ok() },
    )
    .await?;
    let pods = Api::<Pod>::namespaced(account.client().await?, namespace);
    let patch = |value: serde_json::Value| {
        let pods = pods.clone();
        async move {
            pods.patch(name, &PatchParams::default(), &Patch::Merge(&value))
                .await
                .map(|_| ())
        }
    };
    let refused = |result: Result<(), kube::Error>| matches!(result, Err(kube::Error::Api(status)) if status.code == 403);
    // The policy takes effect once the API server has loaded it; until then each try is a new
    // image (the same one again would be no change, which the policy allows).
    let tries = std::sync::atomic::AtomicU32::new(0);
    tephra_tests::wait_for(
        "the admission policy to refuse a new image",
        Duration::from_secs(30),
        || async {
            let n = tries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let image = format!("evil:{n}");
            let change = json!({ "spec": { "containers": [{ "name": "c", "image": image }] } });
            let changed = pods
                .patch(name, &PatchParams::default(), &Patch::Strategic(&change))
                .await
                .map(|_| ());
            refused(changed).then_some(())
        },
    )
    .await?;
    patch(json!({ "metadata": { "annotations": { VERSION: "-1" } } }))
        .await
        .context("stamping the pod outdated")?;
    for (what, change) in [
        (
            "relabel it",
            json!({ "metadata": { "labels": { "app": "other" } } }),
        ),
        (
            "annotate it otherwise",
            json!({ "metadata": { "annotations": { "x": "y" } } }),
        ),
        (
            "change another annotation",
            json!({ "metadata": { "annotations": { "volcano.sh/task-spec": "master" } } }),
        ),
        (
            "set the version to a word",
            json!({ "metadata": { "annotations": { VERSION: "latest" } } }),
        ),
        (
            "remove the version",
            json!({ "metadata": { "annotations": { VERSION: null } } }),
        ),
        (
            "add a finalizer",
            json!({ "metadata": { "finalizers": ["tephra.dev/hold"] } }),
        ),
    ] {
        ensure!(refused(patch(change).await), "the account may {what}");
    }
    patch(json!({ "metadata": { "annotations": { VERSION: "0" } } }))
        .await
        .context("giving the pod its version back")?;
    let left = admin.get(name).await?;
    ensure!(
        left.annotations().get(VERSION).map(String::as_str) == Some("0")
            && left.labels().get("app").map(String::as_str) == Some("trainer")
            && left.annotations().len() == 2,
        "the pod changed: {:?}",
        left.metadata
    );
    admin
        .delete(name, &DeleteParams::default().grace_period(0))
        .await?;
    Ok(())
}
