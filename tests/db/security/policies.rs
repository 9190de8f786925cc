//! Policies stay closed to those outside them: one that no longer parses refuses, and a stranger
//! to a project learns nothing of its policy from a refusal.

use super::super::quota::{admin, services};
use super::{department_admin, project, refused, researcher, stored, training};
use app::error::AppError;
use serde_json::json;
use server::db::Database;
use server::db::audit::AuditEvent;
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
        .put(&scope, PolicyKind::Trainings, &broken, None, &[])
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
/// policy and does not parse: the answer is the one a project that does not exist gets (the
/// request's own errors), so it tells them neither that the project exists nor what its policy
/// allows, and nothing is stored.
pub async fn strangers_learn_nothing_of_a_projects_policy(db: &Database, _: &str) {
    let services = services(db).await;
    let root = admin(super::super::user(db, "root").await);
    let researcher = researcher(db).await;
    services
        .organisation()
        .create_project(&root, project("secret", None))
        .await
        .expect("a project");
    // Policies are stored by the project's UUID (the API resolves a Run:ai id to it).
    let secret = db.projects().by_name("secret").await.unwrap();
    let scope = Scope::Project(secret.id.to_string());
    let policy = json!({ "rules": { "image": { "options": ["registry.internal/llm:7"] } } });
    services
        .organisation()
        .set_policy(&root, &scope, PolicyKind::Trainings, &policy)
        .await
        .expect("the project's policy");
    let before = stored(db).await;
    let ask = |project: &str| {
        json!({ "name": "t", "projectId": project,
            "spec": { "image": "x", "gpuDevicesRequest": -1 } })
    };
    let refused = services
        .workloads()
        .submit(WorkloadKind::Training, &researcher, ask("secret"))
        .await
        .unwrap_err();
    let missing = services
        .workloads()
        .submit(WorkloadKind::Training, &researcher, ask("no-such"))
        .await
        .unwrap_err();
    // The same answer as for a project that does not exist: the request's own errors.
    assert_eq!(format!("{refused:?}"), format!("{missing:?}"));
    assert!(matches!(refused, AppError::Rejected(_)), "{refused:?}");
    assert!(
        !format!("{refused:?}").contains("registry.internal"),
        "{refused:?}"
    );
    assert_eq!(stored(db).await, before, "nothing stored changed");
}

/// Every change to a policy is in the audit trail, written with the change: who saved which
/// scope's policy and its whole body, and who removed one. A system policy that replaces node
/// protection adds its own entry in the same transaction. A department administrator's attempt
/// on the system policy is refused and leaves the trail and the policy as they were; so does
/// removing a policy that is not there.
pub async fn every_policy_change_is_in_the_audit_trail_and_a_refused_one_leaves_none(
    db: &Database,
    _: &str,
) {
    let services = services(db).await;
    let root_id = super::super::user(db, "root").await;
    let root = admin(root_id);
    let default = db.projects().ensure_default().await.unwrap();
    let scope = Scope::Project(default.id.to_string());
    let narrow = json!({ "defaults": { "compute": { "gpuDevicesRequest": 1 } } });
    let policies = services.organisation();
    policies
        .set_policy(&root, &scope, PolicyKind::Trainings, &narrow)
        .await
        .expect("root sets the project's policy");
    let [set] = &after(db, 0).await[..] else {
        panic!("one entry for one change");
    };
    assert_eq!(
        (set.action.as_str(), set.actor_id),
        ("policy.set", Some(root_id))
    );
    assert_eq!(set.detail["scope"], "project", "{set:?}");
    assert_eq!(set.detail["scopeId"], default.id.to_string(), "{set:?}");
    assert_eq!(set.detail["policy"], narrow, "{set:?}");

    let host_paths = json!({ "rules": { "storage": { "hostPath": { "canAdd": true } } } });
    let intruder = department_admin(db).await;
    let before = stored(db).await;
    let refused = policies
        .set_policy(
            &intruder,
            &Scope::System,
            PolicyKind::Trainings,
            &host_paths,
        )
        .await
        .unwrap_err();
    assert!(matches!(refused, AppError::Forbidden(_)), "{refused:?}");
    assert_eq!(stored(db).await, before, "the system policy is as it was");
    assert!(
        after(db, set.id).await.is_empty(),
        "a refusal records nothing"
    );

    policies
        .set_policy(&root, &Scope::System, PolicyKind::Trainings, &host_paths)
        .await
        .expect("root may replace node protection");
    let entries = after(db, set.id).await;
    let actions: Vec<_> = entries.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        ["policy.set", "policy.node-protection"],
        "{entries:?}"
    );
    assert_eq!(entries[1].id, entries[0].id + 1, "written together");

    policies
        .delete_policy(&root, &scope, PolicyKind::Trainings)
        .await
        .expect("root removes the project's policy");
    let removed = after(db, entries[1].id).await;
    assert_eq!(removed.len(), 1, "{removed:?}");
    assert_eq!(removed[0].action.as_str(), "policy.delete");
    assert_eq!(removed[0].detail["scopeId"], default.id.to_string());
    let again = policies
        .delete_policy(&root, &scope, PolicyKind::Trainings)
        .await
        .unwrap_err();
    assert!(matches!(again, AppError::NotFound(_)), "{again:?}");
    assert!(
        after(db, removed[0].id).await.is_empty(),
        "nothing removed, nothing recorded"
    );
}

/// The audit trail's policy entries after entry `id`, oldest first.
async fn after(db: &Database, id: i64) -> Vec<AuditEvent> {
    let mut events = db.audit().recent(100).await.unwrap();
    events.retain(|e| e.id > id && e.action.as_str().starts_with("policy."));
    events.reverse();
    events
}
