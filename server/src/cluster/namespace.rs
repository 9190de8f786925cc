//! A project's namespace and what Tephra keeps in it for the project. The namespace is signed as
//! this installation's when Tephra creates it, and read before anything else: one that exists
//! without that signature (kube-system, default, another installation's, one made by hand) is
//! never labelled or used. In each of its own namespaces Tephra binds its service account to the
//! project role (its rights on Secrets, claims, Services and Jobs hold there only) and applies a
//! NetworkPolicy that admits traffic from the namespace itself and the ingress controller only.

use super::apply::FIELD_MANAGER;
use super::error::{Error, Result};
use crate::config::ProjectAccess;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::networking::v1::{
    NetworkPolicy, NetworkPolicyIngressRule, NetworkPolicyPeer, NetworkPolicySpec,
};
use k8s_openapi::api::rbac::v1::{RoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Client, Resource};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tephra_core::domain::labels::{MANAGED_BY, MANAGED_BY_VALUE, PROJECT, PROJECT_ID};
use tephra_core::domain::ownership::{OWNER, OwnerKey};

/// The RoleBinding of Tephra's account in each project namespace.
pub const ROLE_BINDING: &str = "tephra";
/// The NetworkPolicy in each project namespace.
pub const NETWORK_POLICY: &str = "tephra-isolation";
/// The label every namespace carries with its own name (set by the API server).
const NAMESPACE_NAME: &str = "kubernetes.io/metadata.name";
/// How long a new RoleBinding may take to reach the API server's authorizer.
const BINDING_WAIT: Duration = Duration::from_secs(5);

/// A project, by name and id (its UUID), and its namespace.
#[derive(Debug, Clone, Copy)]
pub struct ProjectNamespace<'a> {
    pub project: &'a str,
    pub id: &'a str,
    pub namespace: &'a str,
}

/// Why a new project may not have an existing namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not signed by this installation.
    NotOurs,
    /// Made for another project (by name), deleted since or still there.
    Held(String),
}

/// The project namespaces' settings, and what this process has seen of them.
#[derive(Debug, Default)]
pub struct Namespaces {
    /// Whose RoleBinding to make; `None`: none (Tephra runs with rights of its own everywhere).
    pub access: Option<ProjectAccess>,
    /// The ingress controller's namespace, admitted by each NetworkPolicy.
    pub ingress_namespace: Option<String>,
    /// Namespaces whose RoleBinding took effect since this process started.
    bound: Mutex<HashSet<String>>,
    /// Namespaces refused as not this installation's, so each is logged once.
    refused: Mutex<HashSet<String>>,
    /// Namespaces applied (and found this installation's) by this process: with which Pod
    /// Security level, and when.
    applied: Mutex<HashMap<String, (String, Instant)>>,
}

impl Namespaces {
    pub fn new(access: Option<ProjectAccess>, ingress_namespace: Option<String>) -> Self {
        Namespaces {
            access,
            ingress_namespace,
            ..Namespaces::default()
        }
    }

    /// The project's namespace with the Pod Security Admission `level` its policies keep
    /// requests within, Tephra's RoleBinding and the NetworkPolicy; each applied, so repeated
    /// calls repair what someone changed.
    pub async fn ensure(
        &self,
        client: &Client,
        key: &OwnerKey,
        project: ProjectNamespace<'_>,
        level: &str,
    ) -> Result<()> {
        let name = project.namespace;
        let created = match ensure_signed(client, key, project, level).await {
            Err(error @ Error::NamespaceNotOurs { .. }) => {
                lock(&self.applied).remove(name);
                if lock(&self.refused).insert(name.to_owned()) {
                    tracing::warn!(namespace = %name, project = %project.project, "{error}");
                }
                return Err(error);
            }
            other => other?,
        };
        lock(&self.refused).remove(name);
        if created {
            // A namespace of that name bound before was deleted since: this one is not yet.
            lock(&self.bound).remove(name);
        }
        if let Some(access) = &self.access {
            apply(client, name, &role_binding(key, project, access)).await?;
            if !lock(&self.bound).contains(name) {
                wait_until_bound(client, name).await?;
                lock(&self.bound).insert(name.to_owned());
            }
        }
        let policy = network_policy(key, project, self.ingress_namespace.as_deref());
        apply(client, name, &policy).await?;
        lock(&self.applied).insert(name.to_owned(), (level.to_owned(), Instant::now()));
        Ok(())
    }

