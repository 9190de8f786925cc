//! What the controller does to a workload's objects: creates them, adopts a stop Volcano made,
//! and deletes them in order before the row is marked deleted.

use super::{Controller, Error, Result};
use crate::cluster::{apply, dependents, event_of};
use crate::db::projects::Project;
use crate::db::workloads::{Change, StoredWorkload};
use kube::Api;
use kube::api::PostParams;
use tephra_core::domain::policy::{self, PerKind, Policy, PolicyKind};
use tephra_core::domain::request::Request;
use tephra_core::domain::volcano::Job;
use tephra_core::model::phase::Phase;

impl Controller {
    /// Volcano stopped the Job: record the workload as suspended (if no action came first) and
    /// remove the stopped Job, so a resume creates it again like any other.
    pub(super) async fn adopt_stop(&self, row: &StoredWorkload, why: Option<String>) -> Result<()> {
        // The watch may lag: a Job this stop was already adopted for (and deleted) can still
        // look stopped and alive in the index after the user resumed. The API server says
        // whether it is still there and not being deleted; otherwise a resume would be undone.
        let ns = self.db.projects().get(row.project_id).await?.namespace;
        let jobs = Api::<Job>::namespaced(self.client.clone(), &ns);
        match jobs.get_opt(&row.name).await? {
            Some(job)
                if job.metadata.deletion_timestamp.is_none()
                    && self.key.owner(&job.metadata) == Some(row.id)
                    && job.status.as_ref().is_some_and(|s| {
                        matches!(s.state.phase.as_str(), "Aborting" | "Aborted")
                    }) => {}
            _ => return Ok(()),
        }
        let change = Change {
            actor: None,
            action: tephra_core::model::history::HistoryAction::Suspend,
            detail: serde_json::json!({ "from": Phase::Running, "to": Phase::Stopped, "by": "cluster", "reason": why }),
        };
        if let Some(updated) = self
            .db
            .workloads()
            .transition(row.id, Phase::Running, Phase::Stopped, change)
            .await?
        {
            tracing::info!(workload = %row.id, "Volcano stopped the Job; the workload is now suspended");
            crate::cluster::publish(&self.events, &event_of(&updated, false));
            apply::delete_job(&self.client, &ns, &row.name, row.id, &self.key).await?;
        }
        Ok(())
    }

    /// Renders the stored request and creates what is missing: the objects beside the Job (see
    /// `beside`), then the Job, each signed as the workload's. `every` holds the project's
    /// policies as read for this create.
    pub(super) async fn create(
        &self,
        row: &StoredWorkload,
        project: &Project,
        every: &PerKind<Vec<Policy>>,
    ) -> Result<()> {
        let request = self.allowed_by(row, every.get(PolicyKind::of(row.kind)))?;
        let creator = self.db.users().get(row.created_by).await?;
        let profile = &self.profile;
        let mut rendered =
            crate::rendered::render_parsed(row, &request, project, &creator, profile)
                .map_err(Error::render)?;
        let ns = &project.namespace;
        let key = &self.key;
        dependents::create(&self.client, key, row.id, ns, &mut rendered).await?;
        apply::sign(key, row.id, &mut rendered.job);
        let jobs = Api::<Job>::namespaced(self.client.clone(), ns);
        match jobs.create(&PostParams::default(), &rendered.job).await {
            Ok(_) => {
                tracing::info!(workload = %row.id, job = %row.name, namespace = %ns, "created the Volcano Job");
                Ok(())
            }
            Err(kube::Error::Api(status)) if status.is_already_exists() => {
                apply::create_owned(&jobs, key, row.id, &rendered.job).await
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Checks the stored request against today's policies and node protection before a Job is
    /// (re)created: a policy may have changed since it was admitted, and a row edited in the
    /// database must not reach the cluster either.
    pub(super) async fn still_allowed(
        &self,
        row: &StoredWorkload,
        project: &Project,
    ) -> Result<()> {
        let every = self.db.policies().layers_of_project(project).await?;
        self.allowed_by(row, every.get(PolicyKind::of(row.kind)))
            .map(drop)
    }

    /// [`Self::still_allowed`] against `layers` already read; the request as parsed for the
    /// check, so a create renders it without parsing it again.
    fn allowed_by(&self, row: &StoredWorkload, layers: &[Policy]) -> Result<Request> {
        let request = Request::parse(&row.spec, row.kind).map_err(Error::render)?;
        let refused = policy::refusals(&row.spec, &request, layers, &self.profile);
        if refused.is_empty() {
            Ok(request)
        } else {
            Err(Error::refused(&refused))
        }
    }

    /// Deletes the Job first, then (once the API server reports no Job or pod of the workload)
    /// its PVCs and Services; marks the row deleted when nothing is left.
    pub(super) async fn delete(&self, row: &StoredWorkload, project: &Project) -> Result<()> {
        let ns = &project.namespace;
        let client = &self.client;
        apply::delete_job(client, ns, &row.name, row.id, &self.key).await?;
        if apply::remaining(client, ns, &row.name, row.id, &self.key).await? > 0 {
            // The next poke or pass looks again.
            return Ok(());
        }
        if dependents::delete(client, ns, row.id, &self.key).await? > 0 {
            return Ok(());
        }
        let Some(deleted) = self.db.workloads().mark_deleted(row.id).await? else {
            return Ok(());
        };
        self.shared.index_mut().remove(row.id);
        tracing::info!(workload = %row.id, "workload deleted; nothing of it is left in the cluster");
        crate::cluster::publish(&self.events, &event_of(&deleted, true));
        Ok(())
    }
}
