//! Tephra's project namespaces, made by the server's own code (`cluster::namespace`) acting as
//! the chart's service account against the testbed: a namespace Tephra did not sign is refused
//! and left exactly as it was; one it makes is signed, bound to the project role and isolated by
//! a NetworkPolicy. (The testbed has no CNI that enforces NetworkPolicy: the objects are checked,
//! not the traffic.)

use anyhow::{Context, bail, ensure};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::rbac::v1::RoleBinding;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::json;
use server::cluster::controller::Error;
use server::cluster::namespace::{NETWORK_POLICY, Namespaces, ProjectNamespace, ROLE_BINDING};
use server::config::ProjectAccess;
use std::sync::Arc;
use tephra_core::domain::ownership::OwnerKey;
use tephra_tests::service_account::ChartAccount;
use tephra_tests::testbed::Testbed;

/// The chart's prefix (`config.namespacePrefix`), which its admission policies allow.
pub const PREFIX: &str = "tephra-";

/// A fresh installation key, as Tephra creates one at its first start.
pub fn new_key() -> OwnerKey {
    let hex = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    OwnerKey::from_hex(&hex).expect("64 hex digits are a key")
}

/// What the chart tells Tephra about its account (TEPHRA_SERVICE_ACCOUNT, TEPHRA_PROJECT_ROLE).
pub fn access(account: &ChartAccount) -> ProjectAccess {
    ProjectAccess {
        namespace: account.namespace.clone(),
        service_account: account.name.clone(),
        cluster_role: account.project_role.clone(),
    }
}

/// A short random suffix for names a test makes.
pub fn suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..6].to_owned()
}

/// A project namespace made as Tephra makes it, by the account: `<prefix><stem>-<random>`,
/// signed, with Tephra's RoleBinding (waited for) and NetworkPolicy.
pub async fn project_namespace(account: &ChartAccount, stem: &str) -> anyhow::Result<String> {
    let name = format!("{PREFIX}{stem}-{}", suffix());
    let namespaces = Namespaces::new(Some(access(account)), None);
    let id = uuid::Uuid::new_v4().to_string();
    let target = ProjectNamespace {
        project: stem,
        id: &id,
        namespace: &name,
    };
    namespaces
        .ensure(&account.client().await?, &new_key(), target, "baseline")
        .await
        .with_context(|| format!("Tephra's account making the namespace {name}"))?;
    Ok(name)
}

/// Deletes namespaces a test made (as the administrator: Tephra's account cannot).
pub async fn delete_namespaces(admin: &kube::Client, names: &[&str]) {
    let api = Api::<Namespace>::all(admin.clone());
    for name in names {
        let _ = api.delete(name, &DeleteParams::default()).await;
    }
}

pub async fn a_namespace_tephra_did_not_sign_is_refused_and_left_as_it_was(
    tb: Arc<Testbed>,
) -> anyhow::Result<()> {
    let account = ChartAccount::install(&tb).await?;
    let client = account.client().await?;
    let admin = tb.client().await?;
    let by_hand = format!("{PREFIX}by-hand-{}", suffix());
    let made: Namespace = serde_json::from_value(json!({ "metadata": {
        "name": by_hand, "labels": { "team": "speech" } } }))?;
    Api::<Namespace>::all(admin.clone())
        .create(&PostParams::default(), &made)
        .await?;
    let ours = format!("{PREFIX}ours-{}", suffix());
    let result = async {
        let namespaces = Namespaces::new(Some(access(&account)), Some("ingress-nginx".into()));
        let key = new_key();
        for name in ["kube-system", "default", by_hand.as_str()] {
            let not_ours = format!(
                "namespace \"{name}\" exists and is not this installation's; Tephra will not \
                 label or use it"
            );
            refused_unchanged(&admin, &client, &namespaces, &key, taker(name), &not_ours).await?;
        }
        let id = uuid::Uuid::new_v4().to_string();
        let target = ProjectNamespace {
            project: "ours",
            id: &id,
            namespace: &ours,
        };
        namespaces.ensure(&client, &key, target, "baseline").await?;
        check_made(&admin, &key, &account, &ours, "baseline").await?;
        // Applied again (each pass does), with a wider level: the namespace follows.
        namespaces
            .ensure(&client, &key, target, "privileged")
            .await?;
        check_made(&admin, &key, &account, &ours, "privileged").await?;
        // Another project of the same name in this installation (the first one deleted, its
        // claims and Secrets left in the namespace) does not take it over.
        let other = uuid::Uuid::new_v4().to_string();
        let successor = ProjectNamespace {
            id: &other,
            ..target
        };
        let held = format!(
            "namespace \"{ours}\" was made for another project ({id}), whose claims and Secrets \
             may still be in it; Tephra will not use it for this one"
        );
        let fresh = Namespaces::new(Some(access(&account)), None);
        refused_unchanged(&admin, &client, &fresh, &key, successor, &held).await?;
        // Another installation (another key) does not take it over.
        let theirs = Namespaces::new(Some(access(&account)), None);
        let not_ours = format!(
            "namespace \"{ours}\" exists and is not this installation's; Tephra will not label \
             or use it"
        );
        refused_unchanged(
            &admin,
            &client,
            &theirs,
            &new_key(),
            taker(&ours),
            &not_ours,
        )
        .await
    }
    .await;
    delete_namespaces(&admin, &[&by_hand, &ours]).await;
    result
}

