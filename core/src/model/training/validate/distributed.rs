//! Rules only distributed trainings have: the worker count and gang size, the master's own spec,
//! and what each framework needs to start.

use super::header::header;
use super::spec::spec;
use crate::model::training::checked::{Distributed, Spec};
use crate::model::training::distributed::{
    CleanPodPolicy, DEFAULT_SSH_PATH, DistributedRequest, DistributedSpec, Framework,
};
use crate::model::training::values::AbsolutePath;
use crate::model::validation::{self as v, Errors, FieldError, join};

/// Checks a distributed training request; every problem is reported, by path.
pub fn distributed(req: DistributedRequest) -> Result<Distributed, Vec<FieldError>> {
    let mut errors = Errors::default();
    header(
        &mut errors,
        &req.name,
        req.use_given_name_as_prefix,
        &req.project_id,
        &req.cluster_id,
    );
    let d = &req.spec;
    let worker = spec(&mut errors, &d.worker, "spec");
    for field in ["completions", "parallelism"] {
        let set = match field {
            "completions" => d.worker.completions.is_some(),
            _ => d.worker.parallelism.is_some(),
        };
        if set {
            errors.add(
                join("spec", field),
                "is not used by distributed trainings; set numWorkers (and minReplicas for the gang size)",
            );
        }
    }
    let sizes = replicas(&mut errors, d);
    framework_options(&mut errors, d);
    let master = master(&mut errors, d);
    if d.distributed_framework == Framework::Mpi && d.master_spec().command.is_none() {
        // Named where the launcher's spec comes from, which is where the user adds the command.
        errors.add(
            join(d.master_spec_path(), "command"),
            "is required for MPI: the launcher runs mpirun (the workers only run sshd)",
        );
    }
    let checked = worker
        .zip(sizes)
        .zip(master)
        .map(|((worker, (workers, gang)), master)| {
            Distributed::new(req, worker, master, workers, gang)
        });
    errors
        .finish_warned(checked)
        .map(|(distributed, warnings)| distributed.warned(warnings))
}

/// How many workers are created, and how many pods are scheduled as one gang. `minReplicas` and
/// `maxReplicas` count workers, as in Run:ai; only PyTorch is elastic: with `maxReplicas` above
/// `numWorkers`, that many workers are created and the training starts once the gang (minReplicas,
/// or numWorkers, and the master) is placed; the others join when there is room.
fn replicas(errors: &mut Errors, d: &DistributedSpec) -> Option<(i32, i32)> {
    let before = errors.count();
    errors.check("spec.numWorkers", v::at_least(d.num_workers, 1));
    if d.num_workers > 9999 {
        errors.add(
            "spec.numWorkers",
            format!("must be at most 9999 (got {})", d.num_workers),
        );
    }
    // Run:ai has the bounds for PyTorch only; Tephra also gates other frameworks' gangs with
    // minReplicas (seed 001's MPI job starts with 2 of its 3 pods).
    let elastic = d.distributed_framework == Framework::PyTorch;
    if d.max_replicas.is_some() && !elastic {
        errors.warn(
            "spec.maxReplicas",
            format!(
                "has no effect with {}: only PyTorch has elastic training",
                d.distributed_framework.as_str()
            ),
        );
    }
    if let Some(min) = d.min_replicas
        && !(1..=d.num_workers.max(1)).contains(&min)
    {
        errors.add(
            "spec.minReplicas",
            format!(
                "must be from 1 to numWorkers ({}): the workers that must run together, besides \
                 the master (got {min})",
                d.num_workers
            ),
        );
    }
    if let Some(max) = d.max_replicas
        && elastic
        && max > 9999
    {
        errors.add(
            "spec.maxReplicas",
            format!("must be at most 9999 (got {max})"),
        );
    }
    if let Some(max) = d.max_replicas
        && elastic
        && max < d.num_workers.max(d.min_replicas.unwrap_or(0))
    {
        errors.add(
            "spec.maxReplicas",
            format!(
                "must be at least numWorkers ({}) and minReplicas: the most workers the elastic \
                 training may grow to (got {max})",
                d.num_workers
            ),
        );
    }
    if errors.count() != before {
        return None;
    }
    // At most 9999 workers, so both fit.
    let most = d.max_replicas.filter(|_| elastic).unwrap_or(0);
    let workers = i32::try_from(d.num_workers.max(most)).ok()?;
    let gang = i32::try_from(d.min_replicas.unwrap_or(d.num_workers).saturating_add(1)).ok()?;
    Some((workers, gang))
}

