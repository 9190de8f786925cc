//! What a data scientist does in the dashboard, in headless Chromium against the release server
//! and the testbed: fill the form for a distributed PyTorch training, preview its YAML, submit,
//! watch it run without reloading, add a worker with Edit, then suspend, resume and delete it with
//! the buttons. Every step leaves a screenshot.

use crate::api::{Tephra, id_of, pytorch};
use anyhow::{Context, ensure};
use fantoccini::Locator;
use kube::api::ListParams;
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::testbed::Testbed;

const WAIT: Duration = Duration::from_secs(90);
const DISTRIBUTED: &str = "/api/v1/workloads/distributed";

async fn click_text(browser: &Browser, tag: &str, text: &str) -> anyhow::Result<()> {
    browser.settled().await?;
    browser
        .client
        .find(Locator::XPath(&format!("//{tag}[contains(., '{text}')]")))
        .await
        .with_context(|| format!("no {tag} saying {text:?}"))?
        .click()
        .await?;
    Ok(())
}

/// Clicks an action button, confirms it in the dialog, and waits for the success toast.
async fn act(browser: &Browser, verb: &str) -> anyhow::Result<()> {
    browser
        .wait_for(&format!("[data-action={verb}]:not([disabled])"), WAIT)
        .await?;
    browser.click(&format!("[data-action={verb}]")).await?;
    browser
        .wait_for(&format!("[data-confirm={verb}]"), WAIT)
        .await?;
    browser
        .screenshot(&format!("dashboard-confirm-{verb}"))
        .await?;
    browser.click(&format!("[data-confirm={verb}]")).await?;
    browser
        .wait_text("[data-testid=toasts]", &format!("asked to {verb}"), WAIT)
        .await?;
    Ok(())
}

