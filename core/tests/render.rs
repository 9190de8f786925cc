//! Golden tests of the translation: the seed documents' requests and jobs, rendered and compared.
//! Snapshots live in `tests/snapshots/`; review changes with `cargo insta review`.

mod common;

use common::{fixture, job_json, placement, profile, render};
use serde_json::{Value, json};
use tephra_core::domain::request::{Request, WorkloadKind};

#[test]
fn seed_003_as_written_is_refused_with_every_problem_named() {
    let value = fixture("seed-003-request.json");
    let errors = Request::parse(&value, WorkloadKind::Training).unwrap_err();
    // The example sets all four GPU styles, a value and a secret on one variable, "string" as
    // mount paths, and so on: each is reported at its path, all at once.
    insta::assert_json_snapshot!("seed_003_errors", errors);
}

#[test]
fn seed_003_with_its_contradictions_removed_is_accepted_with_warnings() {
    // The five refusals above changed, the fields without effect left as written.
    let mut value = fixture("seed-003-request.json");
    let spec = &mut value["spec"];
    spec["environmentVariables"][0]
        .as_object_mut()
        .unwrap()
        .remove("secret");
    spec["tolerations"][0]["effect"] = json!("NoExecute");
    spec["storage"]["git"][0]["repository"] = json!("https://github.com/example/repo.git");
    spec["storage"]["configMapVolume"][0]["mountPath"] = json!("/etc/config");
    spec["storage"]["secretVolume"][0]["mountPath"] = json!("/etc/secret");
    let request = Request::parse(&value, WorkloadKind::Training).unwrap();
    let warned: Vec<&str> = request.warnings().iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        warned,
        [
            "spec.probes.readiness.handler.httpGet.path",
            "spec.compute.gpuMemoryRequest",
            "spec.compute.gpuMemoryLimit",
            "spec.compute.migProfile",
            "spec.security.runAsUid",
            "spec.security.runAsGid",
        ]
    );
    let job = job_json(&render(&value, None));
    let container = &job["spec"]["tasks"][0]["template"]["spec"]["containers"][0];
    assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/string");
    let limits = &container["resources"]["limits"];
    assert_eq!(
        limits["volcano.sh/vgpu-memory"], "40960",
        "half of the profile's 80 GiB card, not the ignored gpuMemoryRequest: {limits}"
    );
    assert!(limits.get("nvidia.com/mig-1g.5gb").is_none(), "{limits}");
    assert!(limits.get("volcano.sh/vgpu-cores").is_none(), "{limits}");
    assert!(
        container["securityContext"].get("runAsUser").is_none(),
        "{container}"
    );
}

