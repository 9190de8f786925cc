//! The controller's operations on the cluster. Everything is idempotent and checks ownership
//! (`domain::ownership`) before it adopts or deletes: an object is the workload's only if its
//! owner signature verifies, whatever labels it carries. Deletions carry the uid seen as a
//! precondition, so a Job replaced in between is never deleted by mistake.

use super::error::{Error, Result};
use super::objects::{Queue, QueueSpec};
use k8s_openapi::api::core::v1::{
    Namespace, PersistentVolume, PersistentVolumeClaim, Pod, Secret, Service,
};
use k8s_openapi::api::networking::v1::Ingress;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions};
use kube::{Api, Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use tephra_core::domain::labels::{DEPARTMENT, MANAGED_BY, MANAGED_BY_VALUE, PROJECT, WORKLOAD_ID};
use tephra_core::domain::ownership::{OWNER, OwnerKey};
use tephra_core::domain::quota::queues::QueuePlan;
use tephra_core::domain::volcano::Job;
use uuid::Uuid;

/// The field manager of everything Tephra applies.
pub const FIELD_MANAGER: &str = "tephra";

/// Signs an object Tephra is about to create as the workload's.
pub fn sign<K: Resource>(key: &OwnerKey, id: Uuid, object: &mut K) {
    let meta = object.meta_mut();
    let signature = key.sign(
        &id.to_string(),
        meta.namespace.as_deref().unwrap_or_default(),
        meta.name.as_deref().unwrap_or_default(),
    );
    meta.annotations
        .get_or_insert_with(Default::default)
        .insert(OWNER.to_owned(), signature);
}

/// A department's or project's queue as this installation wants it, signed.
pub fn desired_queue(key: &OwnerKey, plan: &QueuePlan) -> Queue {
    let quantities = |list: &std::collections::BTreeMap<String, String>| {
        list.iter()
            .map(|(k, v)| (k.clone(), Quantity(v.clone())))
            .collect()
    };
    let mut queue = Queue::new(
        &plan.name,
        QueueSpec {
            weight: 1,
            // What a project borrows over its quota, an in-quota project may take back.
            reclaimable: true,
            parent: plan.parent.clone(),
            deserved: quantities(&plan.deserved),
            capability: quantities(&plan.capability),
        },
    );
    let mut labels = vec![
        (MANAGED_BY.to_owned(), MANAGED_BY_VALUE.to_owned()),
        (DEPARTMENT.to_owned(), plan.department.clone()),
    ];
    labels.extend(plan.project.clone().map(|p| (PROJECT.to_owned(), p)));
    queue.metadata.labels = Some(labels.into_iter().collect());
    queue.metadata.annotations = Some([(OWNER.to_owned(), key.sign_org(&plan.name))].into());
    queue
}

/// Whether `seen` already is `desired`: its spec, and every label and annotation `desired` sets
/// (others may add their own).
pub fn queue_is_current(desired: &Queue, seen: &Queue) -> bool {
    let holds = |want: &Option<std::collections::BTreeMap<String, String>>,
                 have: &Option<std::collections::BTreeMap<String, String>>| {
        want.iter()
            .flatten()
            .all(|(k, v)| have.as_ref().and_then(|h| h.get(k)) == Some(v))
    };
    seen.spec == desired.spec
        && holds(&desired.metadata.labels, &seen.metadata.labels)
        && holds(&desired.metadata.annotations, &seen.metadata.annotations)
}

/// Applies a queue Tephra wants (see [`desired_queue`]).
pub async fn apply_queue(client: &Client, queue: &Queue) -> Result<()> {
    Api::<Queue>::all(client.clone())
        .patch(
            &queue.name_any(),
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(queue),
        )
        .await?;
    Ok(())
}

/// The queues this installation's label selects (signed or not: the caller checks).
pub async fn managed_queues(client: &Client) -> Result<Vec<Queue>> {
    let list = Api::<Queue>::all(client.clone())
        .list(&ListParams::default().labels(tephra_core::domain::labels::MANAGED_SELECTOR))
        .await?;
    Ok(list.items)
}

/// Deletes the queues this installation made (of those `seen`) that `keep` does not name:
/// projects' first, then departments' (a queue whose parent is gone stops Volcano's scheduling
/// session).
pub async fn delete_stale_queues(
    client: &Client,
    key: &OwnerKey,
    seen: &[Queue],
    keep: &std::collections::HashSet<&str>,
) -> Result<Vec<String>> {
    let api = Api::<Queue>::all(client.clone());
    let mut stale: Vec<&Queue> = seen
        .iter()
        .filter(|q| key.owns_org(&q.metadata) && !keep.contains(q.name_any().as_str()))
        .collect();
    stale.sort_by_key(|q| q.labels().get(PROJECT).is_none());
    let mut deleted = Vec::new();
    for queue in stale {
        match api
            .delete(&queue.name_any(), &DeleteParams::default())
            .await
        {
            Ok(_) => deleted.push(queue.name_any()),
            Err(kube::Error::Api(status)) if status.is_not_found() => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(deleted)
}

/// Creates `object` unless the workload already has it. An object of that name that is not the
/// workload's is an error: its name is taken.
pub async fn create_owned<K>(api: &Api<K>, key: &OwnerKey, id: Uuid, object: &K) -> Result<()>
where
    K: Resource + Clone + Serialize + DeserializeOwned + Debug,
    K::DynamicType: Default,
{
    match api.create(&PostParams::default(), object).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.is_already_exists() => {
            // Ours from before a crash, or someone else's object with the same name.
            let existing = api.get(&object.name_any()).await?;
            if key.owner(existing.meta()) == Some(id) {
                Ok(())
            } else {
                Err(Error::NameTaken {
                    kind: K::kind(&Default::default()).into_owned(),
                    namespace: existing.namespace().unwrap_or_default(),
                    name: existing.name_any(),
                    uid: existing.uid().unwrap_or_default(),
                })
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// Deletes the workload's Job of this name with foreground propagation (pods first). Returns
/// whether such a Job still exists (being deleted). A Job of that name that is not the
/// workload's is left alone.
pub async fn delete_job(
    client: &Client,
    namespace: &str,
    name: &str,
    id: Uuid,
    key: &OwnerKey,
) -> Result<bool> {
    let jobs = Api::<Job>::namespaced(client.clone(), namespace);
    let Some(job) = jobs.get_opt(name).await? else {
        return Ok(false);
    };
    if key.owner(&job.metadata) != Some(id) {
        tracing::warn!(job = %name, %namespace, workload = %id, "a Job with the workload's name is not Tephra's; leaving it alone");
        return Ok(false);
    }
    if job.metadata.deletion_timestamp.is_some() {
        return Ok(true);
    }
    let params = DeleteParams {
        preconditions: Some(Preconditions {
            uid: job.metadata.uid.clone(),
            resource_version: None,
        }),
        ..DeleteParams::foreground()
    };
    match jobs.delete(name, &params).await {
        Ok(_) => {
            tracing::info!(job = %name, %namespace, workload = %id, "deleting the Volcano Job");
            Ok(true)
        }
        // Gone, or replaced by another object since we looked (the precondition failed).
        Err(kube::Error::Api(status)) if status.is_not_found() || status.code == 409 => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// What of the workload is still in the cluster, asked of the API server rather than the watch
/// cache: a delete that arrives before the watch has seen a new Job must still find it.
pub async fn remaining(
    client: &Client,
    namespace: &str,
    job_name: &str,
    id: Uuid,
    key: &OwnerKey,
) -> Result<usize> {
    let selector = ListParams::default().labels(&format!("{WORKLOAD_ID}={id}"));
    let jobs = Api::<Job>::namespaced(client.clone(), namespace)
        .list(&selector)
        .await?;
    let owned_jobs = jobs
        .items
        .iter()
        .filter(|j| key.owner(&j.metadata) == Some(id))
        .count();
    let pods = Api::<Pod>::namespaced(client.clone(), namespace)
        .list(&selector)
        .await?;
    // Pods are the Job's (Volcano names it as their controller); a pod that merely copies the
    // label must not hold a deletion up forever.
    let owned_pods = pods
        .items
        .iter()
        .filter(|p| {
            p.owner_references()
                .iter()
                .any(|r| r.controller == Some(true) && r.kind == "Job" && r.name == job_name)
        })
        .count();
    Ok(owned_jobs + owned_pods)
}

/// Deletes the workload's objects of kind `K` (PVCs, Services); returns how many were not being
/// deleted yet. One already being deleted counts as gone: a PVC keeps its protection finalizer
/// until no pod uses it, and Kubernetes finishes that on its own.
pub async fn delete_owned<K>(api: Api<K>, id: Uuid, key: &OwnerKey) -> Result<usize>
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    let selector = ListParams::default().labels(&format!("{WORKLOAD_ID}={id}"));
    let list = api.list(&selector).await?;
    let live: Vec<K> = list
        .items
        .into_iter()
        .filter(|o| o.meta().deletion_timestamp.is_none() && key.owner(o.meta()) == Some(id))
        .collect();
    let count = live.len();
    for object in live {
        match api
            .delete(&object.name_any(), &DeleteParams::background())
            .await
        {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.is_not_found() => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(count)
}

/// Whether the object holding a taken name is still the one that held it (`uid`).
pub async fn still_taken(
    client: &Client,
    kind: &str,
    namespace: &str,
    name: &str,
    uid: &str,
) -> Result<bool> {
    async fn uid_of<K>(api: Api<K>, name: &str) -> Result<Option<String>>
    where
        K: Resource + Clone + DeserializeOwned + Debug,
    {
        Ok(api.get_opt(name).await?.and_then(|o| o.uid()))
    }
    let c = client.clone();
    let found = match kind {
        "Job" => uid_of(Api::<Job>::namespaced(c, namespace), name).await?,
        "PersistentVolumeClaim" => {
            uid_of(Api::<PersistentVolumeClaim>::namespaced(c, namespace), name).await?
        }
        "PersistentVolume" => uid_of(Api::<PersistentVolume>::all(c), name).await?,
        "Secret" => uid_of(Api::<Secret>::namespaced(c, namespace), name).await?,
        "Ingress" => uid_of(Api::<Ingress>::namespaced(c, namespace), name).await?,
        "Namespace" => uid_of(Api::<Namespace>::all(c), name).await?,
        _ => uid_of(Api::<Service>::namespaced(c, namespace), name).await?,
    };
    Ok(found.as_deref() == Some(uid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> QueuePlan {
        QueuePlan {
            name: "vision".into(),
            parent: Some("research".into()),
            deserved: [("nvidia.com/gpu".to_owned(), "8".to_owned())].into(),
            capability: [("nvidia.com/gpu".to_owned(), "16".to_owned())].into(),
            department: "research".into(),
            project: Some("vision".into()),
        }
    }

    #[test]
    fn a_queue_is_written_again_only_when_it_differs() {
        let key = OwnerKey::from_hex(&"42".repeat(32)).unwrap();
        let desired = desired_queue(&key, &plan());
        // As the API server gives it back, with what others added.
        let mut seen = desired.clone();
        seen.metadata.resource_version = Some("7".into());
        seen.metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert("team".into(), "cv".into());
        assert!(queue_is_current(&desired, &seen));
        // Changed by hand, or by a quota edit: written again.
        let mut edited = seen.clone();
        edited
            .spec
            .deserved
            .insert("nvidia.com/gpu".into(), Quantity("32".into()));
        assert!(!queue_is_current(&desired, &edited));
        let mut unsigned = seen.clone();
        unsigned.metadata.annotations = None;
        assert!(!queue_is_current(&desired, &unsigned));
        let mut moved = seen;
        moved
            .metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert(DEPARTMENT.into(), "other".into());
        assert!(!queue_is_current(&desired, &moved));
    }
}
