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
