//! Policies stay closed to those outside them: one that no longer parses refuses, and a stranger
//! to a project learns nothing of its policy from a refusal.

use super::super::quota::{admin, services};
use super::{project, refused, researcher, stored, training};
use app::error::AppError;
use serde_json::json;
use server::db::Database;
use server::service::Services;
use tephra_core::domain::authz::Scope;
use tephra_core::domain::policy::PolicyKind;
use tephra_core::domain::request::WorkloadKind;

/// A stored policy that no longer parses refuses, never passes.
pub async fn an_unreadable_policy_fails_closed(db: &Database, _: &str) {
    let services: Services = services(db).await;
    let root = admin(super::super::user(db, "root").await);
    let default = db.projects().ensure_default().await.unwrap();
    let scope = Scope::Project(default.id.to_string());
    let broken = json!({ "rules": { "compute": { "gpuDevicesRequest": { "max": "eight" } } } });
    db.policies()
        .put(&scope, PolicyKind::Trainings, &broken, None)
        .await
        .unwrap();
    let (path, message) = refused(
        services
            .workloads()
            .submit(WorkloadKind::Training, &root, training(json!({})))
            .await,
    );
    assert_eq!(path, "policy");
    assert!(message.contains("no longer parses"), "{message}");
}

/// A researcher submits to a project they are not a member of, with a request that breaks its
/// policy and does not parse: the answer is the 403 alone, so the errors do not tell them what
/// that project's policy allows, and nothing is stored.
pub async fn strangers_learn_nothing_of_a_projects_policy(db: &Database, _: &str) {
    let services = services(db).await;
    let root = admin(super::super::user(db, "root").await);
    let researcher = researcher(db).await;
    let secret = services
        .organisation()
        .create_project(&root, project("secret", None))
        .await
        .expect("a project");
    let scope = Scope::Project(secret.id.to_string());
    let policy = json!({ "rules": { "image": { "options": ["registry.internal/llm:7"] } } });
    services
        .organisation()
        .set_policy(&root, &scope, PolicyKind::Trainings, &policy)
        .await
        .expect("the project's policy");
    let before = stored(db).await;
    let request = json!({ "name": "t", "projectId": "secret",
        "spec": { "image": "x", "gpuDevicesRequest": -1 } });
    let refused = services
        .workloads()
        .submit(WorkloadKind::Training, &researcher, request)
        .await
        .unwrap_err();
    let AppError::Forbidden(message) = &refused else {
        panic!("expected a 403, got {refused:?}");
    };
    assert!(message.contains("workloads:manage"), "{message}");
    assert!(!message.contains("registry.internal"), "{message}");
    assert_eq!(stored(db).await, before, "nothing stored changed");
}
