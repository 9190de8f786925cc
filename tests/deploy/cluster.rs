//! The chart against a real API server (the testbed): every rendered object is valid, and the
//! chart's service account may do what docs/DEPLOY.md tables and is refused the rest.

use crate::docs::{Permission, Scope, rbac_table};
use crate::namespaces::{delete_namespaces, project_namespace};
use anyhow::{Context, ensure};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod, Secret};
use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use serde_json::json;
use std::sync::Arc;
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
