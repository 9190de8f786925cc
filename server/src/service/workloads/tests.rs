//! The workload service on an in-memory database without a cluster: what it accepts is stored
//! and listed, strangers and bad requests are refused before anything is stored.

use super::Workloads;
use crate::cluster::NO_CLUSTER;
use crate::db::Database;
use crate::service::testing::{admin, cluster, database, default_project, person, stranger};
use app::error::AppError;
use serde_json::json;
use std::sync::Arc;
use tephra_core::domain::authz::Role;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::phase::Phase;
use tephra_core::model::workload::WorkloadQuery;

const MAX_PODS: u64 = 8;

/// The service on `db`; each one (a replica) has its own shared order of the waiting workloads.
pub(super) fn workloads(db: &Database) -> Workloads {
    Workloads::new(
        db.clone(),
        cluster(),
        Arc::new(ClusterProfile::default()),
        MAX_PODS,
        None,
    )
}

fn training(name: &str, spec: serde_json::Value) -> serde_json::Value {
    let mut spec = spec;
    spec["image"] = json!("pytorch/pytorch:2.4");
    json!({ "name": name, "projectId": "default", "spec": spec })
}

async fn stored(db: &Database) -> i64 {
    db.workloads().count(&Default::default()).await.unwrap()
}

#[tokio::test]
async fn a_researchers_submit_is_accepted_stored_and_listed() {
    let db = database().await;
    let service = workloads(&db);
    let researcher = person(&db, "ada", Role::Researcher, default_project(&db).await).await;

    let accepted = service
        .submit(
            WorkloadKind::Training,
            &researcher,
            training("t1", json!({})),
        )
        .await
        .expect("a valid request in the researcher's project is accepted");
    let shown = accepted.response();
    assert_eq!(shown.name, "t1");
    assert_eq!(shown.project_name, "default");
    assert_eq!(shown.created_by, "ada@example.com");
    assert_eq!(shown.desired_phase, Phase::Running);
    assert_eq!(
        shown.phase_message.as_deref(),
        Some(NO_CLUSTER),
        "without a cluster the workload says why it waits"
    );

    let page = service
        .list(None, &researcher, &WorkloadQuery::default())
        .await
        .expect("the researcher lists their project");
    assert_eq!(page.total, 1);
    assert_eq!(page.workloads.len(), 1);
    assert_eq!(page.workloads[0].workload_id, shown.workload_id);
    let found = service
        .find(
            Some(WorkloadKind::Training),
            &researcher,
            &shown.workload_id,
        )
        .await
        .expect("the researcher finds it by id");
    assert_eq!(found.workload.name, "t1");
    // An administrator sees it too: lists cover every project they may read.
    let everyone = service
        .list(None, &admin(&db).await, &WorkloadQuery::default())
        .await
        .unwrap();
    assert_eq!(everyone.total, 1);
}

#[tokio::test]
async fn a_stranger_is_told_no_such_project_and_nothing_is_stored() {
    let db = database().await;
    let service = workloads(&db);
    let nobody = stranger(&db).await;

    let refused = service
        .submit(WorkloadKind::Training, &nobody, training("t1", json!({})))
        .await
        .expect_err("a stranger to the project may not submit there");
    // As for a project that does not exist: a stranger cannot probe which names are taken.
    match refused {
        AppError::Invalid { field, message } => {
            assert_eq!(field, "projectId");
            assert!(message.starts_with("no project you can see"), "{message}");
        }
        other => panic!("expected a 400 naming projectId, got {other:?}"),
    }
    assert_eq!(stored(&db).await, 0, "nothing was stored");
    let page = service
        .list(None, &nobody, &WorkloadQuery::default())
        .await
        .unwrap();
    assert_eq!(page.total, 0, "a stranger's list is empty");
}

#[tokio::test]
async fn bad_input_is_refused_by_field_and_nothing_is_stored() {
    let db = database().await;
    let service = workloads(&db);
    let root = admin(&db).await;

    let too_wide = training("wide", json!({ "parallelism": MAX_PODS + 1 }));
    let refused = service
        .submit(WorkloadKind::Training, &root, too_wide)
        .await
        .expect_err("more pods than --max-pods-per-workload");
    let AppError::Rejected(errors) = &refused else {
        panic!("expected a 400 with details, got {refused:?}");
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, "spec.parallelism");
    assert!(
        errors[0]
            .message
            .contains("this Tephra allows at most 8 per workload"),
        "{errors:?}"
    );

    let nameless = json!({ "projectId": "default", "spec": { "image": "x" } });
    let refused = service
        .submit(WorkloadKind::Training, &root, nameless)
        .await
        .expect_err("a request without a name");
    let details: Vec<(String, String)> = refused
        .field_errors()
        .into_iter()
        .map(|e| (e.path, e.message))
        .collect();
    assert_eq!(
        details,
        [(".".into(), "is missing the required field name".into())],
        "{refused:?}"
    );

    let unknown = json!({ "name": "t", "projectId": "nowhere", "spec": { "image": "x" } });
    let refused = service
        .submit(WorkloadKind::Training, &root, unknown)
        .await
        .expect_err("a project that does not exist");
    assert!(
        matches!(&refused, AppError::Invalid { field, .. } if field == "projectId"),
        "{refused:?}"
    );
    assert_eq!(stored(&db).await, 0, "nothing was stored");
}
