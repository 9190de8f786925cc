//! The reconciler: makes the cluster match each workload's desired phase, idempotently.
//!
//! - Running: create the project's namespace and queue, the workload's PVCs and Services, and
//!   the Volcano Job, unless the Job exists or the workload has finished. The Job's name is fixed
//!   in the row, so a create after a crash either succeeds once or meets AlreadyExists. Once the
//!   finish is recorded, the Job is deleted after `autoDeletionTimeAfterCompletionSeconds` (Tephra
//!   does this, not Volcano's TTL, so no outcome is lost to a collected Job). A Job Volcano
//!   aborted (`vcctl job suspend`, or preempted with `terminateAfterPreemption`) makes the
//!   workload suspended, so resume works as for any suspended training.
//! - Stopped: delete the Job with foreground propagation (pods go first). Not Volcano's AbortJob
//!   and ResumeJob: every ResumeJob spends one of the Job's retries, and the third resume fails
//!   the Job (volcano-sh/volcano#3067). Delete-and-recreate can repeat without limit, and the
//!   PVCs and Services, owned by the workload rather than the Job, survive it.
//! - Deleting: delete the Job, then the PVCs and Services; once the API server (not the watch
//!   cache, which may not have seen a Job created a moment ago) reports nothing left, mark the
//!   row deleted.
//!
//! It acts when poked for one workload and, every `resync`, for all of them, so it converges after
//! restarts and outages (level-triggered). Errors back off per workload (`backoff`). Only objects
//! whose owner signature verifies are adopted or deleted. Jobs of deleted rows are removed; Jobs
//! with no row at all are reported, not deleted.

use super::apply;
use super::backoff::{Backoffs, Noted};
use super::{Orphan, Shared, event_of};
use crate::db::workloads::{Change, Intent, Workload, WorkloadKind};
use crate::db::{Database, DbError, projects::Project};
use crate::domain::cluster::ClusterProfile;
use crate::domain::labels;
use crate::domain::ownership::OwnerKey;
use crate::domain::request::{Kind, Request};
use crate::domain::status::stopped_in_cluster;
use crate::domain::volcano::Job;
use app::model::phase::Phase;
use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Service};
use kube::api::PostParams;
use kube::{Api, Client};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

/// The field manager of everything Tephra applies.
pub const FIELD_MANAGER: &str = "tephra";
/// How often project namespaces and queues are applied again (someone may delete them).
const PROJECT_REFRESH: Duration = Duration::from_secs(60);
/// How long the first pass waits for the watches to list the cluster.
const SYNC_WAIT: Duration = Duration::from_secs(5);
/// The longest one workload may hold the reconciler: an API server that accepts connections but
/// does not answer must not stall every other workload.
const ACT_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("{0}")]
    Kube(#[from] kube::Error),
    /// The stored request no longer renders (e.g. the cluster profile changed).
    #[error("the stored request cannot be rendered: {0}")]
    Render(String),
    #[error(
        "a {kind} named {name} already exists in {namespace} and is not this workload's; delete or \
         rename it, and Tephra creates the workload's own at once"
    )]
    NameTaken {
        kind: String,
        namespace: String,
        name: String,
        uid: String,
    },
    #[error("the cluster did not answer within {} seconds", ACT_TIMEOUT.as_secs())]
    Timeout,
}

impl Error {
    fn render(errors: Vec<app::model::validation::FieldError>) -> Self {
        let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
        Error::Render(listed.join("; "))
    }

    /// The reason a user sees beside the phase.
    fn plain(&self) -> String {
        match self {
            Error::Kube(kube::Error::Api(status)) => {
                format!("the cluster refused it: {}", status.message)
            }
            Error::Kube(other) => format!("cluster unreachable: {other}"),
            other => other.to_string(),
        }
    }

    fn is_cluster(&self) -> bool {
        matches!(self, Error::Kube(_) | Error::Timeout)
    }

    /// Retrying alone will not fix it: a taken name, a request that does not render, or the
    /// API server refusing the object itself (not a conflict or throttling).
    fn is_permanent(&self) -> bool {
        match self {
            Error::Render(_) | Error::NameTaken { .. } => true,
            Error::Kube(kube::Error::Api(status)) => {
                (400..500).contains(&status.code) && !matches!(status.code, 409 | 429)
            }
            _ => false,
        }
    }

