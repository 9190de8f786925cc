//! A start estimate against what really happens: the cluster's 32 GPUs are held by four trainings
//! of 8, two of them with a time limit of a minute (h1, then h2). Two 8-GPU trainings wait: w1
//! starts when h1 reaches its limit, and w2, behind w1, when h2 does (if w1 took nothing it could
//! have started at h1's). Each starts within its estimate's range, give or take the seconds a
//! stop and a start take.
//!
//! And an estimate reads only its own project: another project's trainings in the way are said,
//! never named.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tephra_tests::testbed::Testbed;

/// How long after the estimate's end a start may come: the time limits are checked every 5 s,
/// then the stopped pods terminate, and Volcano places the gang in its next cycle.
const SLACK: Duration = Duration::from_secs(40);

fn node_sized(name: &str, limit: Option<u64>) -> Value {
    let mut t = training(name, 8);
    if let Some(limit) = limit {
        t["spec"]["maxRunTimeSeconds"] = json!(limit);
    }
    t
}

async fn estimate(t: &Tephra, id: &str) -> anyhow::Result<Value> {
    let (status, body) = t.get(&format!("{TRAININGS}/{id}")).await?;
    ensure!(status == 200, "{status} {body}");
    Ok(body["startEstimate"].clone())
}

fn seconds(eta: &Value, end: &str) -> anyhow::Result<u64> {
    eta[end].as_u64().with_context(|| format!("{end} in {eta}"))
}

/// Waits until training `id` runs; how long that took from `since`.
async fn started(t: &Tephra, id: &str, since: Instant) -> anyhow::Result<Duration> {
    tephra_tests::wait_for(
        "a waiting training to start",
        Duration::from_secs(150),
        || async {
            let (_, body) = t.get(&format!("{TRAININGS}/{id}")).await.ok()?;
            (body["actualPhase"] == "Running").then(|| since.elapsed())
        },
    )
    .await
}

pub async fn a_waiting_training_starts_within_its_estimate(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        for (name, limit) in [
            ("h1", Some(60)),
            ("h2", Some(60)),
            ("n1", None),
            ("n2", None),
        ] {
            let id = id_of(&t.submit(TRAININGS, &node_sized(name, limit)).await?)?;
            t.wait_phase(TRAININGS, &id, "Running").await?;
            // h1's and h2's limits end apart.
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
        let w1 = id_of(&t.submit(TRAININGS, &node_sized("w1", None)).await?)?;
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let w2 = id_of(&t.submit(TRAININGS, &node_sized("w2", None)).await?)?;
        t.wait_phase(TRAININGS, &w2, "Pending").await?;
        let read_at = Instant::now();
        let first = estimate(&t, &w1).await?;
        let second = estimate(&t, &w2).await?;
        ensure!(first["bound"] == "within", "{first}");
        ensure!(second["bound"] == "within", "{second}");
        let grounds = first["restsOn"].to_string();
        ensure!(
            grounds.contains("h1 (8 GPUs) reaches its time limit in"),
            "w1's estimate rests on h1's limit: {first}"
        );
        // w2's range runs from h1's end (were w1 to take nothing) to h2's.
        ensure!(
            seconds(&second, "earliestSeconds")? < seconds(&second, "latestSeconds")?
                && seconds(&first, "latestSeconds")? <= seconds(&second, "earliestSeconds")? + 1,
            "{first} {second}"
        );
        ensure!(
            second["restsOn"]
                .to_string()
                .contains("1 gang ahead of it asking 8 GPUs"),
            "{second}"
        );
        let page = t.page(&format!("/trainings/{w2}")).await?;
        ensure!(
            page.contains("When it can start") && page.contains("it starts in "),
            "the page says when it can start"
        );
        for (id, eta) in [(&w1, &first), (&w2, &second)] {
            let took = started(&t, id, read_at).await?;
            let latest = Duration::from_secs(seconds(eta, "latestSeconds")?);
            ensure!(
                took <= latest + SLACK,
                "started after {took:?}; its estimate said by {latest:?}: {eta}"
            );
        }
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// Project `hidden` fills the cluster with four trainings of 8 GPUs, no time limit, within its
/// quota (nothing to reclaim). A training of `default` waits: its estimate is unbounded and says
/// what holds the GPUs without naming a training of `hidden`, in the API and on the page.
pub async fn an_estimate_names_no_training_of_another_project(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let resources = json!([{ "nodePool": { "name": "default" },
                                 "gpu": { "deserved": 32, "limit": 32 } }]);
        let body = json!({ "name": "hidden", "resources": resources });
        let (status, project) = t.post("/api/v1/org-unit/projects", &body).await?;
        ensure!(status == 201, "project: {status} {project}");
        for i in 0..4 {
            let mut body = node_sized(&format!("secret-run-{i}"), None);
            body["projectId"] = json!("hidden");
            let id = id_of(&t.submit(TRAININGS, &body).await?)?;
            t.wait_phase(TRAININGS, &id, "Running").await?;
        }
        let waiting = id_of(&t.submit(TRAININGS, &node_sized("mine", None)).await?)?;
        t.wait_phase(TRAININGS, &waiting, "Pending").await?;
        let eta = estimate(&t, &waiting).await?;
        ensure!(eta["bound"] == "unbounded", "{eta}");
        let said = eta.to_string();
        ensure!(
            said.contains("a workload of another project"),
            "the estimate says what is in the way: {eta}"
        );
        ensure!(!said.contains("secret-run"), "it names hidden's: {eta}");
        let page = t.page(&format!("/trainings/{waiting}")).await?;
        ensure!(
            page.contains("When it can start"),
            "the page has the estimate"
        );
        ensure!(!page.contains("secret-run"), "the page names hidden's");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