/// The MPI options, and the clean-up policy. The SDK sends `slotsPerWorker: 1` and
/// `sshAuthMountPath: /root/.ssh` with every request, so those defaults pass silently for
/// every framework.
fn framework_options(errors: &mut Errors, d: &DistributedSpec) {
    let mpi = d.distributed_framework == Framework::Mpi;
    let framework = d.distributed_framework.as_str();
    if let Some(slots) = d.slots_per_worker {
        if slots < 1 {
            errors.add(
                "spec.slotsPerWorker",
                format!("must be at least 1 (got {slots})"),
            );
        } else if slots > 1 && mpi {
            errors.add(
                "spec.slotsPerWorker",
                format!(
                    "must be 1: Volcano's MPI plugin lists each worker once in the hostfile; run \
                     several processes per worker with mpirun's --map-by ppr:N:node (got {slots})"
                ),
            );
        } else if slots > 1 {
            errors.warn(
                "spec.slotsPerWorker",
                format!("has no effect with {framework}: only MPI uses it"),
            );
        }
    }
    if let Some(path) = &d.ssh_auth_mount_path {
        if let Err(message) = AbsolutePath::new(path) {
            errors.add("spec.sshAuthMountPath", message);
        } else if !mpi && path != DEFAULT_SSH_PATH {
            errors.warn(
                "spec.sshAuthMountPath",
                format!("has no effect with {framework}: only MPI uses it"),
            );
        }
    }
    match d.mpi_launcher_creation_policy {
        Some(_) if !mpi => errors.warn(
            "spec.mpiLauncherCreationPolicy",
            format!("has no effect with {framework}: only MPI has a launcher"),
        ),
        _ => {}
    }
    match d.clean_pod_policy {
        None | Some(CleanPodPolicy::Running) => {}
        Some(CleanPodPolicy::All) => errors.warn(
            "spec.cleanPodPolicy",
            "All: running pods are removed when the training finishes; finished pods stay \
             until the Job is deleted (autoDeletionTimeAfterCompletionSeconds)",
        ),
        Some(CleanPodPolicy::None) => errors.warn(
            "spec.cleanPodPolicy",
            "None: Volcano still stops running pods when the training finishes; finished pods \
             stay until the Job is deleted (autoDeletionTimeAfterCompletionSeconds)",
        ),
    }
}

/// The master's own spec, `Some(None)` when it runs the worker's.
fn master(errors: &mut Errors, d: &DistributedSpec) -> Option<Option<Spec>> {
    let at = d.master_path();
    match (&d.master, d.master_spec_same_as_worker) {
        (Some(_), Some(true)) => {
            errors.add(
                at,
                "must not be set when masterSpecSameAsWorker is true; remove one of them",
            );
            None
        }
        (Some(master), _) => {
            // The master's spec replaces the worker's whole (Run:ai's `master` is a complete
            // spec, and nothing is merged), so it names its own image like any other spec.
            let checked = spec(errors, master, at);
            for (field, set) in [
                ("completions", master.completions.is_some()),
                ("parallelism", master.parallelism.is_some()),
            ] {
                if set {
                    errors.add(join(at, field), "is not used by distributed trainings");
                }
            }
            checked.map(Some)
        }
        (None, Some(false)) => {
            errors.add(at, "is required when masterSpecSameAsWorker is false");
            None
        }
        (None, _) => Some(None),
    }
}

#[cfg(test)]
mod tests;
