//! Edits of a live training, after seeds/001: the edited request is checked like a submit, admitted
//! against its project's and department's limits without its own use, and stored on the condition
//! that nobody changed the request since it was read. The controller then brings the Job along.

use super::Workloads;
use super::admission::{Weighed, admission, log_standing};
use crate::db::workloads::{Change, WorkloadListing};
use crate::service::lookup::actor;
use app::error::AppError;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::edit::Edit;
use tephra_core::model::phase::Phase;
use tephra_core::model::principal::Principal;

impl Workloads {
    /// Applies `body` (an [`Edit`]) to the training `id` that should run.
    pub async fn edit(
        &self,
        kind: Option<WorkloadKind>,
        principal: &Principal,
        id: &str,
        body: &serde_json::Value,
    ) -> Result<WorkloadListing, AppError> {
        let edit = Edit::parse(body).map_err(AppError::Rejected)?;
        let listing = self
            .find_for(kind, principal, id, Permission::ManageWorkloads)
            .await?;
        let w = &listing.workload;
        if w.kind == WorkloadKind::Generic {
            return Err(AppError::Conflict(format!(
                "generic job {:?} cannot change while it runs: its replica types and rules are \
                 fixed; clone it and submit the copy",
                w.name
            )));
        }
        if w.desired_phase != Phase::Running || w.actual_phase.is_finished() {
            return Err(AppError::WrongPhase {
                message: format!(
                    "cannot edit {} {:?}: it is {} (desired {}); only a training that should run \
                     can change; resume it first, or clone it",
                    w.kind.noun(),
                    w.name,
                    w.actual_phase,
                    w.desired_phase
                ),
                desired: w.desired_phase,
                actual: w.actual_phase,
            });
        }
        let edited = edit
            .apply(w.kind == WorkloadKind::Distributed, &w.spec)
            .map_err(AppError::Rejected)?;
        let Weighed { checked, demand } = self.weigh(w.kind, principal, &edited).await?;
        let (project, department) = (&checked.project, &checked.department);
        let change = Change {
            actor: actor(principal),
            action: tephra_core::model::history::HistoryAction::Edit,
            detail: serde_json::json!({ "changes": edit }),
        };
        let nodes = self.cluster.largest_nodes();
        let standing = self
            .db
            .workloads()
            .edit_admitted(
                w,
                department.id,
                &checked.value,
                demand.total,
                change,
                // An edit changes a workload that already counts as waiting, if it waits.
                admission(project, department, &demand, nodes, None),
            )
            .await?
            .map_err(AppError::Rejected)?
            .ok_or_else(|| {
                AppError::Conflict(format!(
                    "{} {:?} changed while this edit was made (another edit or action came \
                     first); read it again and retry",
                    w.kind.noun(),
                    w.name
                ))
            })?;
        log_standing(w.id, &standing);
        self.changed(w.id);
        tracing::info!(workload = %w.id, "accepted an edit");
        Ok(self.db.workloads().listing(w.id).await?)
    }
}
