//! Quotas on the real scheduler: a project over its quota runs on GPUs another project lends, a
//! training within its own quota takes them back (Volcano's reclaim), and the preempted training
//! says so, waits with its project's quota and use on its page, and runs again when GPUs free up.

use crate::api::{TRAININGS, Tephra, WAIT, id_of, training};
use anyhow::ensure;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams};
use serde_json::{Value, json};
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

fn gpus(deserved: f64, limit: f64) -> Value {
    json!([{ "nodePool": { "name": "default" },
             "gpu": { "deserved": deserved, "limit": limit, "overQuotaWeight": 1 } }])
}

/// One whole node's GPUs (the testbed has four nodes of eight), in project `project`.
fn node_sized(name: &str, project: &str) -> Value {
    let mut t = training(name, 8);
    t["projectId"] = json!(project);
    t
}

/// The cluster's 32 GPUs: project `lender` has a quota of 24 and uses none; project `borrower`
/// (quota 8, limit 32) runs four trainings of 8. A lender's training within its quota reclaims
/// one node from the borrower, whose training is preempted, waits, and comes back.
pub async fn an_in_quota_training_reclaims_what_an_over_quota_one_borrowed(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = reclaim_story(&t).await;
    t.cleanup().await;
    for project in ["lender", "borrower"] {
        let _ = Api::<Namespace>::all(t.kube.clone())
            .delete(&format!("{}{project}", t.prefix), &DeleteParams::default())
            .await;
    }
    result
}

async fn reclaim_story(t: &Tephra) -> anyhow::Result<()> {
    let (status, department) = t
        .post(
            "/api/v1/org-unit/departments",
            &json!({ "name": "share", "resources": gpus(32.0, 32.0) }),
        )
        .await?;
    ensure!(status == 201, "department: {status} {department}");
    for (name, deserved, limit) in [("lender", 24.0, 24.0), ("borrower", 8.0, 32.0)] {
        let body = json!({ "name": name, "parentId": department["id"],
                           "resources": gpus(deserved, limit) });
        let (status, project) = t.post("/api/v1/org-unit/projects", &body).await?;
        ensure!(status == 201, "project {name}: {status} {project}");
    }
    // The first training is within the borrower's quota; the other three borrow the lender's.
    let mut borrowed = Vec::new();
    for i in 0..4 {
        let id = id_of(
            &t.submit(TRAININGS, &node_sized(&format!("b{i}"), "borrower"))
                .await?,
        )?;
        borrowed.push(id);
    }
    for id in &borrowed {
        t.wait_phase(TRAININGS, id, "Running").await?;
    }
    let (_, history) = t
        .get(&format!("/api/v1/workloads/{}/history", borrowed[3]))
        .await?;
    ensure!(
        history.to_string().contains("over-quota"),
        "the history says it was admitted over quota: {history}"
    );
    // The organisation page's cluster view: every node full of the borrower's pods.
    let organisation = t.page("/organisation").await?;
    for expected in ["data-testid=\"cluster-nodes\"", "gpu-node-0", "32 / 32"] {
        ensure!(
            organisation.contains(expected),
            "{expected:?} in {organisation}"
        );
    }
    // The lender asks for one node within its quota: the cluster is full, but Volcano takes
    // one back, and the fit answer says so before it is submitted.
    let (status, fit) = t
        .post(&format!("{TRAININGS}/fit"), &node_sized("l0", "lender"))
        .await?;
    ensure!(
        status == 200 && fit["verdict"] == "withinQuota",
        "{status} {fit}"
    );
    ensure!(
        fit["message"]
            .as_str()
            .unwrap_or_default()
            .contains("takes back 8 GPUs"),
        "{fit}"
    );
    let lent_back = id_of(&t.submit(TRAININGS, &node_sized("l0", "lender")).await?)?;
    t.wait_phase(TRAININGS, &lent_back, "Running").await?;
    let preempted = find_preempted(t, &borrowed).await?;
    let waiting = t
        .wait_until(
            TRAININGS,
            &preempted,
            "the preempted training to wait",
            |b| matches!(b["actualPhase"].as_str(), Some("Pending" | "Resuming")),
        )
        .await?;
    let reason = waiting["phaseMessage"].as_str().unwrap_or_default();
    ensure!(reason.starts_with("preempted:"), "{waiting}");
    ensure!(
        waiting["status"]["preemption"]["count"] == 1,
        "counted once: {waiting}"
    );
    // Its page puts the project's quota and use next to the scheduler's reason.
    let page = t.page(&format!("/trainings/{preempted}")).await?;
    ensure!(page.contains("data-testid=\"preemption\""), "{page}");
    ensure!(
        page.contains("borrower")
            && page.contains(
                "24 GPU(s) in use, 8 more asked by workloads waiting to start; quota 8, limit 32 \
                 (over quota"
            ),
        "the page names the quota and the use: {page}"
    );
    // The lender's training ends: the GPUs are free again and the preempted one runs again.
    t.finish_pods(&lent_back, None, "Succeeded").await?;
    t.wait_phase(TRAININGS, &lent_back, "Completed").await?;
    let back = t.wait_phase(TRAININGS, &preempted, "Running").await?;
    ensure!(back["phaseMessage"].is_null(), "{back}");
    ensure!(
        back["status"]["preemption"]["count"] == 1,
        "the record stays: {back}"
    );
    let (_, history) = t
        .get(&format!("/api/v1/workloads/{preempted}/history"))
        .await?;
    ensure!(
        history.to_string().contains("preempted"),
        "the history keeps the preemption: {history}"
    );
    for id in borrowed.iter().chain([&lent_back]) {
        t.delete(&format!("{TRAININGS}/{id}")).await?;
    }
    for id in borrowed.iter().chain([&lent_back]) {
        t.wait_gone(TRAININGS, id).await?;
    }
    Ok(())
}

/// The one borrowed training Volcano preempted: exactly one, since one node was asked back.
async fn find_preempted(t: &Tephra, ids: &[String]) -> anyhow::Result<String> {
    tephra_tests::wait_for("a borrowed training to be preempted", WAIT, || async {
        let mut hit = Vec::new();
        for id in ids {
            let (_, body) = t.get(&format!("{TRAININGS}/{id}")).await.ok()?;
            if body["status"]["preemption"].is_object() {
                hit.push(id.clone());
            }
        }
        (hit.len() == 1).then(|| hit.remove(0))
    })
    .await
}
