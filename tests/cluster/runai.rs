//! Run:ai's meaning of a request's fields, on the real scheduler.

use crate::api::{TRAININGS, Tephra, WAIT, id_of};
use anyhow::Context;
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
