//! "Edit and resubmit": a training that failed for lack of memory says why on the list and its
//! page, offers the fix there, and the form opens with the higher limit, said above it as news rather than as an error. The
//! failure is written to the store as the controller writes it; tests/cluster/diagnosis.rs makes
//! the kill happen on the testbed.

use super::Running;
use reqwest::Method;
use serde_json::{Value, json};
use tephra_core::model::diagnosis::Fix;
use tephra_core::model::phase::Phase;
use tephra_core::model::workload::LiveStatus;

#[tokio::test]
async fn a_training_killed_for_memory_opens_the_form_with_more() {
    let server = Running::start().await;
    let body = json!({ "name": "hungry", "projectId": "default",
                       "spec": { "image": "busybox", "compute": { "cpuMemoryLimit": "4Gi" } } });
    let res = server
        .send(Method::POST, "/api/v1/workloads/trainings", &body)
        .await;
    assert_eq!(res.status(), 202);
    let created: Value = res.json().await.unwrap();
    let id = created["workloadId"].as_str().unwrap().to_owned();
    let fix = Fix::Memory {
        container: "hungry".into(),
        mib: 6144,
    };
    let reason = "container hungry of pod hungry-train-0 ran out of memory and was killed \
                  (OOMKilled) at its limit of 4096 MiB; give it more, e.g. 6144 MiB \
                  (compute.cpuMemoryLimit)";
    server
        .db
        .workloads()
        .record_status(
            id.parse().unwrap(),
            server::db::workloads::StatusWrite::new(
                Phase::Running,
                Phase::Creating,
                Phase::Failed,
                Some(reason),
                &LiveStatus {
                    fix: Some(fix.clone()),
                    ..LiveStatus::default()
                },
            ),
        )
        .await
        .unwrap()
        .unwrap();
    let answer: Value = server
        .get(&format!("/api/v1/workloads/trainings/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer["status"]["fix"], "memory hungry 6144", "{answer}");
    assert_eq!(answer["phaseMessage"], reason);

    let page = server
        .get(&format!("/trainings/{id}"))
        .await
        .text()
        .await
        .unwrap();
    let href = format!("/trainings/new?from={id}&amp;fix=memory%20hungry%206144");
    assert!(
        page.contains("Edit and resubmit"),
        "the page offers the fix"
    );
    assert!(page.contains(&href), "linking the form with it: {href}");
    // The list says why too, in one line under its phase.
    let list = server.get("/trainings").await.text().await.unwrap();
    let why = list
        .split("data-testid=\"why\"")
        .nth(1)
        .expect("the list says why it failed");
    assert!(
        why.contains(">container hungry of pod hungry-train-0 ran out of memory")
            && why.find("</div>") > why.find("(compute.cpuMemoryLimit)"),
        "{why}"
    );

    let form = server
        .get(&format!(
            "/trainings/new?from={id}&fix=memory%20hungry%206144"
        ))
        .await
        .text()
        .await
        .unwrap();
    assert!(form.contains("6144Mi"), "the limit is raised");
    let said = "memory limit raised to 6144Mi: container hungry ran out of memory";
    let banner = form
        .split("data-testid=\"fix-applied\"")
        .nth(1)
        .expect("the form says what the fix changed");
    assert!(banner.contains(said), "{banner}");
    assert!(
        banner.contains("href=\"#f-spec-compute-cpuMemoryLimit\""),
        "linked to its field"
    );
    assert_eq!(
        form.matches(said).count(),
        1,
        "said once, above the form, and not as an error at the field"
    );
    assert!(form.contains("hungry-copy"), "as a copy of the failed one");
    server.stop().await;
}
