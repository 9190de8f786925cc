//! Suspend, resume and delete: a desired phase recorded on the condition that nobody changed it
//! since it was read.

use super::Control;
use crate::db::workloads::{Change, WorkloadListing};
use crate::domain::authz::Permission;
use crate::domain::request::WorkloadKind;
use app::error::AppError;
use app::model::action::Action;
use app::model::phase::Phase;
use app::model::principal::Principal;

impl Control {
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
            actor: principal.user_id.parse().ok(),
            action: &format!("workload.{}", action.verb()),
            detail: serde_json::json!({ "from": w.desired_phase, "to": desired }),
        };
        let won = self
            .db
            .workloads()
            .transition(w.id, w.desired_phase, desired, change)
            .await?;
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
        self.cluster.poke(w.id);
        tracing::info!(workload = %w.id, action = action.verb(), "accepted an action");
        Ok(self.db.workloads().listing(w.id).await?)
    }
}
