//! Tephra as the chart's service account: the chart's ServiceAccount and RBAC objects applied to
//! the testbed for real, a token for the account from the TokenRequest API, and a kubeconfig
//! with that token. A test that starts the tephra binary with it proves the chart grants enough;
//! one that tries more with it proves the chart grants no more.

use crate::chart::{self, RELEASE_NAMESPACE, Values};
use crate::testbed::Testbed;
use anyhow::{Context, bail};
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{Namespace, PersistentVolume, ServiceAccount};
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

/// The kinds that make up the chart's identity and permissions (the admission policy narrows
/// what RBAC grants on pods).
const RBAC_KINDS: [&str; 7] = [
    "ServiceAccount",
    "ClusterRole",
    "ClusterRoleBinding",
    "Role",
    "RoleBinding",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
];

/// How long the token lasts: longer than any test run.
const TOKEN_SECONDS: i64 = 24 * 3600;

/// The chart's service account on a testbed.
#[derive(Debug, Clone)]
pub struct ChartAccount {
    /// A kubeconfig that authenticates as the account.
    pub kubeconfig: PathBuf,
    /// The release namespace: the account's, and where its leader Lease may live.
    pub namespace: String,
    pub name: String,
    /// The ClusterRole Tephra binds the account to in each project namespace, as the chart's
    /// Deployment tells Tephra (`TEPHRA_PROJECT_ROLE`).
    pub project_role: String,
}

impl ChartAccount {
    /// Installs the chart's ServiceAccount and RBAC objects (default values) on `tb` and
    /// writes a kubeconfig for the account into the testbed's directory. Applying is idempotent,
    /// so a reused testbed (`TEPHRA_TESTBED_DIR`) takes the chart's current rules.
    pub async fn install(tb: &Testbed) -> anyhow::Result<Self> {
        let admin = tb.client().await?;
        let objects = chart::template(&Values::defaults())?;
        ensure_release_namespace(&admin).await?;
        for kind in RBAC_KINDS {
            for object in chart::of_kind(&objects, kind) {
                chart::apply(&admin, object, false).await?;
            }
        }
        let account = chart::of_kind(&objects, "ServiceAccount")
            .first()
            .and_then(|sa| sa["metadata"]["name"].as_str())
            .context("the chart renders a ServiceAccount")?
            .to_owned();
        let token = token(&admin, &account).await?;
        let dir = tb.dir.join("chart-account");
        std::fs::create_dir_all(&dir)?;
        let kubeconfig = dir.join("kubeconfig");
        std::fs::write(&kubeconfig, kubeconfig_with(tb, &token)?)?;
        let installed = ChartAccount {
            kubeconfig,
            namespace: RELEASE_NAMESPACE.to_owned(),
            name: account,
            project_role: deployment_env(&objects, "TEPHRA_PROJECT_ROLE")?,
        };
        installed.wait_until_bound().await?;
        installed.wait_until_policed().await?;
        Ok(installed)
    }

    /// A client that acts as the account.
    pub async fn client(&self) -> anyhow::Result<kube::Client> {
        let kubeconfig = Kubeconfig::read_from(&self.kubeconfig)?;
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
        Ok(kube::Client::try_from(config)?)
    }

    /// Whether the API server lets the account do `verb` on `resource` (`group/resource` or
    /// `resource`, optionally `/subresource`) in `namespace` (`None`: cluster-wide).
    pub async fn may(
        &self,
        verb: &str,
        resource: &str,
        namespace: Option<&str>,
    ) -> anyhow::Result<bool> {
        may(&self.client().await?, verb, resource, namespace).await
    }

    /// RBAC takes effect once the API server's informers see the binding; waits for a rule the
    /// chart certainly grants.
    async fn wait_until_bound(&self) -> anyhow::Result<()> {
        let client = self.client().await?;
        crate::wait_for(
            "the chart's ClusterRoleBinding to take effect",
            Duration::from_secs(30),
            || {
                let client = client.clone();
                async move {
                    may(&client, "watch", "nodes", None)
                        .await
                        .ok()
                        .filter(|allowed| *allowed)
                }
            },
        )
        .await?;
        Ok(())
    }
}

/// Whether the API server refused a request with 403.
fn refused(result: Result<(), kube::Error>) -> bool {
    matches!(result, Err(kube::Error::Api(status)) if status.code == 403)
}

/// The value the chart's Deployment gives the variable `name`.
fn deployment_env(objects: &[Value], name: &str) -> anyhow::Result<String> {
    chart::of_kind(objects, "Deployment")
        .first()
        .and_then(|d| d["spec"]["template"]["spec"]["containers"][0]["env"].as_array())
        .and_then(|env| env.iter().find(|e| e["name"] == name))
        .and_then(|e| e["value"].as_str())
        .map(str::to_owned)
        .with_context(|| format!("the chart's Deployment sets {name}"))
}

