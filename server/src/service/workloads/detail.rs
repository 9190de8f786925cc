//! What the dashboard's server functions ask of workloads, in the UI's shapes: a page of list
//! rows with their GPU use now, one workload's detail, and an edit sent by the form.

use super::{Workloads, workload_response};
use app::error::AppError;
use tephra_core::model::edit::Edit;
use tephra_core::model::phase::Phase;
use tephra_core::model::principal::Principal;
use tephra_core::model::waits::{Wait, waits};
use tephra_core::model::workload::{
    HistoryEntry, Workload, WorkloadDetail, WorkloadPage, WorkloadQuery, WorkloadRow,
};

impl Workloads {
    /// One page of the list's rows, with the current GPU use of those that run.
    pub async fn rows(
        &self,
        principal: &Principal,
        query: &WorkloadQuery,
    ) -> Result<WorkloadPage, AppError> {
        let mut page = self.list(None, principal, query).await?;
        self.fill_gpu_use(&mut page.workloads).await;
        Ok(WorkloadPage {
            workloads: page.workloads.iter().map(WorkloadRow::from).collect(),
            total: page.total,
            next: page.next,
            offset: page.offset,
            limit: page.limit,
        })
    }

    /// The workload with its history, what it renders to and where it stands against quotas.
    pub async fn detail(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadDetail, AppError> {
        let listing = self.find(None, principal, id).await?;
        // `find` checked that the principal may read it.
        let history = self.history_of(listing.workload.id).await?;
        let rendered_yaml = self.rendered_yaml(&listing).await;
        let standing = self.standing(&listing).await?;
        let mut workload = workload_response(&listing);
        let w = &listing.workload;
        let queue = if w.desired_phase == Phase::Running && w.actual_phase.is_waiting() {
            let readable = self.readable_project_ids(principal).await?;
            self.queue_standing(w, &readable).await?
        } else {
            None
        };
        workload.queue_position = queue.as_ref().map(|q| q.position);
        workload.ahead = workload.queue_position.map(|p| p.ahead());
        workload.start_estimate = queue.as_ref().and_then(|q| q.eta.clone());
        let time_limit = w
            .running_since
            .filter(|_| w.desired_phase == Phase::Running)
            .zip(super::stored_limit(w.kind.as_str(), &w.spec))
            .map(|(since, limit)| {
                let ran = (chrono::Utc::now() - since).num_milliseconds() as f64 / 1000.0;
                tephra_core::domain::time_limit::countdown(limit, ran)
            });
        let kept_logs = self.db.workloads().kept_logs(w.id).await?;
        Ok(WorkloadDetail {
            workload,
            queue,
            time_limit,
            kept_logs,
            waits: waits_in(&history, listing.workload.actual_phase),
            history,
            rendered_yaml,
            standing,
        })
    }

    /// [`Self::edit`] with the form's typed edit.
    pub async fn edit_from_form(
        &self,
        principal: &Principal,
        id: &str,
        edit: &Edit,
    ) -> Result<Workload, AppError> {
        let body = serde_json::to_value(edit).map_err(|_| AppError::Internal)?;
        let listing = self.edit(None, principal, id, &body).await?;
        Ok(workload_response(&listing))
    }
}

/// What the workload waited for and how long, from its history: it waits from its submit (as
/// Creating) and each phase change after; the last lasts until now if it still waits (`current`
/// is its phase now), else it is not counted (a workload submitted paused never waited).
fn waits_in(history: &[HistoryEntry], current: Phase) -> Vec<Wait> {
    use tephra_core::model::history::HistoryAction;
    let seconds = |at: &str| {
        chrono::DateTime::parse_from_rfc3339(at)
            .ok()
            .map(|t| t.timestamp_millis() as f64 / 1000.0)
    };
    let changes: Vec<(f64, Phase, Option<&str>)> = history
        .iter()
        .filter_map(|entry| {
            let at = seconds(&entry.at)?;
            match entry.action {
                HistoryAction::Submit => Some((at, Phase::Creating, None)),
                HistoryAction::Phase => {
                    let phase = entry.detail["to"].as_str()?.parse().ok()?;
                    Some((at, phase, entry.detail["reason"].as_str()))
                }
                _ => None,
            }
        })
        .collect();
    let now = match changes.last() {
        Some((at, _, _)) if !current.is_waiting() => *at,
        _ => chrono::Utc::now().timestamp_millis() as f64 / 1000.0,
    };
    waits(&changes, now)
}
