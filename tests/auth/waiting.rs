//! Tephra accepts work beyond a project's limit and lets it wait in the queue, and each waiting
//! workload is a Volcano Job in the cluster: a researcher tries to make that unbounded. Past the
//! cluster's `maxWaitingPerProject` a submit and a resume are refused naming the rule, and
//! nothing is stored or changed.

use super::{Setup, ada, user};
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
    json!({"name": name, "projectId": "alpha", "spec": {"image": "busybox"}})
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

#[tokio::test]
async fn a_researcher_cannot_queue_without_end() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let profile = dir.path().join("profile.json");
    std::fs::write(
        &profile,
        json!({ "maxWaitingPerProject": MOST }).to_string(),
    )?;
    let path = profile.to_str().context("temporary paths are UTF-8")?;
    let setup = Setup::start_for(&[ada(), user("rae", &[])], &["--cluster-profile", path]).await?;
    let db = &setup.tephra.db;
    let alpha = db
        .projects()
        .create(&server::db::projects::NewProject::named("alpha"))
        .await?;
    let admin = setup.sign_in("ada").await?.http;
    let rae = setup.sign_in("rae").await?.http;
    let rule = json!({"subjectType": "user", "subjectId": "rae@example.org", "roleId": 4,
                      "scopeType": "project", "scopeId": "alpha"});
    let (status, _) = send(
        &setup,
        &admin,
        Method::POST,
        "/api/v1/authorization/access-rules",
        Some(rule),
    )
    .await?;
    ensure!(status == 201, "{status}");

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
