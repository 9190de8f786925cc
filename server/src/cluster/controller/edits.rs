//! Running Jobs follow edits of their stored request (seed 001): the request is rendered again and
//! what Volcano lets change (workers, gang, priority class) is patched onto the Job. A Job someone
//! changed by hand (drift) is left as it is, as everywhere else.

use super::{Controller, Error, Result};
use crate::cluster::live_edit;
use crate::db::projects::Project;
use crate::db::workloads::StoredWorkload;
use tephra_core::domain::live_edit::Shape;
use tephra_core::domain::status::{Observed, drift};

/// The changeable part of the workload's Job as the watch last saw it, when there is a Job to
/// bring along: present, not being deleted, and not changed by hand.
pub(super) fn live_shape(observed: &Observed) -> Option<Shape> {
    let job = observed.job.as_ref()?;
    (!job.deleting && drift(observed).is_none()).then(|| job.shape.clone())
}

impl Controller {
    /// Patches the Job when the stored request (edited since) renders another shape than `live`.
    pub(super) async fn follow_edit(
        &self,
        row: &StoredWorkload,
        project: &Project,
        live: &Shape,
    ) -> Result<()> {
        let creator = self.db.users().get(row.created_by).await?;
        let rendered = crate::rendered::render(row, project, &creator, &self.profile)
            .map_err(Error::render)?;
        let desired = Shape::of(&rendered.job.spec);
        if &desired == live {
            return Ok(());
        }
        self.still_allowed(row, project).await?;
        live_edit::edit_job(
            &self.client,
            &project.namespace,
            &row.name,
            row.id,
            &self.key,
            &desired,
        )
        .await
    }
}
