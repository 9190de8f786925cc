//! Training requests to a Volcano Job and the objects beside it (PVCs to create, Services for
//! ports), following docs/MAPPING.md. Everything Volcano's admission webhook would default is set
//! here, because clusters (the testbed among them) may run without the webhook.

mod generic;
mod pod;
mod service;
mod storage;

pub use generic::generic;

use super::cluster::ClusterProfile;
use super::labels::Owner;
use super::volcano::{Job, JobSpec, LifecyclePolicy, TaskSpec};
use app::model::training::distributed::{DistributedRequest, Framework};
use app::model::training::request::{TrainingRequest, TrainingSpec};
use app::model::validation::{Errors, FieldError, join};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Serialize;
use std::collections::BTreeMap;

pub const SCHEDULER_NAME: &str = "volcano";
/// The task of a (non-distributed) training.
pub const TRAINING_TASK: &str = "train";
/// Volcano's own default for maxRetry, set explicitly when the request has no backoffLimit.
pub const DEFAULT_MAX_RETRY: i32 = 3;

/// A Job and what must exist beside it. PVCs and Services belong to the workload, not the Job,
/// so they outlive a suspend (which deletes the Job).
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    pub job: Job,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub persistent_volume_claims: Vec<PersistentVolumeClaim>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<Service>,
    /// The workload starts suspended (generic pause mode): the Job is created only on resume.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub starts_paused: bool,
}

impl Rendered {
    /// Every object as the cluster gets it: the Job first, then PVCs, then Services.
    pub fn objects(&self) -> Result<Vec<serde_json::Value>, serde_json::Error> {
        let mut objects = vec![serde_json::to_value(&self.job)?];
        for claim in &self.persistent_volume_claims {
            objects.push(serde_json::to_value(claim)?);
        }
        for service in &self.services {
            objects.push(serde_json::to_value(service)?);
        }
        Ok(objects)
    }

    /// [`Rendered::objects`] as one YAML stream of `---`-separated documents.
    pub fn to_yaml(&self) -> Result<String, String> {
        let mut out = String::new();
        for object in self.objects().map_err(|e| e.to_string())? {
            out.push_str("---\n");
            out.push_str(&serde_yaml::to_string(&object).map_err(|e| e.to_string())?);
        }
        Ok(out)
    }
}

/// One task of the Job before assembly.
struct Task<'a> {
    name: &'a str,
    replicas: i32,
    min_available: i32,
    spec: &'a TrainingSpec,
    /// Where `spec` is in the request, for error paths.
    path: String,
    policies: Vec<LifecyclePolicy>,
    /// The task's own maxRetry, when it differs from the job's.
    max_retry: Option<i32>,
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
    /// Where the job-level spec is in the request, for error paths; `spec` when not set.
    spec_path: Option<&'static str>,
}

pub fn training(
    req: &TrainingRequest,
    workload: &Owner,
    profile: &ClusterProfile,
) -> Result<Rendered, Vec<FieldError>> {
    let spec = &req.spec;
    let mut errors = Errors::default();
    let parallelism = int32(
        &mut errors,
        "spec.parallelism",
        spec.parallelism.unwrap_or(1),
    );
    let task = Task {
        name: TRAINING_TASK,
        replicas: parallelism,
        min_available: parallelism,
        spec,
        path: "spec".into(),
        policies: Vec::new(),
        max_retry: None,
    };
    let options = JobOptions {
        min_success: spec
            .completions
            .map(|n| int32(&mut errors, "spec.completions", n)),
        ..JobOptions::default()
    };
    assemble(workload, profile, spec, vec![task], options, errors)
        .map(|job| job.into_rendered(false))
}

