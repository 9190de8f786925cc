//! Why a training failed, on the testbed: a container that exits with an error code, one that
//! keeps failing under OnFailure (the kubelet restarts it in place), and one the kernel killed at
//! its memory limit (OOMKilled), and an image under a registry no cluster can reach. The reason
//! names the pod, the container, the code and what it usually means; the fix opens the form with
//! a higher memory limit, or with the image to correct named. And Secrets a training names that
//! its namespace lacks, named until they exist.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

/// How the testbed ends a container: its exit code and the reason the kubelet reports.
#[derive(Clone, Copy)]
struct Exit<'a> {
    code: &'a str,
    reason: &'a str,
}

const fn error(code: &str) -> Exit<'_> {
    Exit {
        code,
        reason: "Error",
    }
}

/// Tells the testbed to end every pod of workload `id` with `exit` after `after` (Tephra
/// reserves these annotation keys in requests, so the test puts them on the pods).
async fn fail_pods(t: &Tephra, id: &str, exit: Exit<'_>, after: &str) -> anyhow::Result<()> {
    let patch = json!({ "metadata": { "annotations": {
        "testbed.tephra.dev/outcome": "Failed",
        "testbed.tephra.dev/exit-code": exit.code,
        "testbed.tephra.dev/reason": exit.reason,
        "testbed.tephra.dev/run-duration": after,
    } } });
    for pod in t.pods_of(id).await? {
        let (Some(name), Some(namespace)) = (pod.metadata.name, pod.metadata.namespace) else {
            continue;
        };
        // A pod going away may refuse the patch; the next poll patches its successor.
        let _ = Api::<Pod>::namespaced(t.kube.clone(), &namespace)
            .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await;
    }
    Ok(())
}

/// Fails the training's pods (each retry's too) until its answer satisfies `accept`; returns it.
async fn failing_until(
    t: &Tephra,
    id: &str,
    exit: Exit<'_>,
    what: &str,
    accept: impl Fn(&Value) -> bool,
) -> anyhow::Result<Value> {
    tephra_tests::wait_for(what, Duration::from_secs(90), || async {
        fail_pods(t, id, exit, "1s").await.ok()?;
        let (_, body) = t.get(&format!("{TRAININGS}/{id}")).await.ok()?;
        accept(&body).then_some(body)
    })
    .await
}

fn reason(body: &Value) -> &str {
    body["phaseMessage"].as_str().unwrap_or_default()
}

