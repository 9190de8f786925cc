//! Run:ai's meaning of a request's fields, on the real scheduler.

use crate::api::{DISTRIBUTED, TRAININGS, Tephra, WAIT, id_of, pytorch};
use anyhow::Context;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::networking::v1::Ingress;
use kube::api::{Api, ListParams};
use serde_json::json;
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

/// Run:ai's `completions` counts successful pods in total and `parallelism` the pods at a time:
/// three completions with a parallelism of one create three pods, the gang gate is one, and the
/// training completes when all three succeed.
pub async fn completions_beyond_parallelism_run_every_pod_and_complete_when_all_succeed(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let body = json!({ "name": "sweep", "projectId": "default",
            "spec": { "image": "busybox", "parallelism": 1, "completions": 3 } });
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        let running = t
            .wait_until(TRAININGS, &id, "three pods running", |b| {
                b["status"]["tasks"]["train"]["running"] == 3
            })
            .await?;
        assert_eq!(running["status"]["podGroup"]["minMember"], 1, "{running}");
        t.finish_pods(&id, None, "Succeeded").await?;
        t.wait_phase(TRAININGS, &id, "Completed").await?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// Run:ai's `mpiLauncherCreationPolicy: WaitForWorkersReady`: while the workers wait for GPUs
/// their pods exist and the launcher's does not; once the workers run, the launcher is created,
/// runs, and its success completes the training.
pub async fn an_mpi_launcher_that_waits_is_created_once_its_workers_run(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        // Four pods of 8 GPUs fill the testbed's 32.
        let filler = id_of(&t.submit(DISTRIBUTED, &pytorch("filler", 3, 8)).await?)?;
        t.wait_until(DISTRIBUTED, &filler, "the cluster full", |b| {
            b["actualPhase"] == "Running"
        })
        .await?;
        let body = json!({ "name": "mpi-wait", "projectId": "default",
            "spec": { "distributedFramework": "MPI", "numWorkers": 2,
                      "mpiLauncherCreationPolicy": "WaitForWorkersReady",
                      "image": "mpioperator/openmpi:0.6.0",
                      "command": "sh -c '/usr/sbin/sshd -D'",
                      "compute": { "gpuDevicesRequest": 1 } },
            "masterSpec": { "image": "mpioperator/openmpi:0.6.0",
                            "command": "mpirun -np 2 hostname" } });
        let id = id_of(&t.submit(DISTRIBUTED, &body).await?)?;
        let waiting = t
            .wait_until(DISTRIBUTED, &id, "the workers' pods waiting", |b| {
                b["status"]["tasks"]["mpiworker"]["pending"] == 2
            })
            .await?;
        assert_eq!(waiting["status"]["podGroup"]["minMember"], 2, "{waiting}");
        let tasks: Vec<String> = t
            .pods_of(&id)
            .await?
            .iter()
            .filter_map(|p| {
                p.metadata
                    .labels
                    .as_ref()?
                    .get("volcano.sh/task-spec")
                    .cloned()
            })
            .collect();
        assert_eq!(
            tasks,
            ["mpiworker", "mpiworker"],
            "no launcher before the workers run"
        );

        let (status, _) = t.delete(&format!("{DISTRIBUTED}/{filler}")).await?;
        assert_eq!(status, 202);
        t.wait_until(
            DISTRIBUTED,
            &id,
            "the launcher running after its workers",
            |b| {
                b["status"]["tasks"]["mpiworker"]["running"] == 2
                    && b["status"]["tasks"]["mpimaster"]["running"] == 1
            },
        )
        .await?;
        t.finish_pods(&id, Some("mpimaster"), "Succeeded").await?;
        t.wait_phase(DISTRIBUTED, &id, "Completed").await?;
        // The next tests count on the whole cluster: the filler's pods must be gone.
        t.wait_gone(DISTRIBUTED, &filler).await?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// Run:ai's `exposedUrls` on a cluster whose profile names an ingress class and host: the
/// training's Service and Ingress exist while it runs, the Ingress routes the URL's own host to
/// the Service, and both go with the workload.
pub async fn exposed_urls_get_a_service_and_an_ingress_that_go_with_the_workload(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let (t, _profile) = Tephra::start_with_profile(
        &tb,
        &ns,
        "ingressClass: nginx\ningressHost: ml.example.com\n",
    )
    .await?;
    let result = async {
        let restricted = json!({ "name": "closed", "projectId": "default",
            "spec": { "image": "jupyter/base-notebook",
                      "exposedUrls": [{ "container": 8888, "authorizedUsers": ["ada"] }] } });
        let (status, body) = t.post(TRAININGS, &restricted).await?;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            body["details"][0]["field"], "spec.exposedUrls[0].authorizedUsers",
            "{body}"
        );

        let body = json!({ "name": "notebook", "projectId": "default",
            "spec": { "image": "jupyter/base-notebook",
                      "exposedUrls": [{ "container": 8888, "toolType": "jupyter" }] } });
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let namespace = t.namespace();
        let selector = ListParams::default().labels(&format!("tephra.dev/workload-id={id}"));
        let ingresses = Api::<Ingress>::namespaced(t.kube.clone(), &namespace);
        let services = Api::<Service>::namespaced(t.kube.clone(), &namespace);
        let ingress = ingresses.list(&selector).await?.items;
        assert_eq!(ingress.len(), 1, "one Ingress for the training");
        let spec = ingress[0].spec.clone().context("an Ingress spec")?;
        assert_eq!(spec.ingress_class_name.as_deref(), Some("nginx"));
        let rule = &spec.rules.context("rules")?[0];
        let host =
            tephra_core::domain::exposed::url_host("ml.example.com", &namespace, "notebook", 8888);
        assert_eq!(rule.host.as_deref(), Some(host.as_str()));
        let path = &rule.http.as_ref().context("http")?.paths[0];
        assert_eq!(path.path.as_deref(), Some("/"));
        let backend = path.backend.service.as_ref().context("a service backend")?;
        let service = services.get(&backend.name).await?;
        let ports = service.spec.and_then(|s| s.ports).unwrap_or_default();
        assert_eq!(ports[0].port, 8888);

        let (status, _) = t.delete(&format!("{TRAININGS}/{id}")).await?;
        assert_eq!(status, 202);
        t.wait_gone(TRAININGS, &id).await?;
        assert!(ingresses.list(&selector).await?.items.is_empty());
        assert!(services.list(&selector).await?.items.is_empty());
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// A project's default pull secret (a default of the project's training policy) reaches the pods
/// of a training that names none; a training naming its own keeps its own.
pub async fn a_projects_default_pull_secret_reaches_the_pods(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let policy = json!({ "meta": { "scope": "project", "projectId": "default" },
            "policy": { "defaults": { "imagePullSecrets": ["team-registry"] } } });
        let (status, body) = t.put("/api/v2/policy/trainings", &policy).await?;
        assert_eq!(status, 200, "{body}");
        let plain = json!({ "name": "plain", "projectId": "default",
            "spec": { "image": "registry.example.com/team/train:1" } });
        let own = json!({ "name": "own", "projectId": "default",
            "spec": { "image": "registry.example.com/team/train:1",
                      "imagePullSecrets": [{ "name": "mine" }] } });
        for (body, secret) in [(plain, "team-registry"), (own, "mine")] {
            let id = id_of(&t.submit(TRAININGS, &body).await?)?;
            t.wait_phase(TRAININGS, &id, "Running").await?;
            let pods = t.pods_of(&id).await?;
            let secrets: Vec<String> = pods
                .iter()
                .flat_map(|p| {
                    p.spec
                        .iter()
                        .flat_map(|s| s.image_pull_secrets.iter().flatten())
                })
                .map(|r| r.name.clone())
                .collect();
            assert_eq!(secrets, [secret], "{body}");
        }
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// A Run:ai script, run unmodified through Run:ai's own Python SDK (`runapy`, installed by
/// `scripts/setup`): it signs in with an application's credentials, finds the project and its
/// cluster, submits the SDK README's portion training, then a training and a distributed training
/// that it suspends, resumes and deletes on the real scheduler (see `runai_sdk.py`).
pub async fn runai_python_sdk_runs_a_script_unmodified(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let (status, app) = t
            .post(
                "/api/v1/apps",
                &json!({ "name": "sdk", "roles": [
                    { "roleId": 4, "scopeType": "project", "scopeId": "default" }] }),
            )
            .await?;
        anyhow::ensure!(status == 201, "{status} {app}");
        let secret = app["clientSecret"].as_str().context("the secret")?;
        let venv = std::env::var_os("TEPHRA_RUNAPY_VENV")
            .map(std::path::PathBuf::from)
            .context("TEPHRA_RUNAPY_VENV is not set: run the tests through scripts/test")?;
        let python = venv.join("bin/python");
        let script = tephra_tests::workspace::root().join("tests/cluster/runai_sdk.py");
        let run = tokio::process::Command::new(&python)
            .arg(&script)
            .args([&t.url(""), "sdk", secret])
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(std::time::Duration::from_secs(600), run)
            .await
            .context("the SDK script did not finish within 10 minutes")?
            .with_context(|| format!("cannot run {}", python.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        println!("{stdout}");
        anyhow::ensure!(
            out.status.success() && stdout.ends_with("done\n"),
            "the SDK script failed ({}):\n{stdout}\n{stderr}",
            out.status
        );
        // Every workload it deleted is gone from the cluster too.
        let jobs = t.jobs();
        tephra_tests::wait_for("the SDK's Jobs to go", WAIT, || async {
            let listed = jobs.list(&Default::default()).await.ok()?;
            listed.items.is_empty().then_some(())
        })
        .await
    }
    .await;
    t.cleanup().await;
    result
}
