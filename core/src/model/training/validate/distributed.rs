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
    fn min_replicas_counts_the_workers_of_the_gang_besides_the_master() {
        let gang = |fields| parse::distributed(&request(fields)).unwrap().gang();
        assert_eq!(gang(json!({})), 3, "two workers and the master");
        assert_eq!(gang(json!({ "minReplicas": 1 })), 2);
        assert_eq!(gang(json!({ "minReplicas": 2 })), 3);
        for min in [0, 3] {
            refuses(
                json!({ "minReplicas": min }),
                "spec.minReplicas",
                &format!(
                    "must be from 1 to numWorkers (2): the workers that must run together, \
                     besides the master (got {min})"
                ),
            );
        }
    }

    #[test]
    fn max_replicas_are_at_least_the_workers() {
        accepts(json!({ "maxReplicas": 2 }));
        refuses(
            json!({ "maxReplicas": 10000 }),
            "spec.maxReplicas",
            "must be at most 9999 (got 10000)",
        );
        accepts(json!({ "maxReplicas": 10, "minReplicas": 1 }));
        refuses(
            json!({ "maxReplicas": 1 }),
            "spec.maxReplicas",
            "must be at least numWorkers (2) and minReplicas: the most workers the elastic \
             training may grow to (got 1)",
        );
    }

    #[test]
    fn only_pytorch_scales_but_every_framework_gates_its_gang() {
        let mpi = parse::distributed(&request(json!({ "distributedFramework": "MPI",
            "command": "mpirun", "minReplicas": 1, "maxReplicas": 4 })))
        .unwrap();
        assert_eq!(mpi.gang(), 2);
        assert_eq!(mpi.warnings().len(), 1);
        assert_eq!(
            mpi.warnings()[0].message,
            "has no effect with MPI: only PyTorch has elastic training"
        );
    }

    #[test]
    fn the_sdks_defaults_pass_silently_for_every_framework() {
        for framework in ["PyTorch", "MPI", "TF", "XGBoost"] {
            let d = parse::distributed(&request(json!({
                "distributedFramework": framework, "command": "run",
                "slotsPerWorker": 1, "sshAuthMountPath": "/root/.ssh",
            })))
            .unwrap();
            assert_eq!(d.warnings(), [], "{framework}");
            assert_eq!(d.ssh_key_path(), None);
        }
    }

    #[test]
    fn mpi_options_are_mpis() {
        let mpi = |fields: Value| {
            let mut fields = fields;
            fields["distributedFramework"] = json!("MPI");
            fields["command"] = json!("mpirun");
            fields
        };
        let d = parse::distributed(&request(mpi(
            json!({ "sshAuthMountPath": "/home/me/.ssh" }),
        )))
        .unwrap();
        assert_eq!(d.ssh_key_path(), Some("/home/me/.ssh"));
        refuses(
            mpi(json!({ "slotsPerWorker": 4 })),
            "spec.slotsPerWorker",
            "must be 1: Volcano's MPI plugin lists each worker once in the hostfile",
        );
        accepts(mpi(json!({ "mpiLauncherCreationPolicy": "AtStartup" })));
        accepts(mpi(
            json!({ "mpiLauncherCreationPolicy": "WaitForWorkersReady" }),
        ));
        refuses(
            mpi(json!({ "sshAuthMountPath": "keys" })),
            "spec.sshAuthMountPath",
            "absolute",
        );
        // Elsewhere they change nothing, and the answer says so.
        let d = parse::distributed(&request(json!({ "slotsPerWorker": 4,
            "mpiLauncherCreationPolicy": "AtStartup", "cleanPodPolicy": "All" })))
        .unwrap();
        let warned: Vec<&str> = d.warnings().iter().map(|w| w.path.as_str()).collect();
        assert_eq!(
            warned,
            [
                "spec.slotsPerWorker",
                "spec.mpiLauncherCreationPolicy",
                "spec.cleanPodPolicy"
            ]
        );
    }

    #[test]
    fn run_ais_top_level_master_spec_is_read_and_named_where_it_is() {
        let top = |extra: Value| {
            let mut body = request(json!({}));
            if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
                body.extend(extra);
            }
            body
        };
        let d = parse::distributed(&top(json!({ "masterSpecSameAsWorker": false,
            "masterSpec": { "image": "launcher" } })))
        .unwrap();
        assert_eq!(d.master().image, "launcher");
        let errors = refused_by(
            parse::distributed,
            top(json!({ "masterSpec": { "image": "y", "workingDir": "w" } })),
        );
        assert_eq!(paths(&errors), ["masterSpec.workingDir"]);
        let errors = refused_by(
            parse::distributed,
            top(json!({ "masterSpecSameAsWorker": false })),
        );
        assert_eq!(paths(&errors), ["masterSpec"]);
        let mut both = top(json!({ "masterSpec": { "image": "y" } }));
        both["spec"]["master"] = json!({ "image": "z" });
        let errors = refused_by(parse::distributed, both);
        assert_eq!(paths(&errors), ["masterSpec"]);
        assert!(
            errors[0].message.contains("set it in one place"),
            "{errors:?}"
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
