//! Queue positions against what Volcano really does: the cluster's 32 GPUs are full, five gangs
//! of one 8-GPU pod wait in two projects with different priorities, and capacity frees one node
//! at a time. Each time, the gang Tephra put first is the one Volcano starts.
//!
//! Department `order` holds projects `qa` (quota 11), `qb` (quota 12) and `fill` (best effort).
//! `qa` and `qb` run one training of 8 each and `fill` runs two. No waiting gang may reclaim
//! (each would take its project beyond its quota), so only the freed nodes start them. Shares:
//! qb 8/12, qa 8/11; Tephra's order: b3 (build), a2 (build), b1, a1, b2.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::testbed::Testbed;

fn gpus(deserved: f64) -> Value {
    json!([{ "nodePool": { "name": "default" },
             "gpu": { "deserved": deserved, "limit": 32, "overQuotaWeight": 1 } }])
}

fn node_sized(name: &str, project: &str, priority: &str) -> Value {
    let mut t = training(name, 8);
    t["projectId"] = json!(project);
    t["spec"]["priorityClass"] = json!(priority);
    t
}

/// The waiting trainings' places among those competing for the nodes, by name.
async fn places(t: &Tephra, ids: &[(&str, String)]) -> anyhow::Result<Vec<(String, u64)>> {
    let mut places = Vec::new();
    for (name, id) in ids {
        let (_, body) = t.get(&format!("{TRAININGS}/{id}")).await?;
        if let Some(place) = body["queuePosition"]["inPools"].as_u64() {
            places.push(((*name).to_owned(), place));
        }
    }
    places.sort_by_key(|(_, place)| *place);
    Ok(places)
}

/// Deletes `freed` (a running training), then waits until one of `waiting` runs; its name.
async fn free_one(t: &Tephra, freed: &str, waiting: &[(&str, String)]) -> anyhow::Result<String> {
    let (status, _) = t.delete(&format!("{TRAININGS}/{freed}")).await?;
    ensure!(status == 202, "delete: {status}");
    tephra_tests::wait_for(
        "a waiting gang to start",
        Duration::from_secs(90),
        || async {
            for (name, id) in waiting {
                let (_, body) = t.get(&format!("{TRAININGS}/{id}")).await.ok()?;
                if body["actualPhase"] == "Running" {
                    return Some((*name).to_owned());
                }
            }
            None
        },
    )
    .await
}

pub async fn the_first_in_the_queue_is_the_first_volcano_starts(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let (status, department) = t
            .post(
                "/api/v1/org-unit/departments",
                &json!({ "name": "order", "resources": gpus(23.0) }),
            )
            .await?;
        ensure!(status == 201, "department: {status} {department}");
        for (name, resources) in [("qa", gpus(11.0)), ("qb", gpus(12.0)), ("fill", json!([]))] {
            let body =
                json!({ "name": name, "parentId": department["id"], "resources": resources });
            let (status, project) = t.post("/api/v1/org-unit/projects", &body).await?;
            ensure!(status == 201, "project {name}: {status} {project}");
        }
        let mut running = Vec::new();
        for (name, project) in [("a0", "qa"), ("b0", "qb"), ("f1", "fill"), ("f2", "fill")] {
            let id = id_of(
                &t.submit(TRAININGS, &node_sized(name, project, "train"))
                    .await?,
            )?;
            t.wait_phase(TRAININGS, &id, "Running").await?;
            running.push(id);
        }
        // A second apart: Volcano orders by creation time to the second.
        let mut waiting = Vec::new();
        for (name, project, priority) in [
            ("a1", "qa", "train"),
            ("a2", "qa", "build"),
            ("b1", "qb", "train"),
            ("b2", "qb", "train"),
            ("b3", "qb", "build"),
        ] {
            let body = node_sized(name, project, priority);
            waiting.push((name, id_of(&t.submit(TRAININGS, &body).await?)?));
            tokio::time::sleep(Duration::from_millis(1100)).await;
        }
        let order = |places: &[(String, u64)]| -> Vec<String> {
            places.iter().map(|(name, _)| name.clone()).collect()
        };
        let before = places(&t, &waiting).await?;
        ensure!(
            order(&before) == ["b3", "a2", "b1", "a1", "b2"],
            "{before:?}"
        );
        // Freeing fill's nodes leaves both projects' shares as they were.
        for freed in [&running[2], &running[3]] {
            let expected = order(&places(&t, &waiting).await?)
                .first()
                .cloned()
                .context("one waits")?;
            let started = free_one(&t, freed, &waiting).await?;
            ensure!(
                started == expected,
                "Tephra put {expected} first; Volcano started {started}"
            );
            waiting.retain(|(name, _)| *name != started);
        }
        let after = places(&t, &waiting).await?;
        ensure!(order(&after) == ["b1", "a1", "b2"], "{after:?}");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