    /// What a permanent error depends on, checked each pass to retry when it changes.
    fn cause(&self) -> Option<String> {
        match self {
            Error::NameTaken {
                kind,
                namespace,
                name,
                uid,
            } => Some(format!("{kind}/{namespace}/{name}/{uid}")),
            _ => None,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub struct Reconciler {
    pub(super) db: Database,
    pub(super) client: Client,
    pub(super) profile: ClusterProfile,
    pub(super) shared: Shared,
    pub(super) key: OwnerKey,
    /// Per-workload errors and when to try again; the tracker shows them on the workload.
    pub(super) backoffs: Arc<Mutex<Backoffs>>,
    /// Asks the tracker to derive a workload again after acting on it.
    pub(super) refresh: mpsc::UnboundedSender<Uuid>,
    pub(super) events: super::Events,
    pub(super) resync: Duration,
    /// Pokes: workloads to look at now. Behind a lock so a restarted reconciler takes it over.
    pub(super) trigger: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Uuid>>>,
    pub(super) synced: watch::Receiver<bool>,
}

/// What the index says of a workload's Job: whether it is being deleted, and whether Volcano
/// stopped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct JobSeen {
    deleting: bool,
    stopped_by_cluster: bool,
}

/// Whether the Job of a finished workload has outlived its `autoDeletionTimeAfterCompletionSeconds`.
fn ttl_due(intent: &Intent, now: DateTime<Utc>) -> bool {
    match (intent.finished_at, intent.job_ttl_seconds) {
        (Some(at), Some(ttl)) => now >= at + chrono::Duration::seconds(ttl.max(0)),
        _ => false,
    }
}

/// What a full pass decides from the row and the index alone, before acting.
fn needs_action(
    intent: &Intent,
    desired: Phase,
    actual: Phase,
    job: Option<JobSeen>,
    now: DateTime<Utc>,
) -> bool {
    let live_job = job.is_some_and(|j| !j.deleting);
    match desired {
        Phase::Running if actual.is_finished() => live_job && ttl_due(intent, now),
        Phase::Running => job.is_none() || job.is_some_and(|j| j.stopped_by_cluster),
        Phase::Stopped => live_job,
        Phase::Deleting => true,
        _ => false,
    }
}

impl Reconciler {
    pub async fn run(&self) {
        let mut trigger = self.trigger.lock().await;
        // Acting before the watches have listed the cluster would try to create Jobs that exist;
        // harmless (AlreadyExists) but wasteful with many workloads.
        let mut synced = self.synced.clone();
        let _ = tokio::time::timeout(SYNC_WAIT, synced.wait_for(|s| *s)).await;
        let mut ensured: HashMap<Uuid, Instant> = HashMap::new();
        let mut tick = tokio::time::interval(self.resync);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                Some(id) = trigger.recv() => {
                    // Handle everything already queued together, each workload once. A poke is a
                    // user's action (or the cluster's): it retries at once, backoff or not.
                    let mut ids = HashSet::from([id]);
                    while let Ok(more) = trigger.try_recv() {
                        ids.insert(more);
                    }
                    for id in ids {
                        self.lock_backoffs().retry_now(id, Instant::now());
                        self.reconcile(id, &mut ensured).await;
                    }
                }
                _ = tick.tick() => self.pass(&mut ensured).await,
            }
        }
    }

    fn lock_backoffs(&self) -> std::sync::MutexGuard<'_, Backoffs> {
        self.backoffs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Looks at every live workload, acts where the cluster differs, and tidies up after rows
    /// that are gone.
    async fn pass(&self, ensured: &mut HashMap<Uuid, Instant>) {
        let intents = match self.db.workloads().intents().await {
            Ok(intents) => intents,
            Err(error) => {
                tracing::error!(%error, "reconciler cannot read workloads");
                return;
            }
        };
        self.recheck_causes().await;
        let known: HashSet<Uuid> = intents.iter().map(|i| i.id).collect();
        let now = (Instant::now(), Utc::now());
        let todo: Vec<Uuid> = {
            let index = self.shared.index();
            let backoffs = self.lock_backoffs();
            intents
                .iter()
                .filter(|intent| {
                    let (Ok(desired), Ok(actual)) = (
                        intent.desired_phase.parse::<Phase>(),
                        intent.actual_phase.parse::<Phase>(),
                    ) else {
                        return false;
                    };
                    let job = index.observed(intent.id).and_then(|e| {
                        e.observed.job.as_ref().map(|j| JobSeen {
                            deleting: j.deleting,
                            stopped_by_cluster: stopped_in_cluster(&e.observed).is_some(),
                        })
                    });
                    needs_action(intent, desired, actual, job, now.1)
                        && backoffs.due(intent.id, now.0)
                })
                .map(|intent| intent.id)
                .collect()
        };
        for id in todo {
            self.reconcile(id, ensured).await;
        }
        self.tidy(&known).await;
    }