    /// Whether this process applied the namespace, at `level`, less than `within` ago: a create
    /// or a pass then need not read and apply it again (four API round trips); the pass applies
    /// it again once that is a few minutes old, so what someone changes by hand is repaired.
    pub fn applied_within(&self, name: &str, level: &str, within: Duration) -> bool {
        lock(&self.applied)
            .get(name)
            .is_some_and(|(applied, at)| applied == level && at.elapsed() < within)
    }

    /// Forgets that the namespace was applied, so the next create applies it again (a create
    /// in it failed: it may be gone or changed).
    pub fn forget(&self, name: &str) {
        lock(&self.applied).remove(name);
    }
}

/// Why a new project may not have namespace `name`, if it exists: not this installation's, or
/// made for another project. Read when the project is created so the administrator hears it at
/// once; the controller refuses it again before it labels or uses it.
pub async fn refusal_for_new(
    client: &Client,
    key: &OwnerKey,
    name: &str,
) -> kube::Result<Option<Refusal>> {
    let Some(existing) = Api::<Namespace>::all(client.clone()).get_opt(name).await? else {
        return Ok(None);
    };
    if !key.owns_installation(&existing.metadata) {
        return Ok(Some(Refusal::NotOurs));
    }
    let meta = &existing.metadata;
    let made_for = meta.annotations.as_ref().and_then(|a| a.get(PROJECT_ID));
    Ok(made_for.map(|_| {
        let name = meta.labels.as_ref().and_then(|l| l.get(PROJECT));
        Refusal::Held(name.cloned().unwrap_or_default())
    }))
}

/// The id of the other project an existing namespace of this installation was made for, if
/// it was made for one: a project deleted leaves its namespace with its claims and Secrets,
/// and a new project of the same name must not read them. One made before namespaces carried
/// their project's id is taken (and stamped). The default project is the exception: it is
/// never deleted, so a new database's default (a new id) takes the namespace the last one had.
fn made_for_another(existing: &ObjectMeta, project: ProjectNamespace<'_>) -> Option<String> {
    let made_for = existing.annotations.as_ref()?.get(PROJECT_ID)?;
    let named = existing.labels.as_ref().and_then(|l| l.get(PROJECT));
    let default = crate::db::projects::DEFAULT_PROJECT;
    let both_default = project.project == default && named.is_some_and(|n| n == default);
    (made_for != project.id && !both_default).then(|| made_for.clone())
}

fn lock<T>(set: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    set.lock().unwrap_or_else(|e| e.into_inner())
}

/// Creates the namespace signed (true), or applies it when it is this installation's (false);
/// refuses one that is not, without changing it.
async fn ensure_signed(
    client: &Client,
    key: &OwnerKey,
    project: ProjectNamespace<'_>,
    level: &str,
) -> Result<bool> {
    let api = Api::<Namespace>::all(client.clone());
    let name = project.namespace;
    let mut namespace = Namespace {
        metadata: metadata(key, project, "", name),
        ..Namespace::default()
    };
    namespace
        .metadata
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .insert(PROJECT_ID.to_owned(), project.id.to_owned());
    let labels = namespace.metadata.labels.get_or_insert_with(BTreeMap::new);
    for mode in ["enforce", "warn"] {
        labels.insert(
            format!("pod-security.kubernetes.io/{mode}"),
            level.to_owned(),
        );
    }
    let Some(existing) = api.get_opt(name).await? else {
        // Created, not applied: a namespace someone made since the read is not patched. The
        // conflict that reports it is retried, and the next read refuses it.
        api.create(&PostParams::default(), &namespace).await?;
        tracing::info!(namespace = %name, project = %project.project, "created the project's namespace");
        return Ok(true);
    };
    // Another installation's annotations say nothing to this one: its signature comes first.
    let ours = key.owns_installation(&existing.metadata);
    let holder = ours
        .then(|| made_for_another(&existing.metadata, project))
        .flatten();
    if holder.is_some() || !ours {
        return Err(Error::NamespaceNotOurs {
            namespace: name.to_owned(),
            uid: existing.metadata.uid.unwrap_or_default(),
            holder,
        });
    }
    // The version read: if the namespace was replaced or changed since, the API server refuses
    // the apply (a conflict, retried) instead of labelling something that was not checked.
    namespace.metadata.resource_version = existing.metadata.resource_version;
    api.patch(
        name,
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&namespace),
    )
    .await?;
    Ok(false)
}