/// A project that would take namespace `name`.
fn taker(name: &str) -> ProjectNamespace<'_> {
    ProjectNamespace {
        project: "taken",
        id: "00000000-0000-4000-8000-000000000000",
        namespace: name,
    }
}

/// `ensure` refuses `target`'s namespace with the error that says `why`, and changes nothing
/// on it.
async fn refused_unchanged(
    admin: &kube::Client,
    client: &kube::Client,
    namespaces: &Namespaces,
    key: &OwnerKey,
    target: ProjectNamespace<'_>,
    why: &str,
) -> anyhow::Result<()> {
    let name = target.namespace;
    let api = Api::<Namespace>::all(admin.clone());
    let before = api.get(name).await?;
    let kept_before = kept(admin, name).await?;
    match namespaces.ensure(client, key, target, "privileged").await {
        Err(error @ Error::NamespaceNotOurs { .. }) => {
            ensure!(error.to_string() == why, "the refusal says: {error}")
        }
        Err(other) => bail!("{name}: refused for another reason: {other}"),
        Ok(()) => bail!("{name}: Tephra took a namespace it did not sign"),
    }
    let after = api.get(name).await?;
    ensure!(
        after.metadata.resource_version == before.metadata.resource_version
            && after.metadata.labels == before.metadata.labels
            && after.metadata.annotations == before.metadata.annotations,
        "{name} changed: {:?} became {:?}",
        before.metadata,
        after.metadata
    );
    // Nothing made or changed in it either (another installation's binding and policy stay).
    ensure!(
        kept(admin, name).await? == kept_before,
        "Tephra's RoleBinding or NetworkPolicy in {name} changed"
    );
    Ok(())
}

/// The versions of the RoleBinding and NetworkPolicy Tephra keeps in `namespace`, if any.
async fn kept(
    admin: &kube::Client,
    namespace: &str,
) -> anyhow::Result<(Option<String>, Option<String>)> {
    let binding = Api::<RoleBinding>::namespaced(admin.clone(), namespace)
        .get_opt(ROLE_BINDING)
        .await?;
    let policy = Api::<NetworkPolicy>::namespaced(admin.clone(), namespace)
        .get_opt(NETWORK_POLICY)
        .await?;
    Ok((
        binding.and_then(|b| b.metadata.resource_version),
        policy.and_then(|p| p.metadata.resource_version),
    ))
}

/// The namespace Tephra made: signed and labelled, its RoleBinding of the account to the project
/// role, its NetworkPolicy admitting the namespace and the ingress controller only.
async fn check_made(
    admin: &kube::Client,
    key: &OwnerKey,
    account: &ChartAccount,
    name: &str,
    level: &str,
) -> anyhow::Result<()> {
    let namespace = Api::<Namespace>::all(admin.clone()).get(name).await?;
    ensure!(
        key.owns_installation(&namespace.metadata),
        "{name} is unsigned"
    );
    let labels = namespace.metadata.labels.clone().unwrap_or_default();
    for (label, value) in [
        ("app.kubernetes.io/managed-by", "tephra"),
        ("tephra.dev/project", "ours"),
        ("pod-security.kubernetes.io/enforce", level),
    ] {
        ensure!(
            labels.get(label).map(String::as_str) == Some(value),
            "{name}'s {label}: {labels:?}"
        );
    }
    let binding = Api::<RoleBinding>::namespaced(admin.clone(), name)
        .get(ROLE_BINDING)
        .await?;
    ensure!(key.owns_installation(&binding.metadata), "unsigned binding");
    ensure!(
        binding.role_ref.name == account.project_role,
        "bound {:?}",
        binding.role_ref
    );
    let subjects = binding.subjects.unwrap_or_default();
    ensure!(
        subjects.len() == 1
            && subjects[0].name == account.name
            && subjects[0].namespace.as_deref() == Some(account.namespace.as_str()),
        "the binding's subjects: {subjects:?}"
    );
    let policy = Api::<NetworkPolicy>::namespaced(admin.clone(), name)
        .get(NETWORK_POLICY)
        .await?;
    ensure!(key.owns_installation(&policy.metadata), "unsigned policy");
    let spec = serde_json::to_value(policy.spec.context("a policy spec")?)?;
    let expected = json!({
        "podSelector": {},
        "policyTypes": ["Ingress"],
        "ingress": [{ "from": [
            { "podSelector": {} },
            { "namespaceSelector": { "matchLabels": {
                "kubernetes.io/metadata.name": "ingress-nginx" } } },
        ] }],
    });
    ensure!(spec == expected, "the NetworkPolicy's spec: {spec}");
    Ok(())
}