pub fn distributed(
    req: &DistributedRequest,
    workload: &Owner,
    profile: &ClusterProfile,
) -> Result<Rendered, Vec<FieldError>> {
    let d = &req.spec;
    let (master_task, worker_task) = d.distributed_framework.task_names();
    let mut errors = Errors::default();
    let workers = int32(&mut errors, "spec.numWorkers", d.num_workers);
    let pods = workers.saturating_add(1);
    let gang = d
        .min_replicas
        .map_or(pods, |n| int32(&mut errors, "spec.minReplicas", n));
    let master_path = if d.master.is_some() && d.master_spec_same_as_worker != Some(true) {
        "spec.master"
    } else {
        "spec"
    };
    // The master finishing is the training finishing: rank 0 / the launcher decides.
    let master = Task {
        name: master_task,
        replicas: 1,
        min_available: 1,
        spec: d.master_spec(),
        path: master_path.into(),
        policies: vec![LifecyclePolicy::on("TaskCompleted", "CompleteJob")],
        max_retry: None,
    };
    let worker = Task {
        name: worker_task,
        replicas: workers,
        min_available: gang.saturating_sub(1).clamp(0, workers),
        spec: &d.worker,
        path: "spec".into(),
        policies: Vec::new(),
        max_retry: None,
    };
    let options = JobOptions {
        framework: Some(d.distributed_framework),
        ..JobOptions::default()
    };
    let mut assembled = assemble(
        workload,
        profile,
        &d.worker,
        vec![master, worker],
        options,
        errors,
    )?;
    // The gang may be smaller than the pod count (Run:ai's minReplicas); the job-level gate wins.
    assembled.job.spec.min_available = Some(gang);
    Ok(assembled.into_rendered(false))
}

fn framework_plugins(
    framework: Framework,
    profile: &ClusterProfile,
) -> BTreeMap<String, Vec<String>> {
    let (master, worker) = framework.task_names();
    let mut plugins = BTreeMap::new();
    // svc gives every pod a stable DNS name (<pod>.<job>) and the host lists; the webhook adds it
    // for every framework plugin, so Tephra does too.
    plugins.insert("svc".to_owned(), Vec::new());
    plugins.insert("env".to_owned(), Vec::new());
    match framework {
        Framework::PyTorch => {
            plugins.insert(
                "pytorch".into(),
                vec![
                    format!("--master={master}"),
                    format!("--worker={worker}"),
                    format!("--port={}", profile.pytorch_port),
                ],
            );
        }
        Framework::Mpi => {
            plugins.insert(
                "mpi".into(),
                vec![
                    format!("--master={master}"),
                    format!("--worker={worker}"),
                    "--port=22".into(),
                ],
            );
            plugins.insert("ssh".into(), Vec::new());
        }
        Framework::TensorFlow => {
            plugins.insert(
                "tensorflow".into(),
                vec![
                    format!("--chief={master}"),
                    format!("--worker={worker}"),
                    "--port=2222".into(),
                ],
            );
        }
        // No Volcano plugin for XGBoost: the env and svc plugins give ranks and host names, and
        // the tracker address is set on the pods (see `pod::framework_env`).
        Framework::XGBoost => {}
    }
    plugins
}