    /// Retries at once the workloads whose name was taken by an object that is now gone.
    async fn recheck_causes(&self) {
        let causes = self.lock_backoffs().causes();
        for (id, cause) in causes {
            let parts: Vec<&str> = cause.splitn(4, '/').collect();
            let [kind, namespace, name, uid] = parts[..] else {
                continue;
            };
            if let Ok(false) = apply::still_taken(&self.client, kind, namespace, name, uid).await {
                tracing::info!(workload = %id, %name, "the object holding the name is gone; retrying");
                self.lock_backoffs().retry_now(id, Instant::now());
            }
        }
    }

    /// Deletes the Jobs of workloads whose rows are deleted (a delete that finished before the
    /// Job was seen, in an earlier version) and reports Jobs whose rows do not exist at all.
    async fn tidy(&self, known: &HashSet<Uuid>) {
        let namespaces: HashSet<String> = match self.db.projects().list().await {
            Ok(projects) => projects.into_iter().map(|p| p.project.namespace).collect(),
            Err(_) => return,
        };
        let (unknown, mut orphans) = {
            let index = self.shared.index();
            let unknown: Vec<(Uuid, String, String)> = index
                .jobs()
                .filter(|(id, ns)| namespaces.contains(*ns) && !known.contains(id))
                .map(|(id, ns)| {
                    let name = index
                        .observed(id)
                        .and_then(|e| e.observed.job.as_ref())
                        .map(|j| j.name.clone())
                        .unwrap_or_default();
                    (id, ns.to_owned(), name)
                })
                .collect();
            let unsigned: Vec<Orphan> = index
                .unsigned_jobs()
                .filter(|(ns, _, _)| namespaces.contains(*ns))
                .map(|(ns, name, id)| Orphan {
                    namespace: ns.to_owned(),
                    name: name.to_owned(),
                    workload_id: id.to_string(),
                    signed: false,
                })
                .collect();
            (unknown, unsigned)
        };
        for (id, namespace, name) in unknown {
            match self.db.workloads().get(id).await {
                Ok(row) if row.deleted_at.is_some() => {
                    tracing::warn!(workload = %id, job = %row.name, "a deleted workload's Job is still there; deleting it");
                    if let Err(error) =
                        apply::delete_job(&self.client, &namespace, &row.name, id, &self.key).await
                    {
                        tracing::warn!(workload = %id, %error, "cannot delete a deleted workload's Job");
                    }
                }
                Ok(_) => {}
                Err(_) => orphans.push(Orphan {
                    namespace,
                    name,
                    workload_id: id.to_string(),
                    signed: true,
                }),
            }
        }
        orphans.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let mut stored = self
            .shared
            .orphans
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for orphan in orphans.iter().filter(|o| !stored.contains(o)) {
            tracing::warn!(
                namespace = %orphan.namespace,
                workload = %orphan.workload_id,
                job = %orphan.name,
                signed = orphan.signed,
                "a Volcano Job carries Tephra's labels but is no live workload's; leaving it alone"
            );
        }
        *stored = orphans;
    }

