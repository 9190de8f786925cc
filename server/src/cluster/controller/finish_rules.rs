//! Generic jobs end by their rules (seeds/004), which Tephra judges (`domain::finish`): once one
//! holds, the verdict is recorded on the Job, where the status derivation reads it, and the
//! clean-up policy says what happens to the pods. None keeps them all, running ones included;
//! Unfinished tells Volcano to complete (or terminate) the Job, which stops the pods that had not
//! finished and keeps the finished ones; All removes the Job and every pod once the finish is
//! recorded (the workload's Job TTL of 0).

use super::{Controller, Result};
use crate::db::projects::Project;
use crate::db::workloads::StoredWorkload;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams};
use kube::{Api, Client, Resource};
use serde_json::json;
use tephra_core::domain::finish::{
    self, Outcome, VERDICT_ANNOTATION, VERDICT_REASON_ANNOTATION, Verdict,
};
use tephra_core::domain::ownership::OwnerKey;
use tephra_core::domain::request::{Request, WorkloadKind};
use tephra_core::domain::status::Observed;
use tephra_core::domain::volcano::Job;
use tephra_core::model::training::checked::Generic;
use tephra_core::model::training::generic::CleanUpPolicy;
use uuid::Uuid;

/// The stored request of a generic workload, if it is one.
pub(crate) fn generic_request(row: &StoredWorkload) -> Option<Generic> {
    if row.kind != WorkloadKind::Generic {
        return None;
    }
    match Request::parse(&row.spec, row.kind) {
        Ok(Request::Generic(generic)) => Some(*generic),
        _ => None,
    }
}

/// The verdict to record for a generic workload whose live Job has none yet, if a rule holds.
pub(crate) fn due_verdict(request: &Generic, observed: &Observed) -> Option<Verdict> {
    let job = observed.job.as_ref()?;
    if job.deleting || job.verdict.is_some() {
        return None;
    }
    finish::judge(request, &job.name, &observed.pods)
}

impl Controller {
    /// Records a generic job's verdict on its Job once a rule holds, and acts on its clean-up
    /// policy.
    pub(super) async fn judge(&self, row: &StoredWorkload, project: &Project) -> Result<()> {
        let Some(request) = generic_request(row) else {
            return Ok(());
        };
        let verdict = {
            let index = self.shared.index();
            index
                .observed(row.id)
                .and_then(|e| due_verdict(&request, &e.observed))
        };
        let Some(verdict) = verdict else {
            return Ok(());
        };
        let ns = &project.namespace;
        let Some(job) =
            record_verdict(&self.client, ns, &row.name, row.id, &self.key, &verdict).await?
        else {
            return Ok(());
        };
        tracing::info!(workload = %row.id, outcome = verdict.outcome.as_str(), reason = %verdict.reason, "a generic job's rule decided it");
        if request.request().spec.clean_up() == CleanUpPolicy::Unfinished {
            let action = match verdict.outcome {
                Outcome::Succeeded => "CompleteJob",
                Outcome::Failed => "TerminateJob",
            };
            command(&self.client, &job, action, &verdict.reason).await?;
        }
        Ok(())
    }
}

/// Annotates the workload's Job with the verdict; the Job as it is now, or `None` when it is
/// gone or not the workload's.
async fn record_verdict(
    client: &Client,
    namespace: &str,
    name: &str,
    id: Uuid,
    key: &OwnerKey,
    verdict: &Verdict,
) -> Result<Option<Job>> {
    let jobs = Api::<Job>::namespaced(client.clone(), namespace);
    let Some(job) = jobs.get_opt(name).await? else {
        return Ok(None);
    };
    if key.owner(&job.metadata) != Some(id) || job.metadata.deletion_timestamp.is_some() {
        return Ok(None);
    }
    let patch = json!({ "metadata": { "annotations": {
        VERDICT_ANNOTATION: verdict.outcome.as_str(),
        VERDICT_REASON_ANNOTATION: verdict.reason,
    } } });
    let job = jobs
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await?;
    Ok(Some(job))
}

/// A `bus.volcano.sh/v1alpha1` Command for `job`, as `vcctl` makes them: Volcano's controller
/// takes the action and deletes the Command.
async fn command(client: &Client, job: &Job, action: &str, reason: &str) -> Result<()> {
    let gvk = GroupVersionKind::gvk("bus.volcano.sh", "v1alpha1", "Command");
    let resource = ApiResource::from_gvk_with_plural(&gvk, "commands");
    let namespace = job.metadata.namespace.clone().unwrap_or_default();
    let name = job.metadata.name.clone().unwrap_or_default();
    let owner = job.controller_owner_ref(&());
    let mut object = DynamicObject::new("", &resource).within(&namespace);
    object.metadata.name = None;
    object.metadata.generate_name = Some(format!("{name}-{}-", action.to_lowercase()));
    object.metadata.owner_references = owner.clone().map(|o| vec![o]);
    object.data =
        json!({ "action": action, "target": owner, "reason": "GenericJobRule", "message": reason });
    Api::<DynamicObject>::namespaced_with(client.clone(), &namespace, &resource)
        .create(&PostParams::default(), &object)
        .await?;
    tracing::info!(job = %name, %namespace, action, "asked Volcano to end the Job");
    Ok(())
}
