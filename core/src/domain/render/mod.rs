//! Checked training requests to a Volcano Job and the objects beside it (PVCs to create, Services
//! for ports), following docs/MAPPING.md. Everything Volcano's admission webhook would default is
//! set here, because clusters (the testbed among them) may run without the webhook.
//!
//! Rendering cannot fail: the validator checked every value, and what depends on the cluster and
//! the creator (priority classes, data volumes, token ids) is looked up first, by [`Binding`],
//! which is the only step that can refuse a checked request.

mod binding;
mod generic;
mod plugins;
mod pod;
mod rendered;
mod s3;
mod service;
mod storage;

pub use binding::Binding;
pub use generic::{RUN_MODE_ANNOTATION, generic};
pub use rendered::{Rendered, S3Secret, with_warnings};
pub use s3::{ACCESS_KEY_ID, COPIED_FROM, ENDPOINT, SECRET_ACCESS_KEY};
pub use service::exposed_url;

use super::cluster::ClusterProfile;
use super::labels::Owner;
use super::volcano::{DependsOn, Job, JobSpec, LifecyclePolicy, TaskSpec};
use crate::model::training::checked::{Distributed, Spec, Training};
use crate::model::training::distributed::Framework;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::networking::v1::Ingress;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

pub const SCHEDULER_NAME: &str = "volcano";
/// The task of a (non-distributed) training.
pub const TRAINING_TASK: &str = "train";
/// Volcano's own default for maxRetry, set explicitly when the request has no backoffLimit.
pub const DEFAULT_MAX_RETRY: i32 = 3;

/// Where a request is rendered: for which workload, on which cluster, with what bound.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    pub workload: &'a Owner,
    pub profile: &'a ClusterProfile,
    pub binding: &'a Binding,
}

/// One task of the Job before assembly.
struct Task<'a> {
    name: &'a str,
    replicas: i32,
    min_available: i32,
    spec: &'a Spec,
    policies: Vec<LifecyclePolicy>,
    /// The task's own maxRetry, when it differs from the job's.
    max_retry: Option<i32>,
    /// Tasks whose pods must run before this task's pods are created.
    depends_on: Option<&'a str>,
}

/// What differs between the request kinds when the Job is assembled.
#[derive(Default)]
struct JobOptions {
    framework: Option<Framework>,
    min_success: Option<i32>,
    /// Replaces the default job-level policies (PodEvicted, PodFailed).
    policies: Option<Vec<LifecyclePolicy>>,
    /// Replaces the request's autoDeletionTimeAfterCompletionSeconds.
    ttl_seconds_after_finished: Option<i32>,
    extra_annotations: BTreeMap<String, String>,
}

/// A single-task training: `parallelism` pods start together, done when `completions` of them
/// succeed; with more completions than parallelism, the other pods start when there is room.
pub fn training(req: &Training, target: Target<'_>) -> Rendered {
    let spec = req.spec();
    let task = Task {
        name: TRAINING_TASK,
        replicas: req.pods(),
        min_available: req.parallelism(),
        spec,
        policies: Vec::new(),
        max_retry: None,
        depends_on: None,
    };
    let options = JobOptions {
        min_success: req.completions(),
        ..JobOptions::default()
    };
    assemble(target, spec, vec![task], options).into_rendered(false)
}

