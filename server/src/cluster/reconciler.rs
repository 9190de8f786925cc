//! The reconciler: makes the cluster match each workload's desired phase, idempotently.
//!
//! - Running: create the project's namespace and queue, the workload's PVCs and Services, and
//!   the Volcano Job, unless the Job exists or the workload has finished. The Job's name is fixed
//!   in the row, so a create after a crash either succeeds once or meets AlreadyExists.
//! - Stopped: delete the Job with foreground propagation (pods go first). Not Volcano's AbortJob
//!   and ResumeJob: every ResumeJob spends one of the Job's retries, and the third resume fails
//!   the Job (volcano-sh/volcano#3067). Delete-and-recreate can repeat without limit, and the
//!   PVCs and Services, owned by the workload rather than the Job, survive it.
//! - Deleting: delete the Job, then the PVCs and Services; once nothing is left, mark the row
//!   deleted.
//!
//! It acts when poked for one workload and, every `resync`, for all of them, so it converges after
//! restarts and outages. Jobs with Tephra's labels but no row are reported, not deleted.

use super::objects::Queue;
use super::{Orphan, Problems, Shared, event_of};
use crate::db::workloads::{Workload, WorkloadKind};
use crate::db::{Database, DbError, projects::Project};
use crate::domain::cluster::ClusterProfile;
use crate::domain::labels::{self, MANAGED_BY, MANAGED_BY_VALUE, PROJECT, WORKLOAD_ID};
use crate::domain::request::{Kind, Request};
use crate::domain::volcano::Job;
use app::model::phase::Phase;
use app::model::workload::WorkloadEvent;
use k8s_openapi::api::core::v1::{Namespace, PersistentVolumeClaim, Service};
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc, watch};
use uuid::Uuid;

/// The field manager of everything Tephra applies.
pub const FIELD_MANAGER: &str = "tephra";
/// How often project namespaces and queues are applied again (someone may delete them).
const PROJECT_REFRESH: Duration = Duration::from_secs(60);
/// How long the first pass waits for the watches to list the cluster.
const SYNC_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("{0}")]
    Kube(#[from] kube::Error),
    /// The stored request no longer renders (e.g. the cluster profile changed).
    #[error("the stored request cannot be rendered: {0}")]
    Render(String),
    #[error("a Job named {name} already exists in {namespace} and belongs to something else")]
    NameTaken { namespace: String, name: String },
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
        matches!(self, Error::Kube(_))
    }
}

type Result<T, E = Error> = std::result::Result<T, E>;

pub struct Reconciler {
    pub(super) db: Database,
    pub(super) client: Client,
    pub(super) profile: ClusterProfile,
    pub(super) shared: Shared,
    /// Why a workload could not be acted on, read by the tracker for the phase message.
    pub(super) problems: Problems,
    /// Asks the tracker to derive a workload again after acting on it.
    pub(super) refresh: mpsc::UnboundedSender<Uuid>,
    pub(super) events: broadcast::Sender<WorkloadEvent>,
    pub(super) resync: Duration,
}

/// What a full pass decides from the index alone, before reading the row.
fn needs_action(desired: Phase, actual: Phase, job: Option<bool>) -> bool {
    match desired {
        Phase::Running => !actual.is_finished() && job.is_none(),
        Phase::Stopped => job == Some(false),
        Phase::Deleting => true,
        _ => false,
    }
}

