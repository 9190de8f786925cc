//! The generic multi-replica form (after T9k's GenericJob) as a Volcano Job: one task per replica
//! type; success and failure rules as task policies; restart policies as RestartPod with the
//! task's maxRetry; debug and pause run modes as command overrides; clean-up as the Job's TTL.

use super::{JobOptions, Rendered, Target, Task, assemble};
use crate::domain::volcano::LifecyclePolicy;
use app::model::training::checked::{Generic, Replica, Spec};
use app::model::training::generic::CleanUpPolicy;
use app::model::training::values::Words;
use std::collections::BTreeMap;

/// What debug mode runs instead of the replica's command when no override names one.
const DEBUG_COMMAND: [&str; 2] = ["sleep", "inf"];
pub const RUN_MODE_ANNOTATION: &str = "tephra.dev/run-mode";

pub fn generic(req: &Generic, target: Target<'_>) -> Rendered {
    let g = &req.request().spec;
    let paused = g.starts_paused();
    let types_of = |rules: &Option<Vec<_>>| -> Vec<String> {
        rules
            .iter()
            .flatten()
            .flat_map(|r: &app::model::training::generic::FinishRule| r.replica_types.clone())
            .collect()
    };
    let failure_types = types_of(&g.failure_rules);
    let success_types = types_of(&g.success_rules);

    // Run modes change the command; the specs are rewritten before rendering so the Job shows
    // exactly what will run.
    let specs: Vec<Spec> = req.replicas().map(run_mode_spec).collect();
    let tasks: Vec<Task<'_>> = req
        .replicas()
        .zip(&specs)
        .map(|(replica, spec)| {
            let restarts = replica.restarts > 0;
            let fails_job = failure_types.contains(&replica.kind);
            let mut policies = Vec::new();
            if success_types.contains(&replica.kind) {
                policies.push(LifecyclePolicy::on("TaskCompleted", "CompleteJob"));
            }
            if restarts {
                // Restart the failed pod alone; once its retries are spent Volcano raises
                // TaskFailed, which a failure rule turns into the job's failure.
                policies.push(LifecyclePolicy::on("PodFailed", "RestartPod"));
                if fails_job {
                    policies.push(LifecyclePolicy::on("TaskFailed", "TerminateJob"));
                }
            } else if fails_job {
                policies.push(LifecyclePolicy::on("PodFailed", "TerminateJob"));
            }
            Task {
                name: replica.kind.as_str(),
                replicas: replica.count,
                min_available: replica.count,
                spec,
                policies,
                max_retry: restarts.then_some(replica.restarts),
                depends_on: None,
            }
        })
        .collect();

    let first = run_mode_spec(req.first());
    let mut extra_annotations = BTreeMap::new();
    if g.debug().is_some() {
        extra_annotations.insert(RUN_MODE_ANNOTATION.to_owned(), "debug".to_owned());
    } else if paused {
        extra_annotations.insert(RUN_MODE_ANNOTATION.to_owned(), "pause".to_owned());
    }
    let evicted = if first.terminate_after_preemption {
        "AbortJob"
    } else {
        "RestartJob"
    };
    let options = JobOptions {
        // With failure rules, only the rules fail the job; without them a failed pod restarts the
        // job as for any training.
        policies: (!failure_types.is_empty())
            .then(|| vec![LifecyclePolicy::on("PodEvicted", evicted)]),
        ttl_seconds_after_finished: (g.clean_up_policy == Some(CleanUpPolicy::All)).then_some(0),
        extra_annotations,
        ..JobOptions::default()
    };
    assemble(target, &first, tasks, options).into_rendered(paused)
}

/// The replica's spec with the run mode's command in place.
fn run_mode_spec(replica: &Replica) -> Spec {
    let mut spec = replica.spec.clone();
    if let Some(debug) = &replica.debug {
        spec.command = Some(
            debug
                .command
                .clone()
                .unwrap_or_else(|| Words::of(&DEBUG_COMMAND)),
        );
        spec.args = debug.args.clone();
        if debug.skip_init_container {
            drop_init_work(&mut spec);
        }
    } else if let Some(resume) = &replica.resume {
        if resume.command.is_some() {
            spec.command = resume.command.clone();
        }
        if resume.args.is_some() {
            spec.args = resume.args.clone();
        }
        if resume.skip_init_container {
            drop_init_work(&mut spec);
        }
    }
    spec
}

/// Init containers come from git storage; skipping them means not cloning.
fn drop_init_work(spec: &mut Spec) {
    spec.storage.git.clear();
}
