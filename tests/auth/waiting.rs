//! Tephra accepts work beyond a project's limit and lets it wait in the queue, and each waiting
//! workload is a Volcano Job in the cluster: a researcher tries to make that unbounded. Past the
//! cluster's `maxWaitingPerProject` a submit and a resume are refused naming the rule, and
//! nothing is stored or changed.

use super::{Browser, Setup, ada, user};
use anyhow::{Context, ensure};
use reqwest::Method;
use serde_json::{Value, json};

const MOST: usize = 3;

async fn send(
    setup: &Setup,
    http: &reqwest::Client,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> anyhow::Result<(u16, Value)> {
    let mut request = http
        .request(method, setup.tephra.url(path))
        .header("accept", "application/json");
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await?;
    let status = answer.status().as_u16();
    let text = answer.text().await?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

fn training(name: &str) -> Value {
    training_in("alpha", name)
}

fn training_in(project: &str, name: &str) -> Value {
    json!({"name": name, "projectId": project,
           "spec": {"image": "busybox", "compute": {"gpuDevicesRequest": 1}}})
}

/// The rule's refusal: a 400 naming `maxWaitingPerProject` on `projectId`.
fn names_the_rule(status: u16, answer: &Value) -> anyhow::Result<()> {
    ensure!(status == 400, "{status} {answer}");
    let detail = &answer["details"][0];
    ensure!(detail["field"] == "projectId", "{answer}");
    let message = detail["message"].as_str().unwrap_or_default();
    ensure!(
        message.contains("already has 3 workloads waiting to start")
            && message.contains("maxWaitingPerProject"),
        "{answer}"
    );
    Ok(())
}

/// A Tephra whose profile allows [`MOST`] waiting per project, with projects alpha and beta,
/// its administrator ada's client and alpha's researcher rae's.
async fn start() -> anyhow::Result<(Setup, reqwest::Client, reqwest::Client, tempfile::TempDir)> {
    let dir = tempfile::tempdir()?;
    let profile = dir.path().join("profile.json");
    std::fs::write(
        &profile,
        json!({ "maxWaitingPerProject": MOST }).to_string(),
    )?;
    let path = profile.to_str().context("temporary paths are UTF-8")?;
    let setup = Setup::start_for(&[ada(), user("rae", &[])], &["--cluster-profile", path]).await?;
    for name in ["alpha", "beta"] {
        setup
            .tephra
            .db
            .projects()
            .create(&server::db::projects::NewProject::named(name), None)
            .await?;
    }
    let admin = setup.sign_in("ada").await?.http;
    let rae = setup.sign_in("rae").await?.http;
    let rule = json!({"subjectType": "user", "subjectId": "rae@example.org", "roleId": 4,
                      "scopeType": "project", "scopeId": "alpha"});
    let path = "/api/v1/authorization/access-rules";
    let (status, _) = send(&setup, &admin, Method::POST, path, Some(rule)).await?;
    ensure!(status == 201, "{status}");
    Ok((setup, admin, rae, dir))
}

#[tokio::test]
async fn a_researcher_cannot_queue_without_end() -> anyhow::Result<()> {
    let (setup, _admin, rae, _dir) = start().await?;
    let db = &setup.tephra.db;
    let alpha = db.projects().by_name("alpha").await?;
    // No cluster runs here, so every accepted training stays waiting to start.
    let trainings = "/api/v1/workloads/trainings";
    let mut ids = Vec::new();
    for i in 0..MOST {
        let (status, created) = send(
            &setup,
            &rae,
            Method::POST,
            trainings,
            Some(training(&format!("t{i}"))),
        )
        .await?;
        ensure!(status == 202, "{status} {created}");
        ids.push(
            created["workloadId"]
                .as_str()
                .context("workloadId")?
                .to_owned(),
        );
    }
    let stored = db.projects().workload_count(alpha.id).await?;

    let (status, refused) = send(
        &setup,
        &rae,
        Method::POST,
        trainings,
        Some(training("one-more")),
    )
    .await?;
    names_the_rule(status, &refused)?;
    ensure!(
        db.projects().workload_count(alpha.id).await? == stored,
        "a refused one was stored"
    );
    let (status, fit) = send(
        &setup,
        &rae,
        Method::POST,
        &format!("{trainings}/fit"),
        Some(training("one-more")),
    )
    .await?;
    ensure!(
        status == 200 && fit["verdict"] == "refused",
        "{status} {fit}"
    );

    // Suspending one makes room for one; resuming the suspended one then finds none.
    let suspend = format!("{trainings}/{}/suspend", ids[0]);
    let (status, answer) = send(&setup, &rae, Method::POST, &suspend, None).await?;
    ensure!(status == 202, "{status} {answer}");
    let (status, created) = send(
        &setup,
        &rae,
        Method::POST,
        trainings,
        Some(training("in-its-place")),
    )
    .await?;
    ensure!(status == 202, "{status} {created}");
    let resume = format!("{trainings}/{}/resume", ids[0]);
    let (status, refused) = send(&setup, &rae, Method::POST, &resume, None).await?;
    names_the_rule(status, &refused)?;
    let id = ids[0].parse()?;
    let kept = db.workloads().get(id).await?;
    ensure!(
        kept.desired_phase == tephra_core::model::phase::Phase::Stopped,
        "the refused resume changed {:?}",
        kept.desired_phase
    );
    Ok(())
}

/// What is ahead of a researcher's waiting training is named only where the researcher may read
/// it: beta's trainings ahead of alpha's are counted, never named or linked.
#[tokio::test]
async fn a_researcher_sees_only_counts_of_other_projects_ahead() -> anyhow::Result<()> {
    let (setup, admin, rae, _dir) = start().await?;
    for (project, deserved) in [("alpha", 1), ("beta", 100)] {
        let body = json!({ "name": project, "resources": [
            { "nodePool": { "name": "default" }, "gpu": { "deserved": deserved } } ] });
        let path = format!("/api/v1/org-unit/projects/{project}");
        let (status, answer) = send(&setup, &admin, Method::PUT, &path, Some(body)).await?;
        ensure!(status == 200, "{status} {answer}");
    }
    let trainings = "/api/v1/workloads/trainings";
    let mut hidden = Vec::new();
    for name in ["beta-secret-1", "beta-secret-2"] {
        let (status, created) = send(
            &setup,
            &admin,
            Method::POST,
            trainings,
            Some(training_in("beta", name)),
        )
        .await?;
        ensure!(status == 202, "{status} {created}");
        hidden.push(
            created["workloadId"]
                .as_str()
                .context("workloadId")?
                .to_owned(),
        );
    }
    let mut mine = Vec::new();
    for name in ["a1", "a2"] {
        let (status, created) =
            send(&setup, &rae, Method::POST, trainings, Some(training(name))).await?;
        ensure!(status == 202, "{status} {created}");
        mine.push(
            created["workloadId"]
                .as_str()
                .context("workloadId")?
                .to_owned(),
        );
    }
    // Once alpha holds its one deserved GPU, beta (far below its 100) goes first: both of
    // beta's are ahead of a2.
    let (status, a2) = send(
        &setup,
        &rae,
        Method::GET,
        &format!("{trainings}/{}", mine[1]),
        None,
    )
    .await?;
    ensure!(
        status == 200 && a2["ahead"].as_u64() >= Some(2),
        "{status} {a2}"
    );
    let page = rae
        .get(setup.tephra.url(&format!("/trainings/{}", mine[1])))
        .send()
        .await?
        .text()
        .await?;
    ensure!(
        page.contains("Place in the queue"),
        "the page shows the place"
    );
    ensure!(
        page.contains("ahead of it in projects you cannot see"),
        "beta's are counted"
    );
    for secret in hidden
        .iter()
        .map(String::as_str)
        .chain(["beta-secret", "beta"])
    {
        ensure!(!page.contains(secret), "rae's page shows {secret:?}");
    }
    // Beta's own member (here the administrator) sees them named.
    let page = admin
        .get(setup.tephra.url(&format!("/trainings/{}", mine[1])))
        .send()
        .await?
        .text()
        .await?;
    ensure!(
        page.contains("beta-secret-1"),
        "the administrator sees beta's by name"
    );
    gpu_use_pages_follow_the_same_rule(&setup, &rae, &mine[1], &hidden[0]).await
}

/// The page of a training's GPU figures (which its own page reads again every 15 s) is read
/// with the reader's own rights: rae's own training shows its figures' place (no Prometheus
/// here, so why there are none), beta's shows nothing of beta's.
async fn gpu_use_pages_follow_the_same_rule(
    setup: &Setup,
    rae: &reqwest::Client,
    mine: &str,
    hidden: &str,
) -> anyhow::Result<()> {
    let page = |id: &str| {
        rae.get(setup.tephra.url(&format!("/trainings/{id}/gpu-use")))
            .send()
    };
    let own = page(mine).await?.text().await?;
    ensure!(
        own.contains("id=\"gpu-use-live\"") && own.contains("data-testid=\"gpu-use-unavailable\""),
        "rae's own training's GPU use: {own}"
    );
    let theirs = page(hidden).await?.text().await?;
    ensure!(
        theirs.contains("id=\"gpu-use-live\"") && !theirs.contains("gpu-use-unavailable"),
        "beta's training's GPU use is refused: {theirs}"
    );
    for secret in ["beta-secret", "beta"] {
        ensure!(
            !theirs.contains(secret),
            "rae's GPU use page shows {secret:?}"
        );
    }
    // Without a session: sent to sign in, with nothing of the training.
    let anonymous = Browser::default()
        .get(&setup.tephra.url(&format!("/trainings/{mine}/gpu-use")))
        .await?;
    let status = anonymous.status();
    let to = anonymous
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = anonymous.text().await?;
    ensure!(
        status.is_redirection()
            && to.starts_with("/auth/login?next=")
            && !body.contains("gpu-use-live"),
        "an anonymous read of the GPU use page: {status} {to} {body}"
    );
    Ok(())
}