impl ChartAccount {
    /// The admission policies take effect once the API server has loaded them; waits until two
    /// of them refuse (a dry run, so nothing is made if they do not yet).
    async fn wait_until_policed(&self) -> anyhow::Result<()> {
        let client = self.client().await?;
        let namespace: Namespace =
            serde_json::from_value(json!({ "metadata": { "name": "tephra-policy-probe" } }))?;
        let volume: PersistentVolume = serde_json::from_value(json!({
            "metadata": { "name": "tephra-policy-probe",
                          "annotations": { "tephra.dev/owner": "00" } },
            "spec": { "capacity": { "storage": "1Gi" }, "accessModes": ["ReadWriteOnce"],
                      "hostPath": { "path": "/" } } }))?;
        let dry_run = PostParams {
            dry_run: true,
            ..PostParams::default()
        };
        crate::wait_for(
            "the chart's admission policies to take effect",
            Duration::from_secs(30),
            || {
                let (client, namespace, volume) = (client.clone(), &namespace, &volume);
                let dry_run = &dry_run;
                async move {
                    let namespaces = Api::<Namespace>::all(client.clone());
                    let volumes = Api::<PersistentVolume>::all(client);
                    let unsigned = namespaces.create(dry_run, namespace).await.map(|_| ());
                    let host_path = volumes.create(dry_run, volume).await.map(|_| ());
                    (refused(unsigned) && refused(host_path)).then_some(())
                }
            },
        )
        .await
    }
}

/// Asks the API server, as `client`, whether it may do `verb` on `resource`.
pub async fn may(
    client: &kube::Client,
    verb: &str,
    resource: &str,
    namespace: Option<&str>,
) -> anyhow::Result<bool> {
    may_on(client, verb, resource, namespace, None).await
}

/// [`may`], on the object `name` (a rule that names objects grants nothing without a name).
pub async fn may_on(
    client: &kube::Client,
    verb: &str,
    resource: &str,
    namespace: Option<&str>,
    name: Option<&str>,
) -> anyhow::Result<bool> {
    let (group, resource) = match resource.split_once('.') {
        Some((resource, group)) => (group, resource),
        None => ("", resource),
    };
    let (resource, subresource) = match resource.split_once('/') {
        Some((resource, sub)) => (resource, Some(sub.to_owned())),
        None => (resource, None),
    };
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.to_owned()),
                group: Some(group.to_owned()),
                resource: Some(resource.to_owned()),
                subresource,
                namespace: namespace.map(str::to_owned),
                name: name.map(str::to_owned),
                ..ResourceAttributes::default()
            }),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let answer = Api::<SelfSubjectAccessReview>::all(client.clone())
        .create(&PostParams::default(), &review)
        .await
        .context("cannot ask the API server for a SelfSubjectAccessReview")?;
    Ok(answer.status.is_some_and(|s| s.allowed))
}

/// Creates the release namespace unless it exists.
pub async fn ensure_release_namespace(admin: &kube::Client) -> anyhow::Result<()> {
    let name = RELEASE_NAMESPACE;
    let namespace: Namespace = serde_json::from_value(json!({ "metadata": { "name": name } }))?;
    match Api::<Namespace>::all(admin.clone())
        .create(&PostParams::default(), &namespace)
        .await
    {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.is_already_exists() => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot create the namespace {name}")),
    }
}

/// A bound token for the account, as the kubelet would mount one.
async fn token(admin: &kube::Client, account: &str) -> anyhow::Result<String> {
    let request = TokenRequest {
        spec: TokenRequestSpec {
            expiration_seconds: Some(TOKEN_SECONDS),
            // Empty: the API server's own audience.
            audiences: Vec::new(),
            ..TokenRequestSpec::default()
        },
        ..TokenRequest::default()
    };
    let answer = Api::<ServiceAccount>::namespaced(admin.clone(), RELEASE_NAMESPACE)
        .create_token_request(account, &PostParams::default(), &request)
        .await
        .with_context(|| format!("cannot request a token for the service account {account}"))?;
    match answer.status {
        Some(status) if !status.token.is_empty() => Ok(status.token),
        _ => bail!("the TokenRequest for {account} returned no token"),
    }
}

/// The testbed's admin kubeconfig with its user swapped for the account's token: the same
/// server and CA.
fn kubeconfig_with(tb: &Testbed, token: &str) -> anyhow::Result<String> {
    let admin: Value = serde_yaml::from_str(&std::fs::read_to_string(&tb.kubeconfig)?)
        .context("the testbed's kubeconfig is YAML")?;
    let cluster = admin["clusters"]
        .get(0)
        .cloned()
        .context("the testbed's kubeconfig names a cluster")?;
    let cluster_name = cluster["name"].clone();
    let config = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [cluster],
        "users": [{ "name": "tephra", "user": { "token": token } }],
        "contexts": [{ "name": "tephra", "context": { "cluster": cluster_name, "user": "tephra" } }],
        "current-context": "tephra",
    });
    Ok(serde_yaml::to_string(&config)?)
}
