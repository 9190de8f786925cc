//! Generic jobs (seeds/004, T9k's GenericJob) through `/api/v1/workloads/generic` on the
//! testbed: each finish rule, restart limit, clean-up policy and run mode as seeds/004 describes
//! them, with the Volcano Job and its pods inspected directly.

use crate::api::{Tephra, id_of};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

const GENERIC: &str = "/api/v1/workloads/generic";
const OUTCOME: &str = "testbed.tephra.dev/outcome";

/// A parameter server and two GPU workers, with `extra` added to the spec.
fn ps_and_workers(name: &str, extra: Value) -> Value {
    let mut spec = json!({ "replicaSpecs": [
        { "type": "ps", "spec": { "image": "tensorflow/tensorflow:2.16.1", "command": "python ps.py",
                                  "compute": { "cpuCoreRequest": 0.1 } } },
        { "type": "worker", "replicas": 2,
          "spec": { "image": "tensorflow/tensorflow:2.16.1", "command": "python worker.py",
                    "compute": { "gpuDevicesRequest": 1 } } }] });
    if let (Value::Object(spec), Value::Object(extra)) = (&mut spec, extra) {
        spec.extend(extra);
    }
    json!({ "name": name, "projectId": "default", "spec": spec })
}

impl Tephra {
    /// Ends one pod (`<job>-<type>-<index>`) with `outcome`.
    async fn finish_pod(&self, pod: &str, outcome: &str) -> anyhow::Result<()> {
        let patch = json!({ "metadata": { "annotations": { OUTCOME: outcome } } });
        Api::<Pod>::namespaced(self.kube.clone(), &self.namespace())
            .patch(pod, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }

    /// The workload's pods by name, with their phase and restarts.
    async fn pod_phases(&self, id: &str) -> anyhow::Result<Vec<(String, String, i32)>> {
        let mut pods: Vec<(String, String, i32)> = self
            .pods_of(id)
            .await?
            .into_iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .map(|p| {
                let status = p.status.unwrap_or_default();
                let restarts = status
                    .container_statuses
                    .iter()
                    .flatten()
                    .map(|c| c.restart_count)
                    .sum();
                (
                    p.metadata.name.unwrap_or_default(),
                    status.phase.unwrap_or_default(),
                    restarts,
                )
            })
            .collect();
        pods.sort();
        Ok(pods)
    }

    async fn job_of(&self, id: &str) -> anyhow::Result<Value> {
        let job = self
            .jobs_of(id)
            .await?
            .into_iter()
            .next()
            .context("a Job")?;
        Ok(serde_json::to_value(job)?)
    }

    async fn wait_running_gang(&self, id: &str) -> anyhow::Result<Value> {
        self.wait_until(GENERIC, id, "every replica to run", |b| {
            b["actualPhase"] == "Running"
                && b["status"]["tasks"]["worker"]["running"] == 2
                && b["status"]["tasks"]["ps"]["running"] == 1
        })
        .await
    }
}

/// A failure rule holds only when every replica it lists failed, and Unfinished then stops the
/// pods still running while the failed ones stay for their logs. Listed, fetched and deleted
/// through the generic routes.
pub async fn a_generic_jobs_failure_rule_waits_for_every_replica_it_lists(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let body = ps_and_workers(
            "rules",
            json!({ "failureRules": [{ "worker": [0, 1] }], "cleanUpPolicy": "Unfinished" }),
        );
        let id = id_of(&t.submit(GENERIC, &body).await?)?;
        t.wait_running_gang(&id).await?;
        let job = t.job_of(&id).await?;
        ensure!(
            job["spec"]["policies"] == json!([{ "event": "PodEvicted", "action": "RestartJob" }]),
            "a failed pod is left to the rules: {}",
            job["spec"]["policies"]
        );

        t.finish_pod("rules-worker-0", "Failed").await?;
        t.wait_until(GENERIC, &id, "worker 0 to have failed", |b| {
            b["status"]["tasks"]["worker"]["failed"] == 1
        })
        .await?;
        // The rule lists two workers: one failed worker decides nothing.
        tokio::time::sleep(std::time::Duration::from_secs(3)).await;
        let (_, still) = t.get(&format!("{GENERIC}/{id}")).await?;
        assert_eq!(still["actualPhase"], "Running", "{still}");

        t.finish_pod("rules-worker-1", "Failed").await?;
        let failed = t.wait_phase(GENERIC, &id, "Failed").await?;
        assert_eq!(
            failed["phaseMessage"], "failure rule 1 holds: worker 0, worker 1 failed",
            "{failed}"
        );
        // Unfinished: Volcano terminated the Job, which stopped the parameter server and kept
        // the failed workers.
        tephra_tests::wait_for("the running ps to be stopped", crate::api::WAIT, || async {
            let pods = t.pod_phases(&id).await.ok()?;
            let names: Vec<&str> = pods.iter().map(|p| p.0.as_str()).collect();
            (names == ["rules-worker-0", "rules-worker-1"]).then_some(())
        })
        .await?;

        let (status, list) = t.get(GENERIC).await?;
        assert_eq!(status, 200, "{list}");
        assert_eq!(list["generic"][0]["workloadId"], id.as_str(), "{list}");
        let (status, all) = t.get("/api/v1/workloads").await?;
        assert_eq!(
            (status, &all["workloads"][0]["type"]),
            (200, &json!("Generic"))
        );
        let (status, _) = t.get(&format!("/api/v1/workloads/trainings/{id}")).await?;
        assert_eq!(status, 404, "a generic job is not a training");
        let (status, _) = t.delete(&format!("{GENERIC}/{id}")).await?;
        assert_eq!(status, 202);
        t.wait_gone(GENERIC, &id).await
    }
    .await;
    t.cleanup().await;
    result
}