/// A master and its workers, with the framework's plugin.
pub fn distributed(req: &Distributed, target: Target<'_>) -> Rendered {
    let (master_task, worker_task) = req.framework().task_names();
    let workers = req.workers();
    let worker_gang = req.gang().saturating_sub(1).clamp(0, workers);
    // A launcher that waits for the workers is created after the gang is placed, so the gang
    // is the workers alone: a gang member that does not exist yet would never let it start.
    let waits = req.launcher_waits_for_workers();
    let gang = if waits { worker_gang } else { req.gang() };
    // The master finishing is the training finishing: rank 0 / the launcher decides.
    let master = Task {
        name: master_task,
        replicas: 1,
        min_available: if waits { 0 } else { 1 },
        spec: req.master(),
        policies: vec![LifecyclePolicy::on("TaskCompleted", "CompleteJob")],
        max_retry: None,
        depends_on: waits.then_some(worker_task),
    };
    let worker = Task {
        name: worker_task,
        replicas: workers,
        min_available: worker_gang,
        spec: req.worker(),
        policies: Vec::new(),
        max_retry: None,
        depends_on: None,
    };
    let options = JobOptions {
        framework: Some(req.framework()),
        ..JobOptions::default()
    };
    let mut assembled = assemble(target, req.worker(), vec![master, worker], options);
    // The gang may be smaller than the pod count (Run:ai's minReplicas); the job-level gate wins.
    assembled.job.spec.min_available = Some(gang);
    if let Some((least, most)) = req.elastic_nodes() {
        // torchrun's `--nnodes` range, as PET_NNODES (torchrun reads its flags from PET_*), so
        // the rendezvous admits the workers that join after the gang started.
        let nnodes = pod::plain("PET_NNODES", &format!("{least}:{most}"));
        for task in &mut assembled.job.spec.tasks {
            let containers = task
                .template
                .spec
                .iter_mut()
                .flat_map(|s| &mut s.containers);
            for container in containers {
                container
                    .env
                    .get_or_insert_with(Vec::new)
                    .push(nnodes.clone());
            }
        }
    }
    if let Some(path) = req.ssh_key_path() {
        assembled
            .job
            .spec
            .plugins
            .insert("ssh".into(), vec![format!("--ssh-key-file-path={path}")]);
    }
    assembled.into_rendered(false)
}

/// The Job around `tasks`; `job_spec` sets its own fields (labels, retries, priority).
fn assemble(
    target: Target<'_>,
    job_spec: &Spec,
    tasks: Vec<Task<'_>>,
    options: JobOptions,
) -> Assembled {
    let Target {
        workload, profile, ..
    } = target;
    let mut storage = storage::StorageObjects::default();
    let mut services = Vec::new();
    let framework = options.framework;
    let mut plugins = framework
        .map(|f| plugins::framework(f, profile))
        .unwrap_or_default();
    let max_retry = job_spec.backoff_limit.unwrap_or(DEFAULT_MAX_RETRY);
    let task_names: Vec<(&str, i32)> = tasks.iter().map(|t| (t.name, t.replicas)).collect();
    let mut volcano_tasks = Vec::new();
    let mut ingresses = Vec::new();
    // A URL reaches one pod: the first task's (the training's, the master's, the first replica
    // type's), as in Run:ai.
    if let Some(first) = tasks.first() {
        services.extend(service::for_urls(first.spec, first.name, workload));
        ingresses.extend(service::ingress_for_urls(
            first.spec, first.name, workload, profile,
        ));
    }
    for task in &tasks {
        let ctx = pod::PodContext {
            target,
            task: task.name,
            framework,
            tasks: &task_names,
        };
        volcano_tasks.push(task_spec(task, &ctx, max_retry, &mut storage));
        services.extend(service::for_ports(task.spec, task.name, workload));
    }
    if !job_spec.ports.is_empty() {
        plugins.entry("svc".into()).or_default();
    }
    dedupe_by_name(&mut services, |s| s.metadata.name.clone());
    dedupe_by_name(&mut storage.claims, |c| c.metadata.name.clone());
    dedupe_by_name(&mut storage.volumes, |v| v.metadata.name.clone());
    dedupe_by_name(&mut storage.secrets, |s| s.secret.metadata.name.clone());
    let gang = tasks
        .iter()
        .fold(0i32, |sum, t| sum.saturating_add(t.min_available));
    let job = Job {
        metadata: job_metadata(workload, job_spec, options.extra_annotations),
        spec: JobSpec {
            scheduler_name: Some(SCHEDULER_NAME.into()),
            min_available: Some(gang),
            queue: Some(workload.queue.clone()),
            priority_class_name: target.binding.priority_class().map(str::to_owned),
            max_retry: Some(max_retry),
            // Not `autoDeletionTimeAfterCompletionSeconds`: if Volcano collected the Job, a
            // finish Tephra had not yet seen (it was down) would be lost and the training run
            // again. The controller deletes the Job after recording the outcome instead.
            ttl_seconds_after_finished: options.ttl_seconds_after_finished,
            min_success: options.min_success,
            plugins,
            policies: options
                .policies
                .unwrap_or_else(|| default_policies(job_spec, max_retry)),
            tasks: volcano_tasks,
        },
        status: None,
    };
    Assembled {
        job,
        storage,
        services,
        ingresses,
    }
}

