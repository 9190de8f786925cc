//! What may be observed of a detached cluster (Tephra runs without one): it waits to connect,
//! has no problems and no orphans; an API server's error is told only to system
//! administrators.

use super::{ClusterState, Observe};
use crate::cluster::ClusterHandle;
use crate::db::{Database, DbAnswer};
use crate::metrics::Metrics;
use crate::service::testing::{admin, cluster, database, default_project, person};
use tephra_core::domain::authz::Role;

fn observe(db: &Database, cluster: ClusterHandle) -> Observe {
    Observe::new(db.clone(), cluster, Metrics::new(), "lab".into())
}

#[tokio::test]
async fn a_detached_cluster_waits_to_connect_and_has_no_problems() {
    let db = database().await;
    let observe = observe(&db, cluster());
    let root = admin(&db).await;

    let state = observe.cluster_state(&root);
    assert_eq!(state.id, "default");
    assert!(!state.configured);
    assert_eq!(state.last_error, None);
    assert!(state.orphans.is_empty());

    let info = observe.cluster_info().await.expect("the cluster's info");
    assert_eq!((info.id.as_str(), info.name.as_str()), ("default", "lab"));
    assert_eq!(info.state, ClusterState::WaitingToConnect);
    let again = observe.cluster_info().await.unwrap();
    assert_eq!(again.created_at, info.created_at, "first seen once, kept");

    assert!(observe.cluster_problems().is_empty());
    assert_eq!(observe.database_answers().await, DbAnswer::Answers);
    let text = observe.metrics_text().await.expect("the metrics");
    assert!(text.contains("# EOF"), "{text}");
}

#[tokio::test]
async fn the_api_servers_error_is_for_system_administrators() {
    let db = database().await;
    let handle = cluster();
    *handle.shared.last_error.lock().unwrap() = Some("connection refused by 10.0.0.1".into());
    let observe = observe(&db, handle);
    let root = admin(&db).await;
    let researcher = person(&db, "ada", Role::Researcher, default_project(&db).await).await;

    assert_eq!(
        observe.cluster_state(&root).last_error.as_deref(),
        Some("connection refused by 10.0.0.1")
    );
    let told = observe.cluster_state(&researcher).last_error.unwrap();
    assert!(!told.contains("10.0.0.1"), "{told}");
    assert!(told.contains("system administrators see why"), "{told}");
    assert_eq!(
        observe.cluster_problems(),
        ["connection refused by 10.0.0.1"]
    );
}
