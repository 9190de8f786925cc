//! Golden tests of the translation: the seed documents' requests and jobs, rendered and compared.
//! Snapshots live in `tests/snapshots/`; review changes with `cargo insta review`.

mod common;

use common::{fixture, placement, profile, render};
use serde_json::{Value, json};
use tephra_core::domain::cluster::ForwardAuth;
use tephra_core::domain::exposed::url_host;
use tephra_core::domain::render::{Rendered, exposed_url};
use tephra_core::domain::request::{Request, WorkloadKind};

fn job_json(rendered: &Rendered) -> Value {
    serde_json::to_value(&rendered.job).unwrap()
}

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
fn exposed_urls_get_a_service_and_an_ingress_host_each_where_the_cluster_has_a_class_and_host() {
    let value = json!({ "name": "notebook", "projectId": "ml",
        "spec": { "image": "jupyter/base-notebook", "exposedUrls": [
            { "container": 8888, "toolType": "jupyter" }, { "container": 6006 } ] } });
    let request = Request::parse(&value, WorkloadKind::Training).unwrap();
    let owner = request.owner(&placement(Some("default")));
    let in_cluster = request.render(&owner, &profile()).unwrap();
    assert!(in_cluster.ingresses.is_empty(), "no class, no Ingress");
    let service = serde_json::to_value(&in_cluster.services[0]).unwrap();
    assert_eq!(service["metadata"]["name"], "notebook-train-urls");
    assert_eq!(service["spec"]["type"], "ClusterIP");
    assert_eq!(
        service["spec"]["ports"],
        json!([{ "name": "url-8888", "port": 8888, "protocol": "TCP", "targetPort": 8888 },
               { "name": "url-6006", "port": 6006, "protocol": "TCP", "targetPort": 6006 }])
    );
    assert_eq!(service["spec"]["selector"]["volcano.sh/task-spec"], "train");

    let mut class_only = profile();
    class_only.ingress_class = Some("nginx".into());
    let hostless = request.render(&owner, &class_only).unwrap();
    assert!(
        hostless.ingresses.is_empty(),
        "no host, no Ingress: a hostless rule would put every training on one origin"
    );
    assert_eq!(hostless.services.len(), 1);

    let mut with_ingress = class_only.clone();
    with_ingress.ingress_host = Some("ml.example.com".into());
    let rendered = request.render(&owner, &with_ingress).unwrap();
    let ingress = serde_json::to_value(&rendered.ingresses[0]).unwrap();
    assert_eq!(ingress["metadata"]["name"], "notebook-urls");
    assert_eq!(ingress["spec"]["ingressClassName"], "nginx");
    let namespace = owner.namespace.as_str();
    for (i, port) in [8888, 6006].into_iter().enumerate() {
        let rule = &ingress["spec"]["rules"][i];
        let host = url_host("ml.example.com", namespace, "notebook", port);
        assert!(host.starts_with(&format!("notebook-{port}-")), "{host}");
        assert_eq!(rule["host"], host.as_str());
        assert_eq!(
            rule["http"]["paths"],
            json!([{ "path": "/", "pathType": "Prefix",
                     "backend": { "service": { "name": "notebook-train-urls",
                                               "port": { "number": port } } } }])
        );
        assert_eq!(
            exposed_url(&owner, port, &with_ingress),
            Some(format!("https://{host}/"))
        );
    }
    assert_eq!(exposed_url(&owner, 8888, &class_only), None);
    let annotations = ingress["metadata"]["annotations"].as_object().unwrap();
    assert!(
        !annotations.keys().any(|k| k.starts_with("nginx.")),
        "no forward auth in the profile, none on the Ingress"
    );

    // A restriction to some users is refused where an ingress would open the URL to everyone.
    let mut restricted = value.clone();
    restricted["spec"]["exposedUrls"][1]["authorizedGroups"] = json!(["ml-team"]);
    let request = Request::parse(&restricted, WorkloadKind::Training).unwrap();
    assert!(request.render(&owner, &profile()).is_ok());
    assert!(request.render(&owner, &class_only).is_ok());
    let refused = request.render(&owner, &with_ingress).unwrap_err();
    assert_eq!(refused[0].path, "spec.exposedUrls[1].authorizedGroups");
    assert!(
        refused[0]
            .message
            .starts_with("cannot be enforced on this cluster")
    );
}