impl Reconciler {
    pub async fn run(
        self,
        mut trigger: mpsc::UnboundedReceiver<Uuid>,
        mut synced: watch::Receiver<bool>,
    ) {
        // Acting before the watches have listed the cluster would try to create Jobs that exist;
        // harmless (AlreadyExists) but wasteful with many workloads.
        let _ = tokio::time::timeout(SYNC_WAIT, synced.wait_for(|s| *s)).await;
        let mut ensured: HashMap<Uuid, Instant> = HashMap::new();
        let mut tick = tokio::time::interval(self.resync);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                Some(id) = trigger.recv() => {
                    // Handle everything already queued together, each workload once.
                    let mut ids = HashSet::from([id]);
                    while let Ok(more) = trigger.try_recv() {
                        ids.insert(more);
                    }
                    for id in ids {
                        self.reconcile(id, &mut ensured).await;
                    }
                }
                _ = tick.tick() => self.pass(&mut ensured).await,
            }
        }
    }

    /// Looks at every live workload, acts where the cluster differs, and reports orphans.
    async fn pass(&self, ensured: &mut HashMap<Uuid, Instant>) {
        let intents = match self.db.workloads().intents().await {
            Ok(intents) => intents,
            Err(error) => {
                tracing::error!(%error, "reconciler cannot read workloads");
                return;
            }
        };
        let known: HashSet<Uuid> = intents.iter().map(|i| i.id).collect();
        let mut todo = Vec::new();
        {
            let index = self.shared.index.read().expect("index lock");
            for intent in &intents {
                let (Ok(desired), Ok(actual)) = (
                    intent.desired_phase.parse::<Phase>(),
                    intent.actual_phase.parse::<Phase>(),
                ) else {
                    continue;
                };
                let job = index
                    .observed(intent.id)
                    .and_then(|e| e.observed.job.as_ref())
                    .map(|j| j.deleting);
                if needs_action(desired, actual, job) {
                    todo.push(intent.id);
                }
            }
        }
        for id in todo {
            self.reconcile(id, ensured).await;
        }
        self.report_orphans(&known).await;
    }

    async fn report_orphans(&self, known: &HashSet<Uuid>) {
        let namespaces: HashSet<String> = match self.db.projects().list().await {
            Ok(projects) => projects.into_iter().map(|p| p.project.namespace).collect(),
            Err(_) => return,
        };
        let mut orphans: Vec<Orphan> = {
            let index = self.shared.index.read().expect("index lock");
            index
                .jobs()
                .filter(|(id, ns)| namespaces.contains(*ns) && !known.contains(id))
                .map(|(id, ns)| Orphan {
                    namespace: ns.to_owned(),
                    workload_id: id.to_string(),
                })
                .collect()
        };
        orphans.sort_by(|a, b| (&a.namespace, &a.workload_id).cmp(&(&b.namespace, &b.workload_id)));
        let mut stored = self.shared.orphans.lock().expect("orphans lock");
        for orphan in orphans.iter().filter(|o| !stored.contains(o)) {
            tracing::warn!(
                namespace = %orphan.namespace,
                workload = %orphan.workload_id,
                "a Volcano Job carries Tephra's labels but has no workload; leaving it alone"
            );
        }
        *stored = orphans;
    }

    /// Acts on one workload and records the outcome for its phase message.
    async fn reconcile(&self, id: Uuid, ensured: &mut HashMap<Uuid, Instant>) {
        let outcome = self.act(id, ensured).await;
        {
            let mut problems = self.problems.lock().expect("problems lock");
            match &outcome {
                Ok(()) => {
                    problems.remove(&id);
                }
                Err(error) => {
                    problems.insert(id, error.plain());
                }
            }
        }
        {
            let mut last = self.shared.last_error.lock().expect("last error lock");
            match &outcome {
                Err(error) if error.is_cluster() => *last = Some(error.plain()),
                Ok(()) => *last = None,
                Err(_) => {}
            }
        }
        if let Err(error) = &outcome {
            tracing::warn!(workload = %id, %error, "cannot reconcile; will retry");
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
        let job = {
            let index = self.shared.index.read().expect("index lock");
            index.observed(id).map(|e| {
                (
                    e.observed.job.as_ref().map(|j| j.deleting),
                    e.observed.is_empty(),
                )
            })
        };
        let (job, nothing_left) = job.unwrap_or((None, true));
        match row.desired_phase {
            // Pods of a previous Job must be gone first: the new Job's pods take their names.
            Phase::Running if !row.actual_phase.is_finished() && job.is_none() && nothing_left => {
                if ensured
                    .get(&project.id)
                    .is_none_or(|at| at.elapsed() > PROJECT_REFRESH)
                {
                    self.ensure_project(&project).await?;
                    ensured.insert(project.id, Instant::now());
                }
                self.create(&row, &project).await
            }
            Phase::Stopped if job == Some(false) => {
                self.delete_job(&project.namespace, &row.name).await
            }
            Phase::Deleting => self.delete(&row, &project, job, nothing_left).await,
            _ => Ok(()),
        }
    }

    /// The namespace and Volcano queue of a project, applied (so repeated calls are cheap and
    /// repair what someone changed).
    async fn ensure_project(&self, project: &Project) -> Result<()> {
        let labels = [
            (MANAGED_BY.to_owned(), MANAGED_BY_VALUE.to_owned()),
            (PROJECT.to_owned(), project.name.clone()),
        ];
        let mut namespace = Namespace::default();
        namespace.metadata.name = Some(project.namespace.clone());
        namespace.metadata.labels = Some(labels.clone().into());
        let params = PatchParams::apply(FIELD_MANAGER).force();
        Api::<Namespace>::all(self.client.clone())
            .patch(&project.namespace, &params, &Patch::Apply(&namespace))
            .await?;
        let mut queue = Queue::new(
            &project.queue,
            super::objects::QueueSpec {
                weight: 1,
                reclaimable: true,
            },
        );
        queue.metadata.labels = Some(labels.into());
        Api::<Queue>::all(self.client.clone())
            .patch(&project.queue, &params, &Patch::Apply(&queue))
            .await?;
        Ok(())
    }

    /// Renders the stored request and creates what is missing: PVCs, Services, then the Job.
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
        let rendered = request
            .render(&workload, &self.profile)
            .map_err(Error::render)?;
        let ns = &project.namespace;
        for pvc in &rendered.persistent_volume_claims {
            create_missing(
                Api::<PersistentVolumeClaim>::namespaced(self.client.clone(), ns),
                pvc,
            )
            .await?;
        }
        for service in &rendered.services {
            create_missing(Api::<Service>::namespaced(self.client.clone(), ns), service).await?;
        }
        let jobs = Api::<Job>::namespaced(self.client.clone(), ns);
        match jobs.create(&PostParams::default(), &rendered.job).await {
            Ok(_) => {
                tracing::info!(workload = %row.id, job = %row.name, namespace = %ns, "created the Volcano Job");
                Ok(())
            }
            Err(kube::Error::Api(status)) if status.is_already_exists() => {
                // Ours from before a crash, or someone else's Job with the same name.
                let existing = jobs.get(&row.name).await?;
                if existing.labels().get(WORKLOAD_ID) == Some(&row.id.to_string()) {
                    Ok(())
                } else {
                    Err(Error::NameTaken {
                        namespace: ns.clone(),
                        name: row.name.clone(),
                    })
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn delete_job(&self, namespace: &str, name: &str) -> Result<()> {
        let jobs = Api::<Job>::namespaced(self.client.clone(), namespace);
        match jobs.delete(name, &DeleteParams::foreground()).await {
            Ok(_) => {
                tracing::info!(job = %name, %namespace, "deleting the Volcano Job");
                Ok(())
            }
            Err(kube::Error::Api(status)) if status.is_not_found() => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes the Job first, then (once its pods are gone) the workload's own PVCs and
    /// Services; marks the row deleted when nothing is left.
    async fn delete(
        &self,
        row: &Workload,
        project: &Project,
        job: Option<bool>,
        nothing_left: bool,
    ) -> Result<()> {
        let ns = &project.namespace;
        if job == Some(false) {
            return self.delete_job(ns, &row.name).await;
        }
        if !nothing_left {
            return Ok(());
        }
        let selector = format!("{WORKLOAD_ID}={}", row.id);
        let pvcs = delete_labelled(
            Api::<PersistentVolumeClaim>::namespaced(self.client.clone(), ns),
            &selector,
        )
        .await?;
        let services = delete_labelled(
            Api::<Service>::namespaced(self.client.clone(), ns),
            &selector,
        )
        .await?;
        if pvcs + services > 0 {
            // Not gone yet; the next pass looks again.
            return Ok(());
        }
        let deleted = match self.db.workloads().mark_deleted(row.id).await {
            Ok(deleted) => deleted,
            Err(DbError::NotFound) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        self.db
            .audit()
            .record(
                None,
                "workload.deleted",
                "workload",
                row.id,
                serde_json::json!({}),
            )
            .await?;
        self.shared
            .index
            .write()
            .expect("index lock")
            .remove(row.id);
        tracing::info!(workload = %row.id, "workload deleted; nothing of it is left in the cluster");
        let _ = self.events.send(event_of(&deleted, true));
        Ok(())
    }
}

/// Creates `object` unless an object of that name exists.
async fn create_missing<K>(api: Api<K>, object: &K) -> Result<()>
where
    K: Resource + Clone + Serialize + DeserializeOwned + Debug,
{
    match api.create(&PostParams::default(), object).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.is_already_exists() => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Deletes the objects matching `selector`; returns how many were not being deleted yet. One
/// already being deleted counts as gone: a PVC, for one, keeps its protection finalizer until no
/// pod uses it, and Kubernetes finishes that on its own.
async fn delete_labelled<K>(api: Api<K>, selector: &str) -> Result<usize>
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    let list = api.list(&ListParams::default().labels(selector)).await?;
    let live: Vec<K> = list
        .items
        .into_iter()
        .filter(|o| o.meta().deletion_timestamp.is_none())
        .collect();
    let count = live.len();
    for object in live {
        match api
            .delete(&object.name_any(), &DeleteParams::background())
            .await
        {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.is_not_found() => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_workloads_without_a_job_need_one_unless_finished() {
        assert!(needs_action(Phase::Running, Phase::Creating, None));
        assert!(needs_action(Phase::Running, Phase::Resuming, None));
        assert!(!needs_action(Phase::Running, Phase::Running, Some(false)));
        assert!(!needs_action(Phase::Running, Phase::Completed, None));
        assert!(!needs_action(Phase::Running, Phase::Failed, None));
    }

    #[test]
    fn stopped_workloads_need_their_job_deleted_once() {
        assert!(needs_action(Phase::Stopped, Phase::Running, Some(false)));
        assert!(!needs_action(Phase::Stopped, Phase::Stopping, Some(true)));
        assert!(!needs_action(Phase::Stopped, Phase::Stopped, None));
    }

    #[test]
    fn deleting_workloads_are_always_looked_at() {
        assert!(needs_action(Phase::Deleting, Phase::Deleting, None));
    }
}
