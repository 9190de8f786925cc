//! Acting on one workload: whether the rules say to (from the row and the index alone), and what
//! to do for its desired phase.

use super::finish_rules::due_verdict;
use super::rules::{Facts, JobSeen, needs_action, ttl_due};
use super::{ACT_TIMEOUT, Action, Controller, Error, Result, edits};
use crate::cluster::apply;
use crate::db::projects::Project;
use crate::db::workloads::{Intent, StoredWorkload};
use crate::metrics::Reconciled;
use chrono::Utc;
use std::time::{Duration, Instant};
use tephra_core::domain::status::{Observed, stopped_in_cluster};
use tephra_core::model::phase::Phase;

/// How long a workload's create trusts the last organisation sync; every pass syncs anyway.
const PROJECT_REFRESH: Duration = Duration::from_secs(60);

/// The rules' view of a workload: its phases and finish, and what the index holds of its Job.
pub(super) fn facts(intent: &Intent, observed: &Observed) -> Facts {
    Facts {
        desired: intent.desired_phase,
        actual: intent.actual_phase,
        finished_at: intent.finished_at,
        job_ttl_seconds: intent.job_ttl_seconds,
        job: observed.job.as_ref().map(|j| JobSeen {
            deleting: j.deleting,
            stopped_by_cluster: stopped_in_cluster(observed).is_some(),
        }),
    }
}

/// What an act did, as far as the workload's status is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Acted {
    /// Created the Job: nothing the status is derived from changed until the watch sees it.
    Created,
    /// Anything else, which may have changed the row.
    Other,
}

/// What the rules read of a row.
fn intent_of(row: &StoredWorkload) -> Intent {
    Intent {
        id: row.id,
        desired_phase: row.desired_phase,
        actual_phase: row.actual_phase,
        finished_at: row.finished_at,
        job_ttl_seconds: row.job_ttl_seconds,
    }
}

impl Controller {
    /// Whether the rules say to act: the Job is missing, stopped by Volcano or outlived its TTL,
    /// the workload is stopping or being deleted, or a generic job's finish rule holds.
    pub(super) fn needs_act(&self, row: &StoredWorkload) -> bool {
        let index = self.shared.index();
        let nothing = Observed::default();
        let observed = index.observed(row.id).map_or(&nothing, |e| &e.observed);
        if needs_action(&facts(&intent_of(row), observed), Utc::now()) {
            return true;
        }
        row.desired_phase == Phase::Running
            && !row.actual_phase.is_finished()
            && self
                .generics
                .of(row)
                .is_some_and(|request| due_verdict(&request, observed).is_some())
    }

    /// When to look again at a workload nothing is to be done for now: when its backoff ends,
    /// or its finished Job's TTL comes due.
    pub(super) fn next_look(&self, row: &StoredWorkload) -> Action {
        let backoff = self.lock_backoffs().wait(row.id, Instant::now());
        let ttl = match (row.finished_at, row.job_ttl_seconds) {
            (Some(at), Some(ttl)) if row.desired_phase == Phase::Running => {
                let due = at + chrono::Duration::seconds(ttl.max(0));
                let left = (due - Utc::now()).to_std().unwrap_or_default();
                let live_job = self
                    .shared
                    .index()
                    .observed(row.id)
                    .and_then(|e| e.observed.job.as_ref())
                    .is_some_and(|j| !j.deleting);
                live_job.then_some(left)
            }
            _ => None,
        };
        match backoff.into_iter().chain(ttl).min() {
            Some(after) => Action::Requeue(after),
            None => Action::AwaitChange,
        }
    }

    /// [`Self::act`], bounded by [`ACT_TIMEOUT`] and counted.
    pub(super) async fn act_timed(&self, row: &StoredWorkload) -> Result<Acted> {
        let started = Instant::now();
        let span = tracing::info_span!("reconcile", workload = %row.id);
        let act = tracing::Instrument::instrument(self.act(row), span);
        let outcome = match tokio::time::timeout(ACT_TIMEOUT, act).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Error::Timeout),
        };
        self.metrics.reconciled(
            match &outcome {
                Ok(_) => Reconciled::Ok,
                Err(e) if e.is_permanent() => Reconciled::Permanent,
                Err(_) => Reconciled::Retried,
            },
            started,
        );
        outcome
    }

    async fn act(&self, row: &StoredWorkload) -> Result<Acted> {
        let id = row.id;
        let project = self.db.projects().get(row.project_id).await?;
        let (job, nothing_left, stopped, live) = {
            let index = self.shared.index();
            match index.observed(id) {
                Some(e) => (
                    e.observed.job.as_ref().map(|j| j.deleting),
                    e.observed.is_empty(),
                    stopped_in_cluster(&e.observed),
                    edits::live_shape(&e.observed),
                ),
                None => (None, true, None, None),
            }
        };
        let ns = &project.namespace;
        let done = match row.desired_phase {
            Phase::Running if row.actual_phase.is_finished() => {
                if job == Some(false) && ttl_due(row.finished_at, row.job_ttl_seconds, Utc::now()) {
                    apply::delete_job(&self.client, ns, &row.name, id, &self.key).await?;
                }
                Ok(())
            }
            Phase::Running if stopped.is_some() => self.adopt_stop(row, stopped).await,
            // Pods of a previous Job must be gone first: the new Job's pods take their names.
            Phase::Running if job.is_none() && nothing_left => {
                return self
                    .create_missing(row, &project)
                    .await
                    .map(|()| Acted::Created);
            }
            Phase::Running => {
                self.judge(row, &project).await?;
                match live {
                    Some(shape) => self.follow_edit(row, &project, &shape).await,
                    None => Ok(()),
                }
            }
            Phase::Stopped if job == Some(false) => {
                apply::delete_job(&self.client, ns, &row.name, id, &self.key).await?;
                Ok(())
            }
            Phase::Deleting => self.delete(row, &project).await,
            _ => Ok(()),
        };
        done.map(|()| Acted::Other)
    }

    /// Creates a workload's missing Job, after what it needs: the project's queue and
    /// namespace, and the objects beside it.
    async fn create_missing(&self, row: &StoredWorkload, project: &Project) -> Result<()> {
        // The project may be new since the last pass: its queue must exist first.
        self.sync_org_if_older(PROJECT_REFRESH).await?;
        // One read of the project's policies serves the namespace's level and the request's check.
        let every = self.db.policies().layers_of_project(project).await?;
        // The namespace is checked here whatever the sync made of it (the sync passes over a
        // namespace that is not this installation's; this workload must not). A policy changed
        // a moment ago may also allow what the Pod Security level still refuses.
        self.ensure_namespace_for_create(project, &every).await?;
        let created = self.create(row, project, &every).await;
        if created.is_err() {
            // The namespace may be gone or changed: the retry applies it again.
            self.namespaces.forget(&project.namespace);
        }
        created
    }
}
