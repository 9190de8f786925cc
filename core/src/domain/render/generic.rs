//! The generic multi-replica form (after T9k's GenericJob) as a Volcano Job: one task per replica
//! type, the whole job one gang. Restarts are the kubelet's, limited per type by the task's
//! maxRetry (Volcano counts the restarts of the task's pods); debug and pause run modes are
//! command overrides. Success and failure rules name replicas by index, which no Volcano policy
//! can express: Tephra's controller judges them (`domain::finish`), so a failed pod does not end
//! the Job here.

use super::{JobOptions, Rendered, Target, Task, assemble};
use crate::domain::volcano::LifecyclePolicy;
use crate::model::training::checked::{Generic, Replica, Spec};
use crate::model::training::request::RestartPolicy;
use crate::model::training::values::Words;
use std::collections::BTreeMap;

/// What debug mode runs instead of the replica's command when no override names one.
const DEBUG_COMMAND: [&str; 2] = ["sleep", "inf"];
pub const RUN_MODE_ANNOTATION: &str = "tephra.dev/run-mode";

pub fn generic(req: &Generic, target: Target<'_>) -> Rendered {
    let g = &req.request().spec;
    let paused = g.starts_paused();
    // Run modes and restart policies change the pod; the specs are rewritten before rendering
    // so the Job shows exactly what will run.
    let specs: Vec<Spec> = req.replicas().map(replica_spec).collect();
    let tasks: Vec<Task<'_>> = req
        .replicas()
        .zip(&specs)
        .map(|(replica, spec)| Task {
            name: replica.kind.as_str(),
            replicas: replica.count,
            min_available: replica.count,
            spec,
            policies: Vec::new(),
            max_retry: replica.restarts_in_place().then_some(replica.restarts),
            depends_on: None,
        })
        .collect();

    let first = replica_spec(req.first());
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
        // A preempted pod restarts the gang as for any training; a failed pod waits for the
        // rules (no PodFailed policy).
        policies: Some(vec![LifecyclePolicy::on("PodEvicted", evicted)]),
        extra_annotations,
        ..JobOptions::default()
    };
    assemble(target, &first, tasks, options).into_rendered(paused)
}

/// The replica's spec with its restart policy and the run mode's command in place.
fn replica_spec(replica: &Replica) -> Spec {
    let mut spec = run_mode_spec(replica);
    // A type without restarts must never restart in place: Volcano reads a task maxRetry of 0
    // as 3, so the pod's policy is what stops it.
    spec.pod.restart_policy = Some(if replica.restarts_in_place() {
        replica.restart_policy
    } else {
        RestartPolicy::Never
    });
    spec
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