#[test]
fn run_ai_pod_fields_render_with_their_meaning() {
    let value = json!({ "name": "pod-fields", "projectId": "p", "spec": {
        "image": "busybox",
        "nodePools": ["a100"],
        "category": "Train",
        "preemptibility": "non-preemptible",
        "restartPolicy": "OnFailure",
        "terminationGracePeriodSeconds": 45,
        "imagePullSecrets": [{ "name": "registry" }, "mirror", { "name": "gone", "exclude": true }],
        "relatedUrls": [{ "url": "https://wandb.ai/team/run", "type": "wandb", "name": "run" }],
        "nodeAffinityRequired": { "nodeSelectorTerms": [
            { "matchExpressions": [{ "key": "gpu.example/model", "operator": "In", "values": ["a100"] }] },
            { "matchExpressions": [{ "key": "gpu.example/spare", "operator": "Exists" }] },
        ] },
        "storage": { "emptyDirVolume": [{ "path": "/scratch", "medium": "Memory", "sizeLimit": "2Gi" }] },
    } });
    let job = job_json(&render(&value, None));
    assert_eq!(
        job["metadata"]["annotations"]["tephra.dev/related-urls"],
        r#"[{"name":"run","type":"wandb","url":"https://wandb.ai/team/run"}]"#
    );
    let template = &job["spec"]["tasks"][0]["template"];
    assert_eq!(
        template["metadata"]["labels"]["tephra.dev/category"],
        "Train"
    );
    assert_eq!(
        template["metadata"]["annotations"]["volcano.sh/preemptable"],
        "false"
    );
    let pod = &template["spec"];
    assert_eq!(pod["restartPolicy"], "OnFailure");
    assert_eq!(pod["terminationGracePeriodSeconds"], 45);
    assert_eq!(
        pod["imagePullSecrets"],
        json!([{ "name": "registry" }, { "name": "mirror" }])
    );
    // Either term matches, and each also keeps the pod in its node pool.
    let pool = json!({ "key": "tephra.dev/node-pool", "operator": "In", "values": ["a100"] });
    assert_eq!(
        pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"],
        json!([
            { "matchExpressions": [
                { "key": "gpu.example/model", "operator": "In", "values": ["a100"] }, pool] },
            { "matchExpressions": [
                { "key": "gpu.example/spare", "operator": "Exists" }, pool] },
        ])
    );
    let volume = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "emptydir-0")
        .unwrap();
    assert_eq!(
        volume["emptyDir"],
        json!({ "medium": "Memory", "sizeLimit": "2Gi" })
    );
    assert!(
        pod["containers"][0]["volumeMounts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "emptydir-0" && m["mountPath"] == "/scratch")
    );
}

#[test]
fn seed_003_made_consistent_renders_every_field() {
    let rendered = render(&fixture("seed-003-consistent.json"), None);
    insta::assert_yaml_snapshot!("seed_003_rendered", rendered);
}

/// The fields the seeds' jobs are compared on.
fn shape(job: &Value) -> Value {
    let spec = &job["spec"];
    let tasks: Vec<Value> = spec["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let container = &t["template"]["spec"]["containers"][0];
            json!({
                "name": t["name"],
                "replicas": t["replicas"],
                "policies": t.get("policies").cloned().unwrap_or(json!([])),
                "limits": container["resources"].get("limits").cloned().unwrap_or(json!({})),
                "requests": container["resources"].get("requests").cloned().unwrap_or(json!({})),
                "image": container["image"],
            })
        })
        .collect();
    json!({
        "minAvailable": spec["minAvailable"],
        "queue": spec["queue"],
        "priorityClassName": spec.get("priorityClassName"),
        "maxRetry": spec.get("maxRetry"),
        "tasks": tasks,
    })
}

#[test]
fn seed_000_pytorch_job_is_reproduced() {
    let seed = fixture("seed-000-job.json");
    let rendered = render(&fixture("seed-000-pytorch.json"), Some("ml-queue"));
    let ours = job_json(&rendered);

    let mut expected = shape(&seed);
    // The master's completion ends the job (seed 002's advice); seed 000 leaves it out, so
    // workers that outlive rank 0 would keep the job running.
    expected["tasks"][0]["policies"] =
        json!([{ "event": "TaskCompleted", "action": "CompleteJob" }]);
    assert_eq!(shape(&ours), expected);

    assert_eq!(ours["spec"]["schedulerName"], "volcano");
    assert_eq!(
        ours["spec"]["plugins"]["pytorch"],
        json!(["--master=master", "--worker=worker", "--port=23456"])
    );
    assert_eq!(
        ours["spec"]["plugins"]["svc"],
        json!([]),
        "the webhook would add svc; Tephra does"
    );
    // PodEvicted restarts as in the seed. PodFailed restarts too, up to maxRetry (the request's
    // backoffLimit), where the seed aborts: an Aborted job looks suspended, not failed.
    assert_eq!(
        ours["spec"]["policies"],
        json!([{ "event": "PodEvicted", "action": "RestartJob" }, { "event": "PodFailed", "action": "RestartJob" }])
    );
    assert_eq!(
        seed["spec"]["policies"][0],
        json!({ "event": "PodEvicted", "action": "RestartJob" })
    );
    for task in ours["spec"]["tasks"].as_array().unwrap() {
        assert_eq!(task["template"]["spec"]["schedulerName"], "volcano");
        assert_eq!(task["template"]["spec"]["restartPolicy"], "Never");
    }
    assert_eq!(ours["metadata"]["labels"]["framework"], "pytorch");
    assert_eq!(ours["metadata"]["labels"]["team"], "ml-platform");
    insta::assert_yaml_snapshot!("seed_000_rendered", rendered.job);
}