/// One task's entry in the Job, its pod template adding the task's storage to `storage`.
fn task_spec(
    task: &Task<'_>,
    ctx: &pod::PodContext<'_>,
    max_retry: i32,
    storage: &mut storage::StorageObjects,
) -> TaskSpec {
    TaskSpec {
        name: task.name.to_owned(),
        replicas: task.replicas,
        min_available: Some(task.min_available),
        max_retry: Some(task.max_retry.unwrap_or(max_retry)),
        policies: task.policies.clone(),
        depends_on: task.depends_on.map(|name| DependsOn {
            name: vec![name.to_owned()],
            iteration: None,
        }),
        template: pod::template(task.spec, ctx, storage),
    }
}

/// The Job's name, labels and annotations: Tephra's own, then the request's.
fn job_metadata(
    workload: &Owner,
    job_spec: &Spec,
    extra_annotations: BTreeMap<String, String>,
) -> ObjectMeta {
    ObjectMeta {
        name: Some(workload.job_name.clone()),
        namespace: Some(workload.namespace.clone()),
        labels: Some(merge(workload.labels(), pairs(&job_spec.labels))),
        annotations: Some(merge(
            merge(workload.annotations(), extra_annotations),
            merge(related_urls(job_spec), pairs(&job_spec.annotations)),
        )),
        ..ObjectMeta::default()
    }
}

/// An evicted pod restarts the job unless the request says to stop; a failed one restarts it
/// while retries remain.
fn default_policies(job_spec: &Spec, max_retry: i32) -> Vec<LifecyclePolicy> {
    let evicted = if job_spec.terminate_after_preemption {
        "AbortJob"
    } else {
        "RestartJob"
    };
    let failed = if max_retry == 0 {
        "TerminateJob"
    } else {
        "RestartJob"
    };
    vec![
        LifecyclePolicy::on("PodEvicted", evicted),
        LifecyclePolicy::on("PodFailed", failed),
    ]
}

struct Assembled {
    job: Job,
    storage: storage::StorageObjects,
    services: Vec<Service>,
    ingresses: Vec<Ingress>,
}

impl Assembled {
    fn into_rendered(self, starts_paused: bool) -> Rendered {
        Rendered {
            job: self.job,
            s3_secrets: self.storage.secrets,
            persistent_volumes: self.storage.volumes,
            persistent_volume_claims: self.storage.claims,
            services: self.services,
            ingresses: self.ingresses,
            starts_paused,
        }
    }
}

/// Run:ai's related URLs as an annotation on the Job, for tools that read the cluster.
fn related_urls(spec: &Spec) -> BTreeMap<String, String> {
    let links = &spec.pod.related_urls;
    if links.is_empty() {
        return BTreeMap::new();
    }
    let json = serde_json::to_string(links).unwrap_or_default();
    BTreeMap::from([(crate::domain::labels::RELATED_URLS.to_owned(), json)])
}

/// Labels or annotations the user asked for, as a map.
fn pairs(items: &[(String, String)]) -> BTreeMap<String, String> {
    items.iter().cloned().collect()
}

fn merge(
    mut ours: BTreeMap<String, String>,
    theirs: BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    for (k, v) in theirs {
        // Tephra's keys win: they tie the object to its workload.
        ours.entry(k).or_insert(v);
    }
    ours
}

fn dedupe_by_name<T>(items: &mut Vec<T>, name: impl Fn(&T) -> Option<String>) {
    let mut seen = std::collections::BTreeSet::new();
    items.retain(|item| seen.insert(name(item)));
}
