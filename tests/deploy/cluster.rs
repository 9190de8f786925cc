//! The chart against a real API server (the testbed): every rendered object is valid, and the
//! chart's service account may do what docs/DEPLOY.md tables and is refused the rest.

use crate::docs::{Permission, Scope, rbac_table};
use crate::namespaces::{delete_namespaces, project_namespace};
use anyhow::{Context, ensure};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod, Secret};
use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::chart::{self, RELEASE_NAMESPACE, Values};
use tephra_tests::service_account::{ChartAccount, ensure_release_namespace, may, may_on};
use tephra_tests::testbed::Testbed;

/// The value sets an installation is likely to use.
fn value_sets() -> Vec<Values> {
    vec![
        Values::defaults(),
        Values::defaults().set("database.sqlite.persistence.enabled=true"),
        Values::production(),
        Values::production()
            .set("database.existingSecret=")
            .set("database.url=postgres://tephra:pw@db:5432/tephra")
            .set("oidc.existingSecret=")
            .set("oidc.clientSecret=secret"),
    ]
}

pub async fn every_rendered_object_passes_the_api_servers_validation(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let admin = tb.client().await?;
    ensure_release_namespace(&admin).await?;
    for values in value_sets() {
        let objects = chart::template(&values)?;
        for object in &objects {
            chart::apply(&admin, object, true)
                .await
                .with_context(|| format!("with {values:?}"))?;
        }
    }
    Ok(())
}

pub async fn the_chart_account_may_do_what_the_rbac_table_says(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let account = ChartAccount::install(&tb).await?;
    let client = account.client().await?;
    // The project role holds in the namespaces Tephra makes, once it bound itself there.
    let project = project_namespace(&account, "rbac").await?;
    let result = async {
        for permission in rbac_table()? {
            check_permission(&client, &permission, &project).await?;
        }
        Ok(())
    }
    .await;
    delete_namespaces(&tb.client().await?, &[&project]).await;
    result
}

/// The account holds `permission` where the table says, and not in other namespaces.
async fn check_permission(
    client: &kube::Client,
    permission: &Permission,
    project: &str,
) -> anyhow::Result<()> {
    let (resource, verb) = (&permission.resource, &permission.verb);
    let name = permission.name.as_deref();
    let here = match permission.scope {
        Scope::Cluster => None,
        Scope::ReleaseNamespace => Some(RELEASE_NAMESPACE),
        Scope::ProjectNamespaces => Some(project),
    };
    ensure!(
        may_on(client, verb, resource, here, name).await?,
        "the account may not {verb} {resource} {name:?} in {here:?}"
    );
    if permission.scope == Scope::Cluster {
        return Ok(());
    }
    // Namespaced permissions stop at their namespace; the project role's hold nowhere else
    // (the release namespace included) until Tephra binds it there.
    let elsewhere = match permission.scope {
        Scope::ProjectNamespaces => ["kube-system", "default", RELEASE_NAMESPACE].as_slice(),
        _ => ["kube-system", "default"].as_slice(),
    };
    for there in elsewhere {
        let allowed = may_on(client, verb, resource, Some(there), name).await?;
        // The same verb may be granted cluster-wide for another purpose (pods: get).
        let cluster_wide = rbac_table()?
            .iter()
            .any(|p| p.scope == Scope::Cluster && &p.resource == resource && &p.verb == verb);
        ensure!(
            !allowed || cluster_wide,
            "the account may {verb} {resource} in {there}"
        );
    }
    Ok(())
}

/// What a compromised Tephra must still not be able to do: `verb resource [in namespace]`.
const REFUSED: &[&str] = &[
    // Grant itself more, or act as someone else.
    "create clusterroles.rbac.authorization.k8s.io",
    "create clusterrolebindings.rbac.authorization.k8s.io",
    "create roles.rbac.authorization.k8s.io in default",
    "escalate clusterroles.rbac.authorization.k8s.io",
    "bind clusterroles.rbac.authorization.k8s.io",
    "impersonate users",
    "impersonate serviceaccounts in kube-system",
    "create serviceaccounts/token in kube-system",
    "create serviceaccounts/token in tephra-system",
    "create certificatesigningrequests.certificates.k8s.io",
    // Reach into pods and nodes.
    "create pods in default",
    "create pods/exec in default",
    "create pods/attach in default",
    "create pods/portforward in default",
    "create pods/eviction in default",
    "delete pods in default",
    "get nodes/proxy",
    "delete nodes",
    "patch nodes",
    "update nodes/status",
    // Read or make Secrets, or anything its project role grants, outside its namespaces.
    "get secrets in kube-system",
    "get secrets in tephra-system",
    "list secrets",
    "list secrets in default",
    "create secrets in default",
    "delete secrets in kube-system",
    "create jobs.batch.volcano.sh in default",
    "patch jobs.batch.volcano.sh in default",
    "delete jobs.batch.volcano.sh in default",
    "create commands.bus.volcano.sh in default",
    "patch pods in kube-system",
    "get pods/log in kube-system",
    "create services in default",
    "create persistentvolumeclaims in default",
    "create ingresses.networking.k8s.io in default",
    "create networkpolicies.networking.k8s.io in default",
    "delete networkpolicies.networking.k8s.io in default",
    "delete rolebindings.rbac.authorization.k8s.io in default",
    "update rolebindings.rbac.authorization.k8s.io in default",
    // Change what it does not own, or secrets it did not make.
    "update secrets in kube-system",
    "patch secrets in kube-system",
    "watch secrets",
    "get configmaps in kube-system",
    "delete namespaces",
    "update namespaces",
    "update leases.coordination.k8s.io in kube-system",
    "delete leases.coordination.k8s.io in tephra-system",
    "create deployments.apps in tephra-system",
    "update jobs.batch.volcano.sh in default",
    "create podgroups.scheduling.volcano.sh in default",
    "delete podgroups.scheduling.volcano.sh in default",
    "update queues.scheduling.volcano.sh",
    "update customresourcedefinitions.apiextensions.k8s.io",
    "create mutatingwebhookconfigurations.admissionregistration.k8s.io",
    "create priorityclasses.scheduling.k8s.io",
    "create events in default",
    "create persistentvolumeclaims/status in default",
];