#[test]
fn seed_002_torchrun_gang_is_reproduced() {
    let seed = &fixture("seed-002-jobs.yaml")["torchrun"];
    let ours = job_json(&render(&fixture("seed-002-torchrun.json"), Some("default")));
    let spec = &ours["spec"];
    assert_eq!(spec["minAvailable"], seed["minAvailable"]);
    assert_eq!(spec["queue"], seed["queue"]);
    assert_eq!(spec["maxRetry"], seed["maxRetry"]);
    assert_eq!(spec["plugins"]["pytorch"], seed["plugins"]["pytorch"]);
    assert_eq!(spec["policies"][0], seed["policies"][0]);
    for (task, expected) in spec["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .zip(seed["tasks"].as_array().unwrap())
    {
        assert_eq!(task["name"], expected["name"]);
        assert_eq!(task["replicas"], expected["replicas"]);
        assert_eq!(
            task.get("policies").cloned().unwrap_or(json!([])),
            expected.get("policies").cloned().unwrap_or(json!([]))
        );
        let container = &task["template"]["spec"]["containers"][0];
        assert_eq!(container["resources"]["limits"], expected["limits"]);
        assert_eq!(container["command"], json!(["torchrun"]));
        assert_eq!(
            container["args"][2], "--node_rank=$(RANK)",
            "Kubernetes expands $(RANK) at pod start"
        );
    }
}

#[test]
fn an_elastic_pytorch_training_creates_max_replicas_workers_and_starts_with_its_gang() {
    let mut elastic = fixture("seed-002-torchrun.json");
    let spec = elastic["spec"].as_object_mut().unwrap();
    let workers = spec["numWorkers"].as_i64().unwrap();
    spec.insert("minReplicas".into(), json!(1));
    spec.insert("maxReplicas".into(), json!(workers + 3));
    let job = job_json(&render(&elastic, Some("default")));
    let tasks = job["spec"]["tasks"].as_array().unwrap();
    assert_eq!(
        tasks[1]["replicas"],
        workers + 3,
        "every worker it may grow to"
    );
    assert_eq!(tasks[1]["minAvailable"], 1);
    assert_eq!(
        job["spec"]["minAvailable"], 2,
        "minReplicas workers and the master"
    );
    for task in tasks {
        let env = &task["template"]["spec"]["containers"][0]["env"];
        assert!(
            env.as_array()
                .unwrap()
                .contains(&json!({ "name": "PET_NNODES", "value": format!("2:{}", workers + 4) })),
            "{env}"
        );
    }
    // Not elastic without maxReplicas: numWorkers workers and no range.
    let plain = job_json(&render(&fixture("seed-002-torchrun.json"), Some("default")));
    assert_eq!(plain["spec"]["tasks"][1]["replicas"], workers);
    assert!(!plain.to_string().contains("PET_NNODES"));
}

#[test]
fn seed_001_and_002_mpi_jobs_are_reproduced() {
    let ours = job_json(&render(&fixture("seed-001-mpi.json"), Some("default")));
    let spec = &ours["spec"];
    assert_eq!(
        spec["minAvailable"], 2,
        "seed 001 gates the gang at 2 of 3 pods (minReplicas 1: one worker and the launcher)"
    );
    for plugin in ["env", "ssh", "svc"] {
        assert_eq!(
            spec["plugins"][plugin],
            json!([]),
            "seed 001 has the {plugin} plugin"
        );
    }
    let seed = &fixture("seed-002-jobs.yaml")["mpi"];
    assert_eq!(spec["plugins"]["mpi"], seed["plugins"]["mpi"]);
    let tasks = spec["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2);
    for (task, expected) in tasks.iter().zip(seed["tasks"].as_array().unwrap()) {
        assert_eq!(task["name"], expected["name"]);
        assert_eq!(task["replicas"], expected["replicas"]);
        assert_eq!(
            task["template"]["spec"]["containers"][0]["name"],
            expected["name"]
        );
    }
    assert_eq!(tasks[0]["policies"], seed["tasks"][0]["policies"]);
    for task in tasks {
        assert_eq!(
            task["template"]["spec"]["imagePullSecrets"],
            json!([{ "name": "default-secret" }]),
            "seed 001 pulls every task's image with default-secret"
        );
    }
    let master_cmd = tasks[0]["template"]["spec"]["containers"][0]["command"]
        .as_array()
        .unwrap();
    assert!(
        master_cmd[2].as_str().unwrap().contains("mpiexec"),
        "{master_cmd:?}"
    );
    let worker_cmd = tasks[1]["template"]["spec"]["containers"][0]["command"]
        .as_array()
        .unwrap();
    assert!(
        worker_cmd[2].as_str().unwrap().contains("sshd -D"),
        "{worker_cmd:?}"
    );

    // Without minReplicas the whole job is the gang, as in seed 002's MPI variant.
    let mut all = fixture("seed-001-mpi.json");
    all["spec"].as_object_mut().unwrap().remove("minReplicas");
    assert_eq!(
        job_json(&render(&all, Some("default")))["spec"]["minAvailable"],
        seed["minAvailable"]
    );
}

#[test]
fn an_mpi_launcher_that_waits_for_its_workers_depends_on_them_outside_the_gang() {
    let mut waiting = fixture("seed-001-mpi.json");
    waiting["spec"]["mpiLauncherCreationPolicy"] = json!("WaitForWorkersReady");
    let job = job_json(&render(&waiting, Some("default")));
    let spec = &job["spec"];
    assert_eq!(
        spec["minAvailable"], 1,
        "the gang is minReplicas workers; the launcher comes after them"
    );
    assert_eq!(spec["tasks"][0]["name"], "mpimaster");
    assert_eq!(spec["tasks"][0]["minAvailable"], 0);
    assert_eq!(
        spec["tasks"][0]["dependsOn"],
        json!({ "name": ["mpiworker"] })
    );
    assert_eq!(spec["tasks"][1]["minAvailable"], 1);
    assert_eq!(spec["tasks"][1].get("dependsOn"), None);
    // At startup (the default), the launcher is part of the gang.
    let at_startup = job_json(&render(&fixture("seed-001-mpi.json"), Some("default")));
    assert_eq!(at_startup["spec"]["tasks"][0]["minAvailable"], 1);
    assert_eq!(at_startup["spec"]["tasks"][0].get("dependsOn"), None);
}

#[test]
fn names_used_as_prefixes_get_the_suffix() {
    let mut value = fixture("seed-002-torchrun.json");
    value["useGivenNameAsPrefix"] = json!(true);
    let ours = job_json(&render(&value, Some("default")));
    assert_eq!(ours["metadata"]["name"], "torchrun-gang-x7k2q");
    assert_eq!(
        ours["metadata"]["annotations"]["tephra.dev/requested-name"],
        "torchrun-gang"
    );
}

#[test]
fn unknown_priority_classes_name_the_allowed_ones() {
    let mut value = fixture("seed-002-torchrun.json");
    value["spec"]["priorityClass"] = json!("urgent");
    let request = Request::parse(&value, WorkloadKind::Distributed).unwrap();
    let errors = request
        .render(&request.owner(&placement(None)), &profile())
        .unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path, "spec.priorityClass");
    assert!(
        errors[0]
            .message
            .contains("build, high-priority, inference"),
        "{}",
        errors[0].message
    );
}
