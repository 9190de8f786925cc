//! Edits of a running training in the cluster: the Job's JSON Patch, and on a scale-down the
//! outdated version stamped on the pods it removes (`domain::live_edit` says why).

use k8s_openapi::api::core::v1::Pod;
use kube::api::{ListParams, Patch, PatchParams};
use kube::{Api, Client, ResourceExt};
use serde_json::json;
use tephra_core::domain::labels::{JOB_NAME, JOB_VERSION, OUTDATED_VERSION, TASK_INDEX, TASK_SPEC};
use tephra_core::domain::live_edit::{Shape, is_removed};
use tephra_core::domain::ownership::OwnerKey;
use tephra_core::domain::volcano::Job;
use uuid::Uuid;

use super::error::{Error, Result};
use super::observe::controller_uid;

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
    // The pods first: from the moment Volcano sees the new count it deletes them.
    let pods = Api::<Pod>::namespaced(client.clone(), namespace);
    let stamped = outdate_removed(&pods, &job, &now.removed_by(desired)).await?;
    if let Err(e) = jobs
        .patch(name, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
    {
        // The pods stay, so their events must count again.
        restore(&pods, &stamped).await;
        return Err(e.into());
    }
    tracing::info!(job = %name, %namespace, workload = %id, removed = stamped.len(),
        "the Volcano Job follows an edit");
    Ok(())
}

/// A pod stamped with the outdated version, and the version it had.
type Stamped = (String, String);

/// Stamps the Job's pods the edit removes with the outdated version; returns them with the
/// versions they had. Only pods the Job controls are touched.
async fn outdate_removed(
    api: &Api<Pod>,
    job: &Job,
    removed: &[(String, i32)],
) -> Result<Vec<Stamped>> {
    if removed.is_empty() {
        return Ok(Vec::new());
    }
    let selector = ListParams::default().labels(&format!("{JOB_NAME}={}", job.name_any()));
    let controlled =
        |pod: &Pod| job.metadata.uid.is_some() && controller_uid(&pod.metadata) == job.metadata.uid;
    let goes = |pod: &Pod| {
        let labels = pod.labels();
        let task = labels
            .get(TASK_SPEC)
            .map(String::as_str)
            .unwrap_or_default();
        let index = labels.get(TASK_INDEX).and_then(|i| i.parse().ok());
        index.is_some_and(|index| is_removed(removed, task, index))
    };
    let mut stamped = Vec::new();
    for pod in api.list(&selector).await?.items {
        if pod.metadata.deletion_timestamp.is_some() || !controlled(&pod) || !goes(&pod) {
            continue;
        }
        let Some(version) = pod.annotations().get(JOB_VERSION).cloned() else {
            continue;
        };
        match set_version(api, &pod.name_any(), OUTDATED_VERSION).await {
            Ok(()) => stamped.push((pod.name_any(), version)),
            // Gone already: nothing to stamp.
            Err(kube::Error::Api(status)) if status.is_not_found() => {}
            Err(e) => {
                restore(api, &stamped).await;
                return Err(e.into());
            }
        }
    }
    Ok(stamped)
}

/// Gives the pods their versions back, as far as it can: a pod already gone needs none.
async fn restore(api: &Api<Pod>, stamped: &[Stamped]) {
    for (name, version) in stamped {
        if let Err(e) = set_version(api, name, version).await {
            tracing::warn!(pod = %name, error = %e, "could not give the pod its Job version back");
        }
    }
}

async fn set_version(api: &Api<Pod>, name: &str, version: &str) -> kube::Result<()> {
    let patch = json!({ "metadata": { "annotations": { JOB_VERSION: version } } });
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map(|_| ())
}
