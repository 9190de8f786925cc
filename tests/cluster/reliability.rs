//! Issue 12's defects, each reproduced against the testbed: a finished training that ran again,
//! a Job that outlived its deleted workload, racing actions that undid a delete, a Volcano stop
//! that could not be resumed, a taken name retried forever, and Jobs labelled by hand taken for
//! Tephra's. Each test failed before its fix.

use crate::api::{TRAININGS, Tephra, WAIT, id_of, training};
use anyhow::{Context, ensure};
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::{Testbed, resource};

/// Submits a training and waits until it runs; its id.
async fn running(t: &Tephra, body: &Value) -> anyhow::Result<String> {
    let id = id_of(&t.submit(TRAININGS, body).await?)?;
    t.wait_phase(TRAININGS, &id, "Running").await?;
    Ok(id)
}

fn path(id: &str) -> String {
    format!("{TRAININGS}/{id}")
}

/// A Volcano Job for `name` in the project namespace, not made by Tephra, with `labels`.
fn foreign_job(t: &Tephra, name: &str, labels: Value) -> anyhow::Result<DynamicObject> {
    Ok(serde_json::from_value(json!({
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": { "name": name, "namespace": t.namespace(), "labels": labels },
        "spec": { "schedulerName": "volcano", "queue": t.namespace(), "minAvailable": 1,
                  "tasks": [{ "name": "w", "replicas": 1, "template": { "spec": {
                      "restartPolicy": "Never",
                      "containers": [{ "name": "w", "image": "busybox" }] } } }] }
    }))?)
}