#[test]
fn with_forward_auth_every_exposed_url_asks_tephra_and_restrictions_are_kept() {
    let value = json!({ "name": "notebook", "projectId": "ml",
        "spec": { "image": "jupyter/base-notebook", "exposedUrls": [
            { "container": 8888, "authorizedUsers": ["ada@example.org"] } ] } });
    let request = Request::parse(&value, WorkloadKind::Training).unwrap();
    let owner = request.owner(&placement(Some("default")));
    let mut guarded = profile();
    guarded.ingress_class = Some("nginx".into());
    guarded.ingress_host = Some("ml.example.com".into());
    guarded.forward_auth = Some(ForwardAuth {
        url: "https://tephra.example.org".into(),
        internal_url: Some("http://tephra.tephra-system.svc:3000/".into()),
    });
    let rendered = request.render(&owner, &guarded).unwrap();
    let ingress = serde_json::to_value(&rendered.ingresses[0]).unwrap();
    let annotations = &ingress["metadata"]["annotations"];
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/auth-url"],
        "http://tephra.tephra-system.svc:3000/auth/exposed/check"
    );
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/auth-signin"],
        "https://tephra.example.org/auth/exposed"
    );
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/auth-always-set-cookie"],
        "true"
    );
    assert_eq!(annotations["tephra.dev/requested-name"], "notebook");
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

#[test]
fn generic_replicas_become_tasks_that_restart_in_place_within_their_limit() {
    let rendered = render(&fixture("generic-ps-worker.json"), None);
    assert!(!rendered.starts_paused);
    let job = job_json(&rendered);
    let spec = &job["spec"];
    assert_eq!(spec["minAvailable"], 6, "the whole job is the gang");
    assert!(
        spec.get("ttlSecondsAfterFinished").is_none(),
        "cleanUpPolicy All is Tephra's to carry out, after it recorded the finish"
    );
    assert_eq!(
        spec["policies"],
        json!([{ "event": "PodEvicted", "action": "RestartJob" }]),
        "a failed pod is left to the rules Tephra judges"
    );
    let ps = &spec["tasks"][0];
    assert_eq!(ps["name"], "ps");
    assert!(ps.get("policies").is_none(), "{ps}");
    assert_eq!(ps["template"]["spec"]["restartPolicy"], "Never");
    let worker = &spec["tasks"][1];
    assert_eq!(worker["maxRetry"], 3, "restartPolicy.limit");
    assert_eq!(worker["template"]["spec"]["restartPolicy"], "OnFailure");
    insta::assert_yaml_snapshot!("generic_ps_worker_rendered", rendered.job);
}

#[test]
fn generic_debug_mode_replaces_commands_and_pause_applies_resume_specs() {
    let mut debug = fixture("generic-ps-worker.json");
    debug["spec"]["runMode"] = json!({ "debug": { "enabled": true, "replicaSpecs": [
        { "type": "worker", "command": "sleep 3600", "skipInitContainer": true }
    ] } });
    let job = job_json(&render(&debug, None));
    let ps = &job["spec"]["tasks"][0]["template"]["spec"];
    let worker = &job["spec"]["tasks"][1]["template"]["spec"];
    assert_eq!(
        ps["containers"][0]["command"],
        json!(["sleep", "inf"]),
        "no override: sleep"
    );
    assert_eq!(worker["containers"][0]["command"], json!(["sleep", "3600"]));
    assert!(
        worker["containers"][0].get("args").is_none(),
        "debug drops the args"
    );
    assert!(worker.get("initContainers").is_none(), "skipInitContainer");
    assert_eq!(
        job["metadata"]["annotations"]["tephra.dev/run-mode"],
        "debug"
    );

    let mut paused = fixture("generic-ps-worker.json");
    paused["spec"]["runMode"] = json!({ "pause": { "enabled": true, "resumeSpecs": [
        { "type": "worker", "args": "--epochs 10 --resume-from /ckpt" }
    ] } });
    let rendered = render(&paused, None);
    assert!(rendered.starts_paused, "the workload is created suspended");
    let job = job_json(&rendered);
    let worker = &job["spec"]["tasks"][1]["template"]["spec"]["containers"][0];
    assert_eq!(
        worker["command"],
        json!(["python", "train.py"]),
        "the command is kept"
    );
    assert_eq!(
        worker["args"],
        json!(["--epochs", "10", "--resume-from", "/ckpt"])
    );
}

#[test]
fn generic_rules_must_name_replica_types_of_the_job() {
    let mut value = fixture("generic-ps-worker.json");
    value["spec"]["successRules"] = json!([{ "chief": [0], "worker": [4] }]);
    value["spec"]["replicaSpecs"][1]["type"] = json!("ps");
    value["spec"]["runMode"] =
        json!({ "debug": { "enabled": true }, "pause": { "enabled": true } });
    let errors = Request::parse(&value, WorkloadKind::Generic).unwrap_err();
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "spec.replicaSpecs[1].type",
            "spec.successRules[0].chief",
            "spec.successRules[0].worker",
            "spec.failureRules[1].worker",
            "spec.runMode",
        ]
    );
}
