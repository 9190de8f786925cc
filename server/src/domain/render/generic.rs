//! The generic multi-replica form (after T9k's GenericJob) as a Volcano Job: one task per replica
//! type; success and failure rules as task policies; restart policies as RestartPod with the
//! task's maxRetry; debug and pause run modes as command overrides; clean-up as the Job's TTL.

use super::{Assembled, JobOptions, Rendered, Task, assemble, int32};
use crate::domain::cluster::ClusterProfile;
use crate::domain::labels::Owner;
use crate::domain::volcano::LifecyclePolicy;
use app::model::training::generic::{
    CleanUpPolicy, GenericRequest, ReplicaOverride, RestartPolicyType,
};
use app::model::training::request::TrainingSpec;
use app::model::validation::{Errors, FieldError, join};
use std::collections::BTreeMap;

/// What debug mode runs instead of the replica's command when no override names one.
const DEBUG_COMMAND: &str = "sleep inf";
pub const RUN_MODE_ANNOTATION: &str = "tephra.dev/run-mode";

pub fn generic(
    req: &GenericRequest,
    workload: &Owner,
    profile: &ClusterProfile,
) -> Result<Rendered, Vec<FieldError>> {
    let g = &req.spec;
    let debug = g.debug();
    let paused = g.starts_paused();
    let resume_specs = g
        .run_mode
        .as_ref()
        .and_then(|m| m.pause.as_ref())
        .and_then(|p| p.resume_specs.as_ref());
    let failure_types: Vec<&str> = g
        .failure_rules
        .iter()
        .flatten()
        .flat_map(|r| r.replica_types.iter().map(String::as_str))
        .collect();
    let success_types: Vec<&str> = g
        .success_rules
        .iter()
        .flatten()
        .flat_map(|r| r.replica_types.iter().map(String::as_str))
        .collect();

    // Run modes change the command; the specs are rewritten before rendering so the Job shows
    // exactly what will run.
    let specs: Vec<TrainingSpec> = g
        .replica_specs
        .iter()
        .map(|replica| {
            let mut spec = replica.spec.clone();
            if let Some(debug) = debug {
                let o = find(debug.replica_specs.as_ref(), &replica.kind);
                spec.command = Some(
                    o.and_then(|o| o.command.clone())
                        .unwrap_or_else(|| DEBUG_COMMAND.into()),
                );
                spec.args = o.and_then(|o| o.args.clone());
                if o.and_then(|o| o.skip_init_container) == Some(true) {
                    drop_init_work(&mut spec);
                }
            } else if paused && let Some(o) = find(resume_specs, &replica.kind) {
                if o.command.is_some() {
                    spec.command = o.command.clone();
                }
                if o.args.is_some() {
                    spec.args = o.args.clone();
                }
                if o.skip_init_container == Some(true) {
                    drop_init_work(&mut spec);
                }
            }
            spec
        })
        .collect();

    let mut errors = Errors::default();
    let tasks: Vec<Task<'_>> = g
        .replica_specs
        .iter()
        .zip(&specs)
        .enumerate()
        .map(|(i, (replica, spec))| {
            let at = format!("spec.replicaSpecs[{i}]");
            let replicas = int32(
                &mut errors,
                &join(&at, "replicas"),
                replica.replicas.unwrap_or(1),
            );
            let restart = replica.restart_policy.clone().unwrap_or_default();
            let limit = restart.limit.map_or(0, |n| {
                int32(&mut errors, &join(&at, "restartPolicy.limit"), n)
            });
            let restarts = restart.policy == RestartPolicyType::OnFailure && limit > 0;
            let mut policies = Vec::new();
            if success_types.contains(&replica.kind.as_str()) {
                policies.push(LifecyclePolicy::on("TaskCompleted", "CompleteJob"));
            }
            if restarts {
                // Restart the failed pod alone; once its retries are spent Volcano raises
                // TaskFailed, which a failure rule turns into the job's failure.
                policies.push(LifecyclePolicy::on("PodFailed", "RestartPod"));
                if failure_types.contains(&replica.kind.as_str()) {
                    policies.push(LifecyclePolicy::on("TaskFailed", "TerminateJob"));
                }
            } else if failure_types.contains(&replica.kind.as_str()) {
                policies.push(LifecyclePolicy::on("PodFailed", "TerminateJob"));
            }
            Task {
                name: replica.kind.as_str(),
                replicas,
                min_available: replicas,
                spec,
                path: join(&at, "spec"),
                policies,
                max_retry: restarts.then_some(limit),
            }
        })
        .collect();

    let first = specs.first().cloned().unwrap_or_default();
    let mut extra_annotations = BTreeMap::new();
    if debug.is_some() {
        extra_annotations.insert(RUN_MODE_ANNOTATION.to_owned(), "debug".to_owned());
    } else if paused {
        extra_annotations.insert(RUN_MODE_ANNOTATION.to_owned(), "pause".to_owned());
    }
    let evicted = if first.terminate_after_preemption == Some(true) {
        "AbortJob"
    } else {
        "RestartJob"
    };
    let options = JobOptions {
        // With failure rules, only the rules fail the job; without them a failed pod restarts the
        // job as for any training.
        policies: g
            .failure_rules
            .as_ref()
            .filter(|rules| !rules.is_empty())
            .map(|_| vec![LifecyclePolicy::on("PodEvicted", evicted)]),
        ttl_seconds_after_finished: (g.clean_up_policy == Some(CleanUpPolicy::All)).then_some(0),
        extra_annotations,
        spec_path: Some("spec.replicaSpecs[0].spec"),
        ..JobOptions::default()
    };
    let assembled: Assembled = assemble(workload, profile, &first, tasks, options, errors)?;
    Ok(assembled.into_rendered(paused))
}

fn find<'a>(
    overrides: Option<&'a Vec<ReplicaOverride>>,
    kind: &str,
) -> Option<&'a ReplicaOverride> {
    overrides.into_iter().flatten().find(|o| o.kind == kind)
}

/// Init containers come from git storage; skipping them means not cloning.
fn drop_init_work(spec: &mut TrainingSpec) {
    if let Some(storage) = spec.storage.as_mut() {
        storage.git = None;
    }
}