fn assemble(
    workload: &Owner,
    profile: &ClusterProfile,
    job_spec: &TrainingSpec,
    tasks: Vec<Task<'_>>,
    options: JobOptions,
    mut errors: Errors,
) -> Result<Assembled, Vec<FieldError>> {
    let spec_path = options.spec_path.unwrap_or("spec");
    let mut claims = Vec::new();
    let mut services = Vec::new();
    let framework = options.framework;
    let mut plugins = framework
        .map(|f| framework_plugins(f, profile))
        .unwrap_or_default();

    let priority_class = priority_class(job_spec, profile, &mut errors);
    let max_retry = job_spec.backoff_limit.map_or(DEFAULT_MAX_RETRY, |n| {
        int32(&mut errors, &join(spec_path, "backoffLimit"), n)
    });
    let mut volcano_tasks = Vec::new();
    let task_names: Vec<(&str, i32)> = tasks.iter().map(|t| (t.name, t.replicas)).collect();
    for task in &tasks {
        let ctx = pod::PodContext {
            workload,
            profile,
            task: task.name,
            path: &task.path,
            framework,
            tasks: &task_names,
        };
        let template = pod::template(task.spec, &ctx, &mut claims, &mut errors);
        volcano_tasks.push(TaskSpec {
            name: task.name.to_owned(),
            replicas: task.replicas,
            min_available: Some(task.min_available),
            max_retry: Some(task.max_retry.unwrap_or(max_retry)),
            policies: task.policies.clone(),
            template,
        });
        services.extend(service::for_ports(
            task.spec,
            task.name,
            workload,
            &task.path,
            &mut errors,
        ));
    }
    if job_spec.ports.as_ref().is_some_and(|p| !p.is_empty()) {
        plugins.entry("svc".into()).or_default();
    }
    dedupe_by_name(&mut services, |s| s.metadata.name.clone());
    dedupe_by_name(&mut claims, |c| c.metadata.name.clone());

    let gang = tasks
        .iter()
        .fold(0i32, |sum, t| sum.saturating_add(t.min_available));
    let evicted = if job_spec.terminate_after_preemption == Some(true) {
        "AbortJob"
    } else {
        "RestartJob"
    };
    let failed = if max_retry == 0 {
        "TerminateJob"
    } else {
        "RestartJob"
    };
    // Checked although not rendered: the reconciler applies it (see below).
    if let Some(n) = job_spec.auto_deletion_time_after_completion_seconds {
        int32(
            &mut errors,
            &join(spec_path, "autoDeletionTimeAfterCompletionSeconds"),
            n,
        );
    }
    let job = Job {
        metadata: ObjectMeta {
            name: Some(workload.job_name.clone()),
            namespace: Some(workload.namespace.clone()),
            labels: Some(merge(
                workload.labels(),
                pod::user_pairs(job_spec.labels.as_deref()),
            )),
            annotations: Some(merge(
                merge(workload.annotations(), options.extra_annotations),
                pod::user_pairs(job_spec.annotations.as_deref()),
            )),
            ..ObjectMeta::default()
        },
        spec: JobSpec {
            scheduler_name: Some(SCHEDULER_NAME.into()),
            min_available: Some(gang),
            queue: Some(workload.queue.clone()),
            priority_class_name: priority_class,
            max_retry: Some(max_retry),
            // Not `autoDeletionTimeAfterCompletionSeconds`: if Volcano collected the Job, a
            // finish Tephra had not yet seen (it was down) would be lost and the training run
            // again. The reconciler deletes the Job after recording the outcome instead.
            ttl_seconds_after_finished: options.ttl_seconds_after_finished,
            min_success: options.min_success,
            plugins,
            policies: options.policies.unwrap_or_else(|| {
                vec![
                    LifecyclePolicy::on("PodEvicted", evicted),
                    LifecyclePolicy::on("PodFailed", failed),
                ]
            }),
            tasks: volcano_tasks,
        },
        status: None,
    };
    errors.into_result()?;
    Ok(Assembled {
        job,
        claims,
        services,
    })
}

struct Assembled {
    job: Job,
    claims: Vec<PersistentVolumeClaim>,
    services: Vec<Service>,
}

impl Assembled {
    fn into_rendered(self, starts_paused: bool) -> Rendered {
        Rendered {
            job: self.job,
            persistent_volume_claims: self.claims,
            services: self.services,
            starts_paused,
        }
    }
}

fn priority_class(
    spec: &TrainingSpec,
    profile: &ClusterProfile,
    errors: &mut Errors,
) -> Option<String> {
    let requested = spec
        .priority_class
        .as_ref()
        .or(profile.default_training_priority.as_ref())?;
    match profile.priority_classes.get(requested) {
        Some(class) => Some(class.clone()),
        None => {
            let allowed: Vec<&str> = profile
                .priority_classes
                .keys()
                .map(String::as_str)
                .collect();
            errors.add(
                "spec.priorityClass",
                format!(
                    "{requested:?} is not a priority class of this cluster; use one of {}",
                    allowed.join(", ")
                ),
            );
            None
        }
    }
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

/// A request's number for an int32 field of a Kubernetes object. Validation keeps requests in
/// range, so failing here means a caller skipped it: the request is refused rather than sent with
/// a wrapped or clamped number the user never asked for.
fn int32(errors: &mut Errors, path: &str, n: i64) -> i32 {
    i32::try_from(n).unwrap_or_else(|_| {
        errors.add(
            path,
            format!("must be between {} and {} (got {n})", i32::MIN, i32::MAX),
        );
        0
    })
}