/// A success rule decides as soon as its replicas succeeded; with clean-up None (the default)
/// the workers keep running. Clean-up All removes the Job and every pod once the finish is
/// recorded, and the workload keeps its outcome.
pub async fn a_generic_jobs_success_rule_and_clean_up_none_and_all(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let rules = json!({ "successRules": [{ "ps": [0] }] });
        let id = id_of(&t.submit(GENERIC, &ps_and_workers("keep", rules)).await?)?;
        t.wait_running_gang(&id).await?;
        t.finish_pod("keep-ps-0", "Succeeded").await?;
        let done = t.wait_phase(GENERIC, &id, "Completed").await?;
        assert_eq!(
            done["phaseMessage"], "success rule 1 holds: ps 0 succeeded",
            "{done}"
        );
        let pods = t.pod_phases(&id).await?;
        assert_eq!(
            pods,
            [
                ("keep-ps-0".into(), "Succeeded".into(), 0),
                ("keep-worker-0".into(), "Running".into(), 0),
                ("keep-worker-1".into(), "Running".into(), 0),
            ],
            "clean-up None keeps every pod"
        );
        let job = t.job_of(&id).await?;
        assert_eq!(
            job["metadata"]["annotations"]["tephra.dev/verdict"], "Succeeded",
            "{job}"
        );
        t.delete(&format!("{GENERIC}/{id}")).await?;
        t.wait_gone(GENERIC, &id).await?;

        let all = json!({ "cleanUpPolicy": "All" });
        let id = id_of(&t.submit(GENERIC, &ps_and_workers("gone", all)).await?)?;
        t.wait_running_gang(&id).await?;
        t.finish_pods(&id, None, "Succeeded").await?;
        t.wait_phase(GENERIC, &id, "Completed").await?;
        tephra_tests::wait_for("the Job and its pods to go", crate::api::WAIT, || async {
            let jobs = t.jobs_of(&id).await.ok()?;
            let pods = t.pods_of(&id).await.ok()?;
            (jobs.is_empty() && pods.is_empty()).then_some(())
        })
        .await?;
        let (_, after) = t.get(&format!("{GENERIC}/{id}")).await?;
        assert_eq!(after["actualPhase"], "Completed", "{after}");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// A replica type restarting OnFailure with a limit: the kubelet restarts its containers in
/// place, Volcano counts the type's restarts against the task's maxRetry, and once they are
/// spent the replicas count as failed. Without failure rules, that fails the job.
pub async fn a_generic_jobs_restart_limit_counts_the_types_restarts(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = ps_and_workers("flaky", json!({}));
        body["spec"]["replicaSpecs"][1]["restartPolicy"] =
            json!({ "policy": "OnFailure", "limit": 3 });
        let id = id_of(&t.submit(GENERIC, &body).await?)?;
        t.wait_running_gang(&id).await?;
        let job = t.job_of(&id).await?;
        let worker = &job["spec"]["tasks"][1];
        assert_eq!(
            (
                &worker["maxRetry"],
                &worker["template"]["spec"]["restartPolicy"]
            ),
            (&json!(3), &json!("OnFailure")),
            "{worker}"
        );
        assert_eq!(
            job["spec"]["tasks"][0]["template"]["spec"]["restartPolicy"], "Never",
            "a type without restarts never restarts in place"
        );
        t.finish_pod("flaky-worker-1", "Failed").await?;
        // It crash-loops: restarts climb while the pod stays Running, until the type's three
        // restarts are spent.
        let failed = t.wait_phase(GENERIC, &id, "Failed").await?;
        assert!(
            failed["phaseMessage"]
                .as_str()
                .is_some_and(|m| m.starts_with("worker 1 failed")),
            "{failed}"
        );
        let pods = t.pod_phases(&id).await?;
        let flaky = pods
            .iter()
            .find(|p| p.0 == "flaky-worker-1")
            .context("the restarting worker")?;
        ensure!(
            flaky.1 == "Running" && flaky.2 >= 3,
            "the worker restarted in place: {pods:?}"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// Pause: the job is stored suspended and nothing reaches the cluster until it is resumed, then
/// its resumeSpecs replace the commands. Debug: every replica runs its override or `sleep inf`.
pub async fn a_generic_jobs_pause_and_debug_run_modes(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let pause = json!({ "runMode": { "pause": { "enabled": true, "resumeSpecs": [
            { "type": "worker", "command": "python worker.py --resume", "args": "--from ckpt" }] } } });
        let id = id_of(&t.submit(GENERIC, &ps_and_workers("paused", pause)).await?)?;
        let stopped = t.wait_phase(GENERIC, &id, "Stopped").await?;
        assert_eq!(stopped["desiredPhase"], "Stopped", "{stopped}");
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        ensure!(t.jobs_of(&id).await?.is_empty(), "a paused job has no Job");
        let (status, _) = t.post(&format!("{GENERIC}/{id}/resume"), &json!({})).await?;
        assert_eq!(status, 202);
        t.wait_running_gang(&id).await?;
        let commands = |pod: &Pod| {
            let c = &pod.spec.as_ref().expect("a spec").containers[0];
            (c.command.clone(), c.args.clone())
        };
        for pod in t.pods_of(&id).await? {
            let (command, args) = commands(&pod);
            let name = pod.metadata.name.clone().unwrap_or_default();
            if name.contains("-worker-") {
                assert_eq!(
                    (command, args),
                    (
                        Some(vec!["python".into(), "worker.py".into(), "--resume".into()]),
                        Some(vec!["--from".into(), "ckpt".into()])
                    ),
                    "{name} runs its resume spec"
                );
            } else {
                assert_eq!(command, Some(vec!["python".into(), "ps.py".into()]), "{name}");
            }
        }
        t.delete(&format!("{GENERIC}/{id}")).await?;
        t.wait_gone(GENERIC, &id).await?;

        let debug = json!({ "runMode": { "debug": { "enabled": true, "replicaSpecs": [
            { "type": "ps", "command": "sleep 600" }] } } });
        let id = id_of(&t.submit(GENERIC, &ps_and_workers("debug", debug)).await?)?;
        t.wait_running_gang(&id).await?;
        let mut seen: Vec<(String, Option<Vec<String>>)> = t
            .pods_of(&id)
            .await?
            .iter()
            .map(|p| (p.metadata.name.clone().unwrap_or_default(), commands(p).0))
            .collect();
        seen.sort();
        let words = |w: &[&str]| Some(w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            seen,
            [
                ("debug-ps-0".into(), words(&["sleep", "600"])),
                ("debug-worker-0".into(), words(&["sleep", "inf"])),
                ("debug-worker-1".into(), words(&["sleep", "inf"])),
            ]
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