pub async fn the_chart_account_is_refused_what_tephra_never_does(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let account = ChartAccount::install(&tb).await?;
    let client = account.client().await?;
    let mut allowed = Vec::new();
    for refused in REFUSED {
        let words: Vec<&str> = refused.split_whitespace().collect();
        let (verb, resource, namespace) = match words[..] {
            [verb, resource] => (verb, resource, None),
            [verb, resource, "in", namespace] => (verb, resource, Some(namespace)),
            _ => anyhow::bail!("not `verb resource [in namespace]`: {refused}"),
        };
        if may(&client, verb, resource, namespace).await? {
            allowed.push(*refused);
        }
    }
    ensure!(allowed.is_empty(), "the account may: {allowed:#?}");

    // And the API server refuses it when the account tries.
    let admin = tb.client().await?;
    let node = Api::<Node>::all(admin.clone())
        .list(&ListParams::default().limit(1))
        .await?
        .items
        .into_iter()
        .next()
        .context("the testbed has nodes")?;
    let name = node.metadata.name.clone().unwrap_or_default();
    let forbidden = |result: Result<_, kube::Error>, what: &str| match result {
        Err(kube::Error::Api(status)) if status.code == 403 => Ok(()),
        Err(e) => Err(anyhow::anyhow!("{what}: expected 403, got {e}")),
        Ok(_) => Err(anyhow::anyhow!("{what}: the API server allowed it")),
    };
    let nodes = Api::<Node>::all(client.clone());
    forbidden(
        nodes
            .delete(&name, &DeleteParams::default())
            .await
            .map(|_| ()),
        "deleting a node",
    )?;
    let role: ClusterRole = serde_json::from_value(json!({
        "metadata": { "name": "tephra-escalated" },
        "rules": [{ "apiGroups": ["*"], "resources": ["*"], "verbs": ["*"] }],
    }))?;
    let roles = Api::<ClusterRole>::all(client.clone());
    forbidden(
        roles
            .create(&PostParams::default(), &role)
            .await
            .map(|_| ()),
        "creating a ClusterRole",
    )?;
    let configmaps = Api::<ConfigMap>::namespaced(client.clone(), "kube-system");
    forbidden(
        configmaps
            .get("extension-apiserver-authentication")
            .await
            .map(|_| ()),
        "reading a ConfigMap in kube-system",
    )?;
    let lease: Lease = serde_json::from_value(json!({ "metadata": { "name": "kube-scheduler" } }))?;
    let leases = Api::<Lease>::namespaced(client.clone(), "kube-system");
    forbidden(
        leases
            .create(&PostParams::default(), &lease)
            .await
            .map(|_| ()),
        "taking a Lease in kube-system",
    )?;
    let pod: Pod = serde_json::from_value(json!({
        "metadata": { "name": "tephra-direct" },
        "spec": { "containers": [{ "name": "c", "image": "busybox" }] },
    }))?;
    let pods = Api::<Pod>::namespaced(client.clone(), RELEASE_NAMESPACE);
    forbidden(
        pods.create(&PostParams::default(), &pod).await.map(|_| ()),
        "creating a pod directly",
    )?;
    let secrets = Api::<Secret>::namespaced(client.clone(), "kube-system");
    let patch = json!({ "metadata": { "labels": { "tephra": "was-here" } } });
    forbidden(
        secrets
            .patch(
                "anything",
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(&patch),
            )
            .await
            .map(|_| ()),
        "changing a Secret",
    )?;
    Ok(())
}

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

pub async fn notes_say_how_to_reach_tephra_and_what_is_missing(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let notes = chart::notes(&Values::defaults(), &tb.kubeconfig)?;
    for words in [
        "port-forward service/notes-tephra",
        "no sign-in is configured",
        "emptyDir",
        "SQLite allows one replica",
    ] {
        ensure!(
            notes.contains(words),
            "default NOTES lack {words:?}:\n{notes}"
        );
    }
    let notes = chart::notes(&Values::production(), &tb.kubeconfig)?;
    for words in [
        "Open https://tephra.example.org",
        "https://tephra.example.org/auth/callback",
        "3 replicas, PostgreSQL",
    ] {
        ensure!(
            notes.contains(words),
            "production NOTES lack {words:?}:\n{notes}"
        );
    }
    for warning in ["WARNING", "port-forward"] {
        ensure!(
            !notes.contains(warning),
            "production NOTES say {warning:?}:\n{notes}"
        );
    }
    Ok(())
}