/// The metadata of what Tephra keeps for a project: its labels and this installation's
/// signature of `namespace` (empty for the namespace itself) and `name`.
fn metadata(
    key: &OwnerKey,
    project: ProjectNamespace<'_>,
    namespace: &str,
    name: &str,
) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: (!namespace.is_empty()).then(|| namespace.to_owned()),
        labels: Some(BTreeMap::from([
            (MANAGED_BY.to_owned(), MANAGED_BY_VALUE.to_owned()),
            (PROJECT.to_owned(), project.project.to_owned()),
        ])),
        annotations: Some(BTreeMap::from([(
            OWNER.to_owned(),
            key.sign_installation(namespace, name),
        )])),
        ..ObjectMeta::default()
    }
}

/// Binds Tephra's service account to the project role in the project's namespace.
pub fn role_binding(
    key: &OwnerKey,
    project: ProjectNamespace<'_>,
    access: &ProjectAccess,
) -> RoleBinding {
    RoleBinding {
        metadata: metadata(key, project, project.namespace, ROLE_BINDING),
        role_ref: RoleRef {
            api_group: "rbac.authorization.k8s.io".into(),
            kind: "ClusterRole".into(),
            name: access.cluster_role.clone(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: access.service_account.clone(),
            namespace: Some(access.namespace.clone()),
            ..Subject::default()
        }]),
    }
}

/// Admits traffic to the namespace's pods from its own pods and the ingress controller's, and
/// from no other namespace (egress is left open: trainings fetch data and images).
pub fn network_policy(
    key: &OwnerKey,
    project: ProjectNamespace<'_>,
    ingress_namespace: Option<&str>,
) -> NetworkPolicy {
    let mut from = vec![NetworkPolicyPeer {
        pod_selector: Some(LabelSelector::default()),
        ..NetworkPolicyPeer::default()
    }];
    from.extend(ingress_namespace.map(|ns| NetworkPolicyPeer {
        namespace_selector: Some(LabelSelector {
            match_labels: Some(BTreeMap::from([(NAMESPACE_NAME.to_owned(), ns.to_owned())])),
            ..LabelSelector::default()
        }),
        ..NetworkPolicyPeer::default()
    }));
    NetworkPolicy {
        metadata: metadata(key, project, project.namespace, NETWORK_POLICY),
        spec: Some(NetworkPolicySpec {
            pod_selector: Some(LabelSelector::default()),
            policy_types: Some(vec!["Ingress".into()]),
            ingress: Some(vec![NetworkPolicyIngressRule {
                from: Some(from),
                ..NetworkPolicyIngressRule::default()
            }]),
            ..NetworkPolicySpec::default()
        }),
    }
}

/// Applies a namespaced object Tephra keeps for the project.
async fn apply<K>(client: &Client, namespace: &str, object: &K) -> Result<()>
where
    K: Resource<Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + serde::Serialize
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
    K::DynamicType: Default,
{
    let name = object.meta().name.clone().unwrap_or_default();
    Api::<K>::namespaced(client.clone(), namespace)
        .patch(
            &name,
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(object),
        )
        .await?;
    Ok(())
}

/// Waits until the API server's authorizer has the new RoleBinding: acting before would be
/// refused (403), which the controller takes for a permanent error.
async fn wait_until_bound(client: &Client, namespace: &str) -> Result<()> {
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some("create".into()),
                group: Some("networking.k8s.io".into()),
                resource: Some("networkpolicies".into()),
                namespace: Some(namespace.to_owned()),
                ..ResourceAttributes::default()
            }),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let api = Api::<SelfSubjectAccessReview>::all(client.clone());
    let deadline = tokio::time::Instant::now() + BINDING_WAIT;
    loop {
        let answer = api.create(&PostParams::default(), &review).await?;
        if answer.status.is_some_and(|s| s.allowed) {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Error::NotBound {
                namespace: namespace.to_owned(),
            });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[cfg(test)]
#[path = "namespace_tests.rs"]
mod tests;
