//! Suspend, resume and delete: a desired phase recorded on the condition that nobody changed it
//! since it was read.

use super::Workloads;
use super::admission::{admission, log_standing, stored_demand};
use crate::db::workloads::{Change, StoredWorkload, WorkloadListing};
use crate::service::lookup::{actor, policy_layers};
use app::error::AppError;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::policy;
use tephra_core::domain::request::{Request, WorkloadKind};
use tephra_core::model::action::Action;
use tephra_core::model::phase::Phase;
use tephra_core::model::principal::Principal;

impl Workloads {
    /// Records the new desired phase `action` leads to; [`AppError::WrongPhase`] when the phase
    /// does not allow it or another action came first.
    pub async fn act(
        &self,
        kind: Option<WorkloadKind>,
        action: Action,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadListing, AppError> {
        let listing = self
            .find_for(kind, principal, id, Permission::ManageWorkloads)
            .await?;
        let w = &listing.workload;
        let refused = |desired: Phase, actual: Phase, why: String| AppError::WrongPhase {
            message: format!(
                "cannot {} {} {:?}: {why}",
                action.verb(),
                kind.unwrap_or(w.kind).noun(),
                w.name
            ),
            desired,
            actual,
        };
        let desired = action
            .apply(w.desired_phase, w.actual_phase)
            .map_err(|why| refused(w.desired_phase, w.actual_phase, why))?;
        let change = Change {
            actor: actor(principal),
            action: action.into(),
            detail: serde_json::json!({ "from": w.desired_phase, "to": desired }),
        };
        let won = if action == Action::Resume {
            self.resume(w, change).await?
        } else {
            self.db
                .workloads()
                .transition(w.id, w.desired_phase, desired, change)
                .await?
        };
        if won.is_none() {
            // Another action changed the workload between our read and our write; it won.
            let now = self.db.workloads().get(w.id).await?;
            let why = if now.deleted_at.is_some() {
                "it has been deleted".to_owned()
            } else {
                format!(
                    "another action came first: it is now {} (desired {})",
                    now.actual_phase, now.desired_phase
                )
            };
            return Err(refused(now.desired_phase, now.actual_phase, why));
        }
        self.changed(w.id);
        tracing::info!(workload = %w.id, action = action.verb(), "accepted an action");
        Ok(self.db.workloads().listing(w.id).await?)
    }

    /// A resume runs the request again: it must keep today's policies and fit the limits of its
    /// project and department, checked in the transaction that records it.
    async fn resume(
        &self,
        w: &StoredWorkload,
        change: Change,
    ) -> Result<Option<StoredWorkload>, AppError> {
        let project = self.db.projects().get(w.project_id).await?;
        let layers = policy_layers(&self.db, &project, w.kind).await?;
        let broken = match Request::parse(&w.spec, w.kind) {
            Ok(request) => policy::refusals(&w.spec, &request, &layers, &self.profile),
            Err(_) => policy::check_request(&w.spec, &layers),
        };
        if !broken.is_empty() {
            return Err(AppError::Rejected(broken));
        }
        let Some(demand) = stored_demand(w.kind, &w.spec) else {
            tracing::warn!(workload = %w.id, "a stored request no longer parses; resumed without a quota check");
            return Ok(self
                .db
                .workloads()
                .transition(w.id, w.desired_phase, Phase::Running, change)
                .await?);
        };
        let department = self.db.departments().get(project.department_id).await?;
        let nodes = self.cluster.largest_nodes();
        let resumed = self
            .db
            .workloads()
            .resume_admitted(
                w,
                department.id,
                demand.total,
                change,
                admission(
                    &project,
                    &department,
                    &demand,
                    nodes,
                    Some(self.profile.max_waiting_per_project),
                ),
            )
            .await?
            .map_err(AppError::Rejected)?;
        Ok(resumed.map(|standing| {
            log_standing(w.id, &standing);
            w.clone()
        }))
    }
}