    /// Acts on one workload and records the outcome for its status.
    async fn reconcile(&self, id: Uuid, ensured: &mut HashMap<Uuid, Instant>) {
        let outcome = match tokio::time::timeout(ACT_TIMEOUT, self.act(id, ensured)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Error::Timeout),
        };
        match &outcome {
            Ok(()) => {
                self.lock_backoffs().succeeded(id);
            }
            Err(error) => {
                let noted = self.lock_backoffs().failed(
                    id,
                    error.plain(),
                    error.is_permanent(),
                    error.cause(),
                    (Instant::now(), Utc::now()),
                );
                if noted == Noted::New {
                    tracing::warn!(workload = %id, %error, permanent = error.is_permanent(), "cannot reconcile; will retry with backoff");
                } else {
                    tracing::debug!(workload = %id, %error, "still cannot reconcile");
                }
            }
        }
        {
            let mut last = self
                .shared
                .last_error
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Err(error) = &outcome
                && error.is_cluster()
                && !error.is_permanent()
            {
                *last = Some(error.plain());
            }
        }
        let _ = self.refresh.send(id);
    }

    async fn act(&self, id: Uuid, ensured: &mut HashMap<Uuid, Instant>) -> Result<()> {
        let row = match self.db.workloads().get(id).await {
            Ok(row) if row.deleted_at.is_none() => row,
            Ok(_) | Err(DbError::NotFound) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let project = self.db.projects().get(row.project_id).await?;
        let (job, nothing_left, stopped) = {
            let index = self.shared.index();
            match index.observed(id) {
                Some(e) => (
                    e.observed.job.as_ref().map(|j| j.deleting),
                    e.observed.is_empty(),
                    stopped_in_cluster(&e.observed),
                ),
                None => (None, true, None),
            }
        };
        let ns = &project.namespace;
        match row.desired_phase {
            Phase::Running if row.actual_phase.is_finished() => {
                let intent = Intent {
                    id,
                    desired_phase: row.desired_phase.to_string(),
                    actual_phase: row.actual_phase.to_string(),
                    finished_at: row.finished_at,
                    job_ttl_seconds: row.job_ttl_seconds,
                };
                if job == Some(false) && ttl_due(&intent, Utc::now()) {
                    apply::delete_job(&self.client, ns, &row.name, id, &self.key).await?;
                }
                Ok(())
            }
            Phase::Running if stopped.is_some() => self.adopt_stop(&row, stopped).await,
            // Pods of a previous Job must be gone first: the new Job's pods take their names.
            Phase::Running if job.is_none() && nothing_left => {
                if ensured
                    .get(&project.id)
                    .is_none_or(|at| at.elapsed() > PROJECT_REFRESH)
                {
                    apply::ensure_project(&self.client, &project).await?;
                    ensured.insert(project.id, Instant::now());
                }
                self.create(&row, &project).await
            }
            Phase::Stopped if job == Some(false) => {
                apply::delete_job(&self.client, ns, &row.name, id, &self.key).await?;
                Ok(())
            }
            Phase::Deleting => self.delete(&row, &project).await,
            _ => Ok(()),
        }
    }

    /// Volcano stopped the Job: record the workload as suspended (if no action came first) and
    /// remove the stopped Job, so a resume creates it again like any other.
    async fn adopt_stop(&self, row: &Workload, why: Option<String>) -> Result<()> {
        let change = Change {
            actor: None,
            action: "workload.suspend",
            detail: serde_json::json!({ "from": Phase::Running, "to": Phase::Stopped, "by": "cluster", "reason": why }),
        };
        if let Some(updated) = self
            .db
            .workloads()
            .transition(row.id, Phase::Running, Phase::Stopped, change)
            .await?
        {
            tracing::info!(workload = %row.id, "Volcano stopped the Job; the workload is now suspended");
            super::publish(&self.events, &event_of(&updated, false));
            let ns = self.db.projects().get(row.project_id).await?.namespace;
            apply::delete_job(&self.client, &ns, &row.name, row.id, &self.key).await?;
        }
        Ok(())
    }

    /// Renders the stored request and creates what is missing: PVCs, Services, then the Job,
    /// each signed as the workload's.
    async fn create(&self, row: &Workload, project: &Project) -> Result<()> {
        let kind = match row.kind {
            WorkloadKind::Training => Kind::Training,
            WorkloadKind::Distributed => Kind::Distributed,
        };
        let request = Request::parse(&row.spec, kind).map_err(Error::render)?;
        let creator = self.db.users().get(row.created_by).await?;
        let workload = labels::Workload {
            id: row.id.to_string(),
            job_name: row.name.clone(),
            requested_name: row.requested_name.clone(),
            project: project.name.clone(),
            namespace: project.namespace.clone(),
            queue: project.queue.clone(),
            created_by: creator.email.unwrap_or(creator.display_name),
            kind: row.kind.as_str().to_owned(),
            token_uid_gid: None,
        };
        let mut rendered = request
            .render(&workload, &self.profile)
            .map_err(Error::render)?;
        let ns = &project.namespace;
        let key = &self.key;
        for pvc in &mut rendered.persistent_volume_claims {
            apply::sign(key, row.id, pvc);
            let api = Api::<PersistentVolumeClaim>::namespaced(self.client.clone(), ns);
            apply::create_owned(&api, key, row.id, pvc).await?;
        }
        for service in &mut rendered.services {
            apply::sign(key, row.id, service);
            let api = Api::<Service>::namespaced(self.client.clone(), ns);
            apply::create_owned(&api, key, row.id, service).await?;
        }
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

    /// Deletes the Job first, then (once the API server reports no Job or pod of the workload)
    /// its PVCs and Services; marks the row deleted when nothing is left.
    async fn delete(&self, row: &Workload, project: &Project) -> Result<()> {
        let ns = &project.namespace;
        let client = &self.client;
        apply::delete_job(client, ns, &row.name, row.id, &self.key).await?;
        if apply::remaining(client, ns, &row.name, row.id, &self.key).await? > 0 {
            // The next poke or pass looks again.
            return Ok(());
        }
        if apply::delete_volumes_and_services(client, ns, row.id, &self.key).await? > 0 {
            return Ok(());
        }
        let Some(deleted) = self.db.workloads().mark_deleted(row.id).await? else {
            return Ok(());
        };
        self.shared.index_mut().remove(row.id);
        tracing::info!(workload = %row.id, "workload deleted; nothing of it is left in the cluster");
        super::publish(&self.events, &event_of(&deleted, true));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent(finished_at: Option<DateTime<Utc>>, ttl: Option<i64>) -> Intent {
        Intent {
            id: Uuid::nil(),
            desired_phase: "Running".into(),
            actual_phase: "Running".into(),
            finished_at,
            job_ttl_seconds: ttl,
        }
    }

    fn seen(deleting: bool, stopped_by_cluster: bool) -> Option<JobSeen> {
        Some(JobSeen {
            deleting,
            stopped_by_cluster,
        })
    }

    #[test]
    fn running_workloads_without_a_job_need_one_unless_finished() {
        let now = Utc::now();
        let i = intent(None, None);
        assert!(needs_action(&i, Phase::Running, Phase::Creating, None, now));
        assert!(needs_action(&i, Phase::Running, Phase::Resuming, None, now));
        assert!(!needs_action(
            &i,
            Phase::Running,
            Phase::Running,
            seen(false, false),
            now
        ));
        assert!(!needs_action(
            &i,
            Phase::Running,
            Phase::Completed,
            None,
            now
        ));
        assert!(!needs_action(&i, Phase::Running, Phase::Failed, None, now));
    }

    #[test]
    fn a_finished_workloads_job_is_deleted_once_its_time_is_up() {
        let finished = Utc::now();
        let i = intent(Some(finished), Some(5));
        let job = seen(false, false);
        assert!(!needs_action(
            &i,
            Phase::Running,
            Phase::Completed,
            job,
            finished
        ));
        let later = finished + chrono::Duration::seconds(5);
        assert!(needs_action(
            &i,
            Phase::Running,
            Phase::Completed,
            job,
            later
        ));
        assert!(!needs_action(
            &i,
            Phase::Running,
            Phase::Completed,
            seen(true, false),
            later
        ));
        let keep = intent(Some(finished), None);
        assert!(!needs_action(
            &keep,
            Phase::Running,
            Phase::Failed,
            job,
            later
        ));
    }

    #[test]
    fn a_job_volcano_stopped_needs_the_workload_suspended() {
        let i = intent(None, None);
        assert!(needs_action(
            &i,
            Phase::Running,
            Phase::Stopped,
            seen(false, true),
            Utc::now()
        ));
    }

    #[test]
    fn stopped_workloads_need_their_job_deleted_once() {
        let now = Utc::now();
        let i = intent(None, None);
        assert!(needs_action(
            &i,
            Phase::Stopped,
            Phase::Running,
            seen(false, false),
            now
        ));
        assert!(!needs_action(
            &i,
            Phase::Stopped,
            Phase::Stopping,
            seen(true, false),
            now
        ));
        assert!(!needs_action(&i, Phase::Stopped, Phase::Stopped, None, now));
    }

    #[test]
    fn deleting_workloads_are_always_looked_at() {
        let i = intent(None, None);
        assert!(needs_action(
            &i,
            Phase::Deleting,
            Phase::Deleting,
            None,
            Utc::now()
        ));
    }

    #[test]
    fn errors_that_retrying_cannot_fix_are_permanent() {
        let taken = Error::NameTaken {
            kind: "Job".into(),
            namespace: "ns".into(),
            name: "train".into(),
            uid: "u".into(),
        };
        assert!(taken.is_permanent());
        assert_eq!(taken.cause().as_deref(), Some("Job/ns/train/u"));
        assert!(Error::Render("x".into()).is_permanent());
        assert!(!Error::Timeout.is_permanent());
    }
}
