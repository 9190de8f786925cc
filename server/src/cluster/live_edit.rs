//! Edits of a running training in the cluster: the Job's JSON Patch, and on a scale-down the
//! marks on the pods it removes (`domain::live_edit` says why they are needed).

use crate::domain::labels::{JOB_NAME, OUT_OF_SYNC, TASK_INDEX, TASK_SPEC};
use crate::domain::live_edit::{Shape, is_removed};
use crate::domain::ownership::OwnerKey;
use crate::domain::volcano::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{ListParams, Patch, PatchParams};
use kube::{Api, Client, ResourceExt};
use serde_json::json;
use uuid::Uuid;

use super::reconciler::{Error, Result};

/// Brings the workload's Job to `desired` (an edit): a JSON Patch of what changed, which the API
/// server applies only if the Job is still at the generation read here. A Job that is not the
/// workload's, or is being deleted, is left alone.
pub async fn edit_job(
    client: &Client,
    namespace: &str,
    name: &str,
    id: Uuid,
    key: &OwnerKey,
    desired: &Shape,
) -> Result<()> {
    let jobs = Api::<Job>::namespaced(client.clone(), namespace);
    let Some(job) = jobs.get_opt(name).await? else {
        return Ok(());
    };
    if key.owner(&job.metadata) != Some(id) || job.metadata.deletion_timestamp.is_some() {
        return Ok(());
    }
    let generation = job.metadata.generation.unwrap_or(1);
    let now = Shape::of(&job.spec);
    let Some(ops) = now.patch_to(desired, generation) else {
        return Ok(());
    };
    let patch: json_patch::Patch = serde_json::from_value(ops)
        .map_err(|e| Error::Render(format!("the edit is not a JSON Patch: {e}")))?;
    // Marks first, then the Job: Volcano's controller deletes the pods as soon as it sees the
    // new replica count, and a pod must carry the mark when it is deleted. (Should the
    // controller sync the old spec in between, it deletes the marked pods early, which is the
    // same outcome; only a second sync of the old spec before the Job's patch, which follows
    // within milliseconds, would make it recreate them.)
    let pods = Api::<Pod>::namespaced(client.clone(), namespace);
    let marked = mark_removed(&pods, &job, &now.removed_by(desired)).await?;
    if let Err(e) = jobs
        .patch(name, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
    {
        // The pods stay: unmarked, or Volcano's next sync would delete and recreate them.
        clear_marks(&pods, &marked).await;
        return Err(e.into());
    }
    tracing::info!(job = %name, %namespace, workload = %id, removed = marked.len(),
        "the Volcano Job follows an edit");
    Ok(())
}

/// Marks the Job's pods the edit removes as out of sync, and returns their names. Only pods the
/// Job controls are touched.
async fn mark_removed(api: &Api<Pod>, job: &Job, removed: &[(String, i32)]) -> Result<Vec<String>> {
    if removed.is_empty() {
        return Ok(Vec::new());
    }
    let selector = ListParams::default().labels(&format!("{JOB_NAME}={}", job.name_any()));
    let uid = job.metadata.uid.as_deref();
    let names: Vec<String> = api
        .list(&selector)
        .await?
        .items
        .into_iter()
        .filter(|pod| pod.metadata.deletion_timestamp.is_none())
        .filter(|pod| {
            pod.owner_references()
                .iter()
                .any(|r| r.controller == Some(true) && Some(r.uid.as_str()) == uid)
        })
        .filter(|pod| {
            let labels = pod.labels();
            let task = labels
                .get(TASK_SPEC)
                .map(String::as_str)
                .unwrap_or_default();
            let index = labels.get(TASK_INDEX).and_then(|i| i.parse().ok());
            index.is_some_and(|index| is_removed(removed, task, index))
        })
        .map(|pod| pod.name_any())
        .collect();
    let patch = json!({ "metadata": { "annotations": { OUT_OF_SYNC: "true" } } });
    for name in &names {
        match api
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => {}
            // Gone already: nothing to mark.
            Err(kube::Error::Api(status)) if status.is_not_found() => {}
            Err(e) => {
                clear_marks(api, &names).await;
                return Err(e.into());
            }
        }
    }
    Ok(names)
}

/// Clears the mark on the named pods, as far as it can: a pod already gone needs none.
async fn clear_marks(api: &Api<Pod>, names: &[String]) {
    let patch = json!({ "metadata": { "annotations": { OUT_OF_SYNC: null } } });
    for name in names {
        if let Err(e) = api
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            tracing::warn!(pod = %name, error = %e, "could not clear the out-of-sync mark");
        }
    }
}