pub async fn a_finished_training_stays_finished_when_its_job_is_collected(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("short-lived", 0);
        body["spec"]["autoDeletionTimeAfterCompletionSeconds"] = json!(3);
        let id = running(&t, &body).await?;
        t.finish_pods(&id, None, "Succeeded").await?;
        let completed = t.wait_phase(TRAININGS, &id, "Completed").await?;
        let pods = completed["status"]["pods"].clone();
        ensure!(
            pods.as_array().is_some_and(|p| !p.is_empty()),
            "{completed}"
        );
        tephra_tests::wait_for("the Job to be collected", WAIT, || async {
            t.jobs_of(&id).await.ok()?.is_empty().then_some(())
        })
        .await?;
        // Several resyncs (2 s each) later: still finished, never created again.
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let (_, now) = t.get(&path(&id)).await?;
            ensure!(
                now["actualPhase"] == "Completed",
                "came back to life: {now}"
            );
            ensure!(
                now["status"]["pods"] == pods,
                "the last pods are kept: {now}"
            );
            ensure!(t.jobs_of(&id).await?.is_empty(), "a Job was created again");
        }
        let (_, history) = t.get(&format!("/api/v1/workloads/{id}/history")).await?;
        let phases: Vec<&str> = history
            .as_array()
            .context("history is a list")?
            .iter()
            .filter(|e| e["action"] == "phase")
            .filter_map(|e| e["detail"]["to"].as_str())
            .collect();
        ensure!(
            phases.last() == Some(&"Completed") && !phases.contains(&"Resuming"),
            "{phases:?}"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn a_delete_right_after_submit_never_leaves_a_job_behind(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        // Warm the project (namespace and queue) so Jobs are created within milliseconds.
        running(&t, &training("warm", 0)).await?;
        let mut ids = Vec::new();
        for i in 0..25 {
            let id = id_of(
                &t.submit(TRAININGS, &training(&format!("quick-{i}"), 0))
                    .await?,
            )?;
            // A few milliseconds: the reconciler has created the Job, the watch may not have
            // seen it yet.
            tokio::time::sleep(Duration::from_millis(i % 5 * 3)).await;
            let (status, answer) = t.delete(&path(&id)).await?;
            ensure!(status == 202, "DELETE answered {status}: {answer}");
            ids.push(id);
        }
        for id in &ids {
            t.wait_gone(TRAININGS, id).await?;
        }
        // Gone from the API, and nothing of any of them in the cluster, for several passes.
        for _ in 0..3 {
            for id in &ids {
                ensure!(t.jobs_of(id).await?.is_empty(), "workload {id} left a Job");
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn a_resume_racing_a_delete_never_undoes_it(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut ids = Vec::new();
        for i in 0..8 {
            let id = id_of(
                &t.submit(TRAININGS, &training(&format!("race-{i}"), 0))
                    .await?,
            )?;
            t.wait_phase(TRAININGS, &id, "Running").await?;
            let (status, _) = t
                .post(&format!("{}/suspend", path(&id)), &json!({}))
                .await?;
            ensure!(status == 202);
            t.wait_phase(TRAININGS, &id, "Stopped").await?;
            ids.push(id);
        }
        let mut losers = 0;
        for id in &ids {
            let resume_path = format!("{}/resume", path(id));
            let delete_path = path(id);
            let empty = json!({});
            let (resume, delete) =
                tokio::join!(t.post(&resume_path, &empty), t.delete(&delete_path));
            let (resume, resume_body) = resume?;
            let (delete, delete_body) = delete?;
            ensure!(
                [202, 409].contains(&resume) && [202, 409].contains(&delete),
                "resume {resume} {resume_body}, delete {delete} {delete_body}"
            );
            for (status, body) in [(resume, &resume_body), (delete, &delete_body)] {
                if status == 409 {
                    losers += 1;
                    ensure!(
                        body["desiredPhase"].is_string(),
                        "the loser learns the phase: {body}"
                    );
                }
            }
            if delete == 409 {
                // The resume won and the delete lost: delete again, as a user would.
                let (status, body) = t.delete(&path(id)).await?;
                ensure!(status == 202, "{body}");
            }
        }
        // Every delete that answered 202 holds: each workload goes, with its Job.
        for id in &ids {
            t.wait_gone(TRAININGS, id).await?;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_secs(4)).await;
        for id in &ids {
            ensure!(t.jobs_of(id).await?.is_empty(), "workload {id} left a Job");
            let (status, _) = t.get(&path(id)).await?;
            ensure!(status == 404, "a deleted workload came back");
        }
        eprintln!("{losers} of {} racing actions lost with 409", ids.len() * 2);
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn a_job_volcano_stopped_is_suspended_and_can_be_resumed(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("preempted", 0);
        body["spec"]["terminateAfterPreemption"] = json!(true);
        let id = running(&t, &body).await?;
        // What Volcano does on preemption with terminateAfterPreemption (and on `vcctl job
        // suspend`): abort the Job, through a bus Command.
        let job = t.jobs_of(&id).await?.pop().context("a Job")?;
        let commands: Api<DynamicObject> = Api::namespaced_with(
            t.kube.clone(),
            &t.namespace(),
            &resource("bus.volcano.sh", "v1alpha1", "Command", "commands"),
        );
        let command: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
            "metadata": { "generateName": "abort-", "namespace": t.namespace() },
            "action": "AbortJob",
            "target": { "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                        "name": job.metadata.name, "uid": job.metadata.uid }
        }))?;
        commands.create(&PostParams::default(), &command).await?;
        let stopped = t
            .wait_until(TRAININGS, &id, "the workload to be suspended", |b| {
                b["desiredPhase"] == "Stopped" && b["actualPhase"] == "Stopped"
            })
            .await?;
        let (status, answer) = t.post(&format!("{}/resume", path(&id)), &json!({})).await?;
        ensure!(
            status == 202,
            "resume of {stopped} answered {status}: {answer}"
        );
        t.wait_phase(TRAININGS, &id, "Running").await?;
        ensure!(t.jobs_of(&id).await?.len() == 1);
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn a_taken_name_backs_off_and_is_retried_once_freed(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let warm = running(&t, &training("warm", 0)).await?;
        // Someone else's Job holds the name, with Tephra's labels copied onto it by hand.
        let labels = json!({ "app.kubernetes.io/managed-by": "tephra",
                             "tephra.dev/workload-id": warm });
        t.jobs()
            .create(&PostParams::default(), &foreign_job(&t, "taken", labels)?)
            .await?;
        let id = id_of(&t.submit(TRAININGS, &training("taken", 0)).await?)?;
        let failing = t
            .wait_until(TRAININGS, &id, "the taken name to be shown", |b| {
                b["status"]["reconcileError"]["permanent"] == true
            })
            .await?;
        ensure!(
            failing["phaseMessage"]
                .as_str()
                .is_some_and(|m| m.contains("is not this workload's")),
            "{failing}"
        );
        // Resyncs run every 2 s; a permanent error waits 10 s, then 20 s: not retried each pass.
        tokio::time::sleep(Duration::from_secs(6)).await;
        let (_, later) = t.get(&path(&id)).await?;
        ensure!(
            later["status"]["reconcileError"]["attempts"] == 1,
            "{later}"
        );
        // The copied labels made it neither the warm workload's Job nor an adoptable one.
        let (_, warm_now) = t.get(&path(&warm)).await?;
        ensure!(
            warm_now["status"]["pods"].as_array().map(Vec::len) == Some(1),
            "{warm_now}"
        );
        let (_, cluster) = t.get("/api/v1/cluster").await?;
        ensure!(
            cluster["orphans"].as_array().is_some_and(|o| o
                .iter()
                .any(|o| o["name"] == "taken" && o["signed"] == false)),
            "{cluster}"
        );
        // Deleting the warm workload leaves the look-alike alone.
        t.delete(&path(&warm)).await?;
        t.wait_gone(TRAININGS, &warm).await?;
        t.jobs()
            .get("taken")
            .await
            .context("the foreign Job was left alone")?;
        // Freeing the name retries at once (the cause changed), not after the backoff.
        t.jobs()
            .delete("taken", &DeleteParams::foreground())
            .await?;
        let running = t.wait_phase(TRAININGS, &id, "Running").await?;
        ensure!(running["status"]["reconcileError"].is_null(), "{running}");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn a_job_changed_by_hand_is_drift_and_one_deleted_by_hand_comes_back(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let id = running(&t, &training("hands-off", 0)).await?;
        let job = t.jobs_of(&id).await?.pop().context("a Job")?;
        let name = job.metadata.name.clone().context("a name")?;
        let patch = json!({ "spec": { "maxRetry": 7 } });
        t.jobs()
            .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        t.wait_until(TRAININGS, &id, "the drift to be reported", |b| {
            b["status"]["drift"]
                .as_str()
                .is_some_and(|d| d.contains("changed outside Tephra"))
        })
        .await?;
        t.jobs().delete(&name, &DeleteParams::foreground()).await?;
        let again = tephra_tests::wait_for("a new Job", WAIT, || async {
            let jobs = t.jobs_of(&id).await.ok()?;
            let new = jobs
                .into_iter()
                .find(|j| j.metadata.uid != job.metadata.uid)?;
            Some(new)
        })
        .await?;
        ensure!(again.metadata.generation == Some(1));
        let running = t.wait_phase(TRAININGS, &id, "Running").await?;
        ensure!(
            running["status"]["drift"].is_null(),
            "the new Job is as rendered: {running}"
        );
        let (_, history) = t.get(&format!("/api/v1/workloads/{id}/history")).await?;
        ensure!(
            history.to_string().contains("deleted outside Tephra"),
            "{history}"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// The reconciler holds a stored request to today's policies before it creates a Job again: a
/// training admitted with 1 GPU whose project then allows none is not re-created when its Job
/// goes, and says why; nothing is created in the cluster until the policy allows it again.
pub async fn a_job_is_not_recreated_once_the_policy_forbids_its_request(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("held", 0);
        body["spec"]["compute"] = json!({ "gpuDevicesRequest": 1 });
        let id = running(&t, &body).await?;
        let job = t.jobs_of(&id).await?.pop().context("a Job")?;
        let name = job.metadata.name.clone().context("a name")?;
        let none = json!({ "meta": { "scope": "project", "projectId": "default" },
            "policy": { "rules": { "compute": { "gpuDevicesRequest": { "max": 0 } } } } });
        let (status, answer) = t.put("/api/v2/policy/trainings", &none).await?;
        ensure!(status == 200, "{answer}");
        t.jobs().delete(&name, &DeleteParams::foreground()).await?;
        let held = t
            .wait_until(TRAININGS, &id, "the refusal as the reason", |b| {
                b["status"]["reconcileError"]["permanent"] == true
                    && b["phaseMessage"]
                        .as_str()
                        .is_some_and(|e| e.contains("not allowed by today's policies"))
            })
            .await?;
        let reason = held["phaseMessage"].as_str().unwrap_or_default();
        ensure!(
            reason.contains("spec.compute.gpuDevicesRequest: must be at most 0"),
            "{reason}"
        );
        ensure!(t.jobs_of(&id).await?.is_empty(), "no Job was created");
        // The policy allows it again: the next try creates the Job.
        let (status, _) = t
            .delete("/api/v2/policy/trainings?scope=project&projectId=default")
            .await?;
        ensure!(status == 204, "the project policy is removed");
        tephra_tests::wait_for("the Job again", Duration::from_secs(330), || async {
            t.jobs_of(&id).await.ok().filter(|jobs| !jobs.is_empty())
        })
        .await?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
