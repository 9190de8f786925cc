//! Rules only distributed trainings have: the worker count and gang size, the master's own spec,
//! and what each framework needs to start.

use super::header::header;
use super::spec::spec;
use crate::model::training::checked::{Distributed, Spec};
use crate::model::training::distributed::{DistributedRequest, DistributedSpec, Framework};
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

/// How many pods run, and how many of them are scheduled as one gang: the workers and the gang.
fn replicas(errors: &mut Errors, d: &DistributedSpec) -> Option<(i32, i32)> {
    let before = errors.count();
    errors.check("spec.numWorkers", v::at_least(d.num_workers, 1));
    if d.num_workers > 9999 {
        errors.add(
            "spec.numWorkers",
            format!("must be at most 9999 (got {})", d.num_workers),
        );
    }
    let pods = d.num_workers.saturating_add(1);
    if let Some(min) = d.min_replicas
        && !(1..=pods).contains(&min)
    {
        errors.add(
            "spec.minReplicas",
            format!("must be from 1 to the number of pods, numWorkers + 1 = {pods} (got {min})"),
        );
    }
    if let Some(max) = d.max_replicas
        && max < pods
    {
        errors.add(
            "spec.maxReplicas",
            format!("must be at least the number of pods, numWorkers + 1 = {pods} (got {max})"),
        );
    }
    if errors.count() != before {
        return None;
    }
    // At most 10000 pods, so both fit.
    let workers = i32::try_from(d.num_workers).ok()?;
    let gang = i32::try_from(d.min_replicas.unwrap_or(pods)).ok()?;
    Some((workers, gang))
}