pub async fn a_pytorch_training_from_the_form_runs_live_and_is_managed_with_buttons(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    // The NFS export the form mounts, offered as a platform team would offer it.
    let profile = "nfsExports:\n  - server: nfs.example.com\n    pathPrefix: /exports/\n";
    let (tephra, _profile) = Tephra::start_with_profile(&tb, &ns, profile).await?;
    let browser = Browser::start().await?;
    let base = tephra.server.base_url();
    browser.open(&format!("{base}/trainings/new")).await?;

    // General
    browser.fill("f-name", "pt-dashboard").await?;
    browser
        .fill("f-spec-image", "pytorch/pytorch:2.4.0")
        .await?;
    browser.fill("f-spec-command", "torchrun train.py").await?;
    // Compute: one whole GPU per pod.
    browser.click("#gpu-mode-devices").await?;
    browser
        .fill("f-spec-compute-gpuDevicesRequest", "1")
        .await?;
    browser.fill("f-spec-compute-cpuCoreRequest", "1").await?;
    browser
        .fill("f-spec-compute-cpuMemoryRequest", "2Gi")
        .await?;
    // Storage: an NFS export.
    browser.select("f-new-volume-kind", "nfs").await?;
    click_text(&browser, "button", "Add a volume").await?;
    browser
        .fill("f-spec-storage-nfs-0--server", "nfs.example.com")
        .await?;
    browser
        .fill("f-spec-storage-nfs-0--path", "/exports/datasets")
        .await?;
    browser
        .fill("f-spec-storage-nfs-0--mountPath", "/data")
        .await?;
    // Security
    browser
        .select("f-spec-security-uidGidSource", "custom")
        .await?;
    browser.fill("f-spec-security-runAsUid", "1000").await?;
    browser.fill("f-spec-security-runAsGid", "1000").await?;
    // "Run as non-root" comes checked and locked: node protection's default.
    browser
        .select("f-spec-security-allowPrivilegeEscalation", "false")
        .await?;
    // Scheduling: tolerate the GPU nodes' taint.
    click_text(&browser, "button", "Add a toleration").await?;
    browser
        .fill("f-spec-tolerations-0--key", "nvidia.com/gpu")
        .await?;
    browser
        .select("f-spec-tolerations-0--operator", "Exists")
        .await?;
    browser
        .select("f-spec-tolerations-0--effect", "NoSchedule")
        .await?;
    // Distributed: PyTorch, two workers.
    browser.click("#f-distributed").await?;
    browser
        .select("f-spec-distributedFramework", "PyTorch")
        .await?;
    browser.fill("f-spec-numWorkers", "2").await?;
    browser.screenshot("dashboard-1-form").await?;

    browser.click("[data-testid=preview-toggle]").await?;
    let yaml = browser
        .wait_text(
            "[data-testid=yaml-preview]",
            "batch.volcano.sh/v1alpha1",
            WAIT,
        )
        .await?;
    for expected in [
        "kind: Job",
        "name: pt-dashboard",
        "server: nfs.example.com",
        "key: nvidia.com/gpu",
        "runAsNonRoot: true",
        "name: worker",
        "replicas: 2",
        "pytorch",
    ] {
        ensure!(
            yaml.contains(expected),
            "the preview shows {expected:?}:\n{yaml}"
        );
    }
    browser.screenshot("dashboard-2-preview").await?;

    browser.click("[data-testid=submit]").await?;
    browser
        .wait_text("[data-testid=toasts]", "submitted pt-dashboard", WAIT)
        .await?;
    browser
        .wait_for("[data-testid=training-detail]", WAIT)
        .await?;
    let url = browser.client.current_url().await?;
    let id = url
        .path()
        .strip_prefix("/trainings/")
        .context("the submit opens the new training")?
        .to_owned();
    browser.screenshot("dashboard-3-submitted").await?;

    // To the list: once there, the row must turn Running with no reload.
    browser
        .client
        .find(Locator::LinkText("Trainings"))
        .await?
        .click()
        .await?;
    let row = format!("tr[data-workload-id='{id}']");
    browser.wait_for(&row, WAIT).await?;
    browser.wait_for("body[data-hydrated=true]", WAIT).await?;
    browser.mark_page().await?;
    // Three GPUs on a testbed the other cluster tests share: a gang may wait for another test's
    // pods to go, so this waits longer, and says why the row waited if it never ran.
    if let Err(e) = browser
        .wait_for(&format!("{row}[data-phase=Running]"), 2 * WAIT)
        .await
    {
        let shown = browser
            .text_of(&row, Duration::from_secs(5))
            .await
            .unwrap_or_default();
        // Whether the store or the page is behind tells the controller's fault from the stream's.
        let stored = tephra
            .get(&format!("{DISTRIBUTED}/{id}"))
            .await
            .map(|(_, body)| body.to_string())
            .unwrap_or_default();
        return Err(e.context(format!(
            "the row never turned Running; it shows: {shown}; the API says: {stored}"
        )));
    }
    browser
        .wait_text(&format!("{row} [data-testid=tasks]"), "3/3", WAIT)
        .await?;
    ensure!(!browser.reloaded().await?, "the list reloaded the page");
    browser.screenshot("dashboard-4-running-in-list").await?;

    // A training submitted elsewhere (the API) appears in the open list and one deleted goes:
    // the page reads itself again and takes the server's fresh list, still without reloading.
    let (status, other) = tephra
        .post(
            "/api/v1/workloads/trainings",
            &crate::api::training("pt-dashboard-other", 0),
        )
        .await?;
    ensure!(status == 202, "the other training is accepted: {other}");
    let other = id_of(&other)?;
    let other_row = format!("#trainings-live tr[data-workload-id='{other}']");
    browser.wait_for(&other_row, WAIT).await?;
    tephra
        .delete(&format!("/api/v1/workloads/trainings/{other}"))
        .await?;
    browser.wait_gone(&other_row, WAIT).await?;
    ensure!(
        !browser.reloaded().await?,
        "the list reloaded the page to show a new or deleted training"
    );

    // The detail page: pods, tasks, the gang.
    browser
        .client
        .find(Locator::Css(&format!("{row} a")))
        .await?
        .click()
        .await?;
    browser
        .wait_for("[data-testid=training-detail][data-phase=Running]", WAIT)
        .await?;
    let pods = browser.text_of("[data-testid=pods-table]", WAIT).await?;
    ensure!(
        pods.matches("Running").count() >= 3,
        "three pods run:\n{pods}"
    );
    let yaml = browser.text_of("[data-testid=rendered-yaml]", WAIT).await?;
    ensure!(
        yaml.contains("minAvailable: 3"),
        "the gang of three:\n{yaml}"
    );
    browser.screenshot("dashboard-5-detail-running").await?;

    // Logs: the first pod's, followed live (the testbed writes a training step every second);
    // a pod's "Logs" link switches to that pod.
    let lines = browser
        .wait_text("[data-testid=log-lines]", "step 2 ", WAIT)
        .await?;
    ensure!(
        lines.starts_with("tephra-testbed: pod ") && lines.contains("step 1 "),
        "the first pod's log from its start:\n{lines}"
    );
    browser
        .click("[data-testid=pods-table] tr[data-pod=pt-dashboard-worker-1] a[href='#logs']")
        .await?;
    browser
        .wait_text(
            "[data-testid=log-lines]",
            "pt-dashboard-worker-1 container",
            WAIT,
        )
        .await?;
    browser
        .wait_text("[data-testid=logs] [role=status]", "Following", WAIT)
        .await?;
    browser.screenshot("dashboard-5a-logs").await?;

    // Edit: one more worker; the panel shows only what Volcano can change on a running Job.
    browser.mark_page().await?;
    browser.click("[data-action=edit]").await?;
    browser.wait_for("[data-testid=edit-panel]", WAIT).await?;
    let panel = browser.text_of("[data-testid=edit-panel]", WAIT).await?;
    ensure!(
        panel.contains("Workers") && panel.contains("Priority class") && !panel.contains("Image"),
        "the edit panel shows the editable fields only:\n{panel}"
    );
    browser.fill("edit-numWorkers", "3").await?;
    browser.screenshot("dashboard-5b-edit").await?;
    browser.click("[data-testid=edit-save]").await?;
    browser
        .wait_text(
            "[data-testid=toasts]",
            "saved the changes to pt-dashboard",
            WAIT,
        )
        .await?;
    tephra_tests::wait_for("the Job to have three workers", WAIT, || async {
        let job = tephra.jobs_of(&id).await.ok()?.pop()?;
        (job.data["spec"]["tasks"][1]["replicas"] == 3).then_some(())
    })
    .await?;
    let pods = browser
        .wait_text("[data-testid=pods-table]", "pt-dashboard-worker-2", WAIT)
        .await?;
    ensure!(
        pods.contains("worker-2"),
        "the new worker shows live:\n{pods}"
    );
    let tasks = browser
        .wait_text("[data-testid=tasks-table] tr[data-task=worker]", "3", WAIT)
        .await?;
    ensure!(
        !browser.reloaded().await?,
        "the training's page reloaded to show its new worker ({tasks})"
    );

    act(&browser, "suspend").await?;
    browser
        .wait_for("[data-testid=training-detail][data-phase=Stopped]", WAIT)
        .await?;
    browser
        .wait_for("[data-action=resume]:not([disabled])", WAIT)
        .await?;
    // The timeline is read again with the phase: the suspension and who asked for it.
    browser
        .wait_text("[data-testid=timeline]", "Stopped", WAIT)
        .await?;
    browser.screenshot("dashboard-6-suspended").await?;
    let jobs = tephra.jobs().list(&ListParams::default()).await?;
    ensure!(jobs.items.is_empty(), "suspend deleted the Job");

    act(&browser, "resume").await?;
    browser
        .wait_for("[data-testid=training-detail][data-phase=Running]", WAIT)
        .await?;
    browser.screenshot("dashboard-7-resumed").await?;

    act(&browser, "delete").await?;
    // Deleting returns to the list, where the training disappears once it is gone.
    browser
        .wait_for(
            "[data-testid=trainings-table], [data-testid=empty-state]",
            WAIT,
        )
        .await?;
    browser.screenshot("dashboard-8-deleted").await?;
    tephra.wait_gone(DISTRIBUTED, &id).await?;
    tephra_tests::wait_for("the row to leave the list", WAIT, || async {
        browser
            .client
            .find(Locator::Css(&row))
            .await
            .is_err()
            .then_some(())
    })
    .await?;
    let jobs = tephra.jobs().list(&ListParams::default()).await?;
    ensure!(jobs.items.is_empty(), "delete removed the Job");

    // A gang that cannot be placed: five pods of 5 GPUs fit the cluster's 32 together and each
    // fits a node, but only one fits on each of the four nodes. Its page says why, with the
    // queue and the gang. (A pod larger than every node is refused at submit instead.)
    let wide = tephra
        .submit(DISTRIBUTED, &pytorch("too-wide", 4, 5))
        .await?;
    browser
        .open(&format!("{base}/trainings/{}", id_of(&wide)?))
        .await?;
    let reason = browser
        .wait_text(
            "[data-testid=reason]",
            "cannot place the gang of 5 pod(s)",
            WAIT,
        )
        .await?;
    for expected in [
        "Why it is waiting",
        "Queue",
        "must start together",
        "Needs 25 GPU(s)",
        // Where its project and department stand, next to the scheduler's words.
        "Project \"default\": ",
        // What waits is not in use: the page counts it apart.
        "more asked by workloads waiting to start; quota none, limit none",
        "Department \"default\": ",
    ] {
        ensure!(
            reason.contains(expected),
            "the reason shows {expected:?}:\n{reason}"
        );
    }
    // When it can start: never as asked (five pods of 5 GPUs, one a node), with what would
    // make it start.
    let eta = browser
        .wait_text("[data-testid=eta]", "it can never start as asked", WAIT)
        .await?;
    ensure!(
        eta.contains("When it can start") && eta.contains("What would let it start:"),
        "the estimate says what would help:\n{eta}"
    );
    browser.screenshot("dashboard-9-pending-reason").await?;
    browser.close().await?;
    tephra.cleanup().await;
    Ok(())
}