pub async fn a_failed_training_says_why_in_one_line(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("no-command", 0);
        body["spec"]["backoffLimit"] = json!(1);
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let said = failing_until(&t, &id, error("127"), "the exit code's meaning", |b| {
            reason(b).contains("exited with code 127 (the command was not found in the image)")
        })
        .await?;
        ensure!(
            reason(&said).starts_with("container ")
                && reason(&said).contains(" of pod no-command-"),
            "names the container and the pod: {said}"
        );
        // Once the Job has failed for good, the reason still says why.
        let failed = failing_until(&t, &id, error("127"), "the training to fail", |b| {
            b["actualPhase"] == "Failed"
        })
        .await?;
        ensure!(reason(&failed).contains("exited with code 127"), "{failed}");

        let mut looping = training("looping", 0);
        looping["spec"]["restartPolicy"] = json!("OnFailure");
        let id = id_of(&t.submit(TRAININGS, &looping).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        failing_until(&t, &id, error("1"), "the crash loop", |b| {
            reason(b).contains(" keeps failing: restarted ")
                && reason(b).contains("it last exited with code 1 (a general error")
        })
        .await?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// A container the kernel killed at its 4 GiB limit: the reason says so with a limit half as
/// large again, and the page's "Edit and resubmit" opens the form with it.
pub async fn a_training_killed_for_memory_opens_the_form_with_more(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("hungry", 0);
        body["spec"]["compute"]["cpuMemoryLimit"] = json!("4Gi");
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let killed = Exit {
            code: "137",
            reason: "OOMKilled",
        };
        let said = failing_until(&t, &id, killed, "the memory diagnosis", |b| {
            reason(b)
                .contains("ran out of memory and was killed (OOMKilled) at its limit of 4096 MiB")
        })
        .await?;
        ensure!(
            reason(&said).contains("give it more, e.g. 6144 MiB (compute.cpuMemoryLimit)"),
            "{said}"
        );
        let fix = said["status"]["fix"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        ensure!(
            fix.starts_with("memory ") && fix.ends_with(" 6144"),
            "the fix: {said}"
        );
        let page = t.page(&format!("/trainings/{id}")).await?;
        let href = format!(
            "/trainings/new?from={id}&amp;fix={}",
            fix.replace(' ', "%20")
        );
        ensure!(
            page.contains("Edit and resubmit") && page.contains(&href),
            "the page offers the fix: {href}"
        );
        let form = t
            .page(&format!(
                "/trainings/new?from={id}&fix={}",
                fix.replace(' ', "%20")
            ))
            .await?;
        ensure!(
            form.contains("6144Mi") && form.contains("raised to 6144Mi"),
            "the form opens with the higher limit"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// The "Edit and resubmit" link on training `id`'s page, as the browser follows it.
fn fix_link(page: &str, id: &str) -> anyhow::Result<String> {
    let start = format!("/trainings/new?from={id}&amp;fix=");
    let at = page.find(&start).context("the page offers the fix")?;
    let link = &page[at..];
    let end = link.find('"').context("the link ends")?;
    Ok(link[..end].replace("&amp;", "&"))
}

/// An image under `registry.invalid` (a name that never resolves, so no kubelet can pull it): the
/// pod never starts, the reason names the image, the container and the kubelet's message, and
/// "Edit and resubmit" opens the form with the image to correct named.
pub async fn an_image_that_cannot_be_pulled_says_so_and_offers_the_fix(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let image = "registry.invalid/acme/train:v3";
        let mut body = training("unpullable", 0);
        body["spec"]["image"] = json!(image);
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        let said = t
            .wait_until(TRAININGS, &id, "the pull diagnosis", |b| {
                reason(b).contains(&format!("cannot pull image {image:?} for container "))
            })
            .await?;
        ensure!(
            reason(&said).contains("no such host") && reason(&said).contains(" of pod unpullable-"),
            "the kubelet's message and the pod: {said}"
        );
        ensure!(
            said["status"]["fix"] == format!("image {image}"),
            "the fix: {said}"
        );
        // A container that never started has no log to keep (the testbed's kubelet answers
        // "is waiting to start", as a kubelet does); the keeper reads within a second or two.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let (status, kept) = t.get(&format!("/api/v1/workloads/{id}/kept-logs")).await?;
        ensure!(
            status == 200 && kept["logs"].as_array().is_some_and(Vec::is_empty),
            "{status} {kept}"
        );
        let page = t.page(&format!("/trainings/{id}")).await?;
        ensure!(
            page.contains("Edit and resubmit"),
            "the page offers the fix"
        );
        let form = t.page(&fix_link(&page, &id)?).await?;
        ensure!(
            form.contains(&format!("the cluster could not pull &quot;{image}&quot;"))
                || form.contains(&format!("the cluster could not pull \"{image}\"")),
            "the form names the image to correct"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// A training that names Secrets the project's namespace lacks: a secret volume and a variable
/// taken from a Secret's key. As on any cluster, its pod cannot mount the volume, then cannot make
/// its container; the reason names each Secret in turn, and once both exist the training starts
/// with nothing said against it.
pub async fn a_missing_secret_is_named_until_it_exists(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("secrets", 0);
        body["spec"]["storage"] =
            json!({ "secretVolume": [{ "secret": "db-password", "mountPath": "/secrets/db" }] });
        body["spec"]["environmentVariables"] =
            json!([{ "name": "WANDB_API_KEY", "secret": { "name": "wandb", "key": "token" } }]);
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        let said = t
            .wait_until(TRAININGS, &id, "the volume's missing Secret", |b| {
                reason(b).contains("cannot mount a volume")
            })
            .await?;
        ensure!(
            reason(&said).contains("secret \"db-password\" not found"),
            "the Secret named: {said}"
        );
        let page = t.page(&format!("/trainings/{id}")).await?;
        ensure!(
            page.contains("secret &quot;db-password&quot; not found")
                || page.contains("secret \"db-password\" not found"),
            "the page says why"
        );
        let secrets: Api<Secret> = Api::namespaced(t.kube.clone(), &t.namespace());
        secrets
            .create(
                &PostParams::default(),
                &crate::storage::secret("db-password", [("user", "ml"), ("password", "pw")]),
            )
            .await?;
        // The volume mounts; the variable's Secret is still missing, and the container says so.
        t.wait_until(TRAININGS, &id, "the variable's missing Secret", |b| {
            reason(b).contains("cannot start: secret \"wandb\" not found")
        })
        .await?;
        secrets
            .create(
                &PostParams::default(),
                &crate::storage::secret("wandb", [("token", "w4ndb"), ("entity", "acme")]),
            )
            .await?;
        let running = t.wait_phase(TRAININGS, &id, "Running").await?;
        ensure!(
            !reason(&running).contains("secret"),
            "nothing is said against it once it runs: {running}"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