/// The master's own spec, `Some(None)` when it runs the worker's.
fn master(errors: &mut Errors, d: &DistributedSpec) -> Option<Option<Spec>> {
    match (&d.master, d.master_spec_same_as_worker) {
        (Some(_), Some(true)) => {
            errors.add(
                "spec.master",
                "must not be set when masterSpecSameAsWorker is true; remove one of them",
            );
            None
        }
        (Some(master), _) => {
            // The master's spec replaces the worker's whole (Run:ai's `master` is a complete
            // spec, and nothing is merged), so it names its own image like any other spec.
            let checked = spec(errors, master, "spec.master");
            for (field, set) in [
                ("completions", master.completions.is_some()),
                ("parallelism", master.parallelism.is_some()),
            ] {
                if set {
                    errors.add(
                        join("spec.master", field),
                        "is not used by distributed trainings",
                    );
                }
            }
            checked.map(Some)
        }
        (None, Some(false)) => {
            errors.add(
                "spec.master",
                "is required when masterSpecSameAsWorker is false",
            );
            None
        }
        (None, _) => Some(None),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepted_by, assert_one, paths, refused_by};
    use crate::model::training::parse;
    use crate::model::validation::FieldError;
    use serde_json::{Value, json};

    /// A valid PyTorch training with two workers, with `fields` added to or replacing its spec's.
    fn request(fields: Value) -> Value {
        let mut spec = json!({ "image": "x", "distributedFramework": "PyTorch", "numWorkers": 2 });
        if let (Value::Object(spec), Value::Object(fields)) = (&mut spec, fields) {
            spec.extend(fields);
        }
        json!({ "name": "ddp", "projectId": "p", "spec": spec })
    }

    fn accepts(fields: Value) {
        accepted_by(parse::distributed, request(fields));
    }

    fn refused(fields: Value) -> Vec<FieldError> {
        refused_by(parse::distributed, request(fields))
    }

    fn refuses(fields: Value, path: &str, part: &str) {
        assert_one(&refused(fields), path, part);
    }

    #[test]
    fn the_header_and_the_workers_spec_are_checked() {
        accepts(json!({}));
        let errors = parse::distributed(&json!({ "name": "Bad_Name", "projectId": "",
            "spec": { "distributedFramework": "PyTorch", "numWorkers": 1, "workingDir": "w" } }))
        .unwrap_err();
        assert_eq!(
            paths(&errors),
            ["name", "projectId", "spec.image", "spec.workingDir"]
        );
    }

    #[test]
    fn workers_are_sized_by_num_workers_not_completions_or_parallelism() {
        for field in ["completions", "parallelism"] {
            refuses(
                json!({ field: 1 }),
                &format!("spec.{field}"),
                "is not used by distributed trainings; set numWorkers (and minReplicas for the \
                 gang size)",
            );
        }
    }

    #[test]
    fn there_are_1_to_9999_workers() {
        accepts(json!({ "numWorkers": 1 }));
        accepts(json!({ "numWorkers": 9999 }));
        refuses(
            json!({ "numWorkers": 0 }),
            "spec.numWorkers",
            "must be at least 1 (got 0)",
        );
        refuses(
            json!({ "numWorkers": 10000 }),
            "spec.numWorkers",
            "must be at most 9999 (got 10000)",
        );
    }

    #[test]
    fn the_gang_is_from_1_pod_to_all_of_them() {
        accepts(json!({ "minReplicas": 1 }));
        accepts(json!({ "minReplicas": 3 }));
        for min in [0, 4] {
            refuses(
                json!({ "minReplicas": min }),
                "spec.minReplicas",
                &format!("must be from 1 to the number of pods, numWorkers + 1 = 3 (got {min})"),
            );
        }
    }

    #[test]
    fn max_replicas_are_at_least_the_pods() {
        accepts(json!({ "maxReplicas": 3 }));
        accepts(json!({ "maxReplicas": 10 }));
        refuses(
            json!({ "maxReplicas": 2 }),
            "spec.maxReplicas",
            "must be at least the number of pods, numWorkers + 1 = 3 (got 2)",
        );
    }

    #[test]
    fn a_master_spec_and_the_same_as_worker_flag_agree() {
        accepts(json!({ "masterSpecSameAsWorker": true }));
        accepts(json!({ "master": { "image": "y" } }));
        accepts(json!({ "master": { "image": "y" }, "masterSpecSameAsWorker": false }));
        refuses(
            json!({ "master": { "image": "y" }, "masterSpecSameAsWorker": true }),
            "spec.master",
            "must not be set when masterSpecSameAsWorker is true; remove one of them",
        );
        refuses(
            json!({ "masterSpecSameAsWorker": false }),
            "spec.master",
            "is required when masterSpecSameAsWorker is false",
        );
    }

    #[test]
    fn a_master_spec_is_checked_under_its_own_path() {
        accepts(json!({ "master": { "image": "y", "workingDir": "/w" } }));
        refuses(
            json!({ "master": { "image": "y", "workingDir": "w" } }),
            "spec.master.workingDir",
            "must be an absolute path",
        );
        refuses(
            json!({ "master": { "image": " " } }),
            "spec.master.image",
            "is required: the container image to run",
        );
    }

    #[test]
    fn a_master_of_its_own_names_its_image() {
        for same in [json!(null), json!(false)] {
            refuses(
                json!({ "master": { "command": "python rank0.py" }, "masterSpecSameAsWorker": same }),
                "spec.master.image",
                "is required: the container image to run",
            );
        }
    }

    #[test]
    fn the_master_is_not_sized_by_completions_or_parallelism() {
        for field in ["completions", "parallelism"] {
            refuses(
                json!({ "master": { "image": "y", field: 1 } }),
                &format!("spec.master.{field}"),
                "is not used by distributed trainings",
            );
        }
    }

    #[test]
    fn the_mpi_launcher_has_a_command() {
        let mpi = |fields: Value| {
            let mut spec = json!({ "distributedFramework": "MPI" });
            if let (Value::Object(spec), Value::Object(fields)) = (&mut spec, fields) {
                spec.extend(fields);
            }
            spec
        };
        accepts(mpi(json!({ "command": "mpirun python train.py" })));
        accepts(mpi(
            json!({ "master": { "image": "y", "command": "mpirun x" } }),
        ));
        accepts(json!({ "distributedFramework": "TF" }));
        let required = "is required for MPI: the launcher runs mpirun (the workers only run sshd)";
        refuses(mpi(json!({})), "spec.command", required);
        refuses(
            mpi(json!({ "command": "mpirun x", "master": { "image": "y" } })),
            "spec.master.command",
            required,
        );
        // The master is the worker here, so the worker's spec is where the command goes.
        let errors = refused(mpi(
            json!({ "master": { "image": "y" }, "masterSpecSameAsWorker": true }),
        ));
        assert_eq!(paths(&errors), ["spec.master", "spec.command"]);
        assert_eq!(errors[1].message, required);
    }
}
