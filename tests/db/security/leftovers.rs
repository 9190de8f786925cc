//! A deleted department or project takes the access rules and policies scoped to it: nothing
//! is left that names a unit that is gone, and its delete's audit entry says what went.

use super::super::quota::{admin, department, gpus, project, services};
use app::error::AppError;
use serde_json::json;
use server::db::Database;
use tephra_core::domain::authz::{AccessRule, Role, Scope, Subject};
use tephra_core::domain::policy::PolicyKind;
use tephra_core::model::access::NewAccessRule;

/// A project with a member and a policy, in a department with an administrator and a policy:
/// deleting the project removes its rule and policy and leaves the department's; deleting the
/// department then removes its own. Each `*.delete` entry lists what went with the unit.
pub async fn a_deleted_unit_takes_its_rules_and_policies_with_it(db: &Database, _: &str) {
    let services = services(db).await;
    let org = services.organisation();
    let root_id = super::super::user(db, "root").await;
    let root = admin(root_id);
    let lab = org
        .create_department(&root, department("lab", gpus(Some(4.0), None)))
        .await
        .unwrap();
    let vision = org
        .create_project(&root, project("vision", "lab", gpus(Some(1.0), None)))
        .await
        .unwrap();
    let stored = db.projects().by_name("vision").await.unwrap();
    let scopes = [
        Scope::Department(lab.id.clone()),
        Scope::Project(stored.id.to_string()),
    ];
    let cap = json!({ "rules": { "compute": { "gpuDevicesRequest": { "max": 1 } } } });
    for (scope, (subject, role)) in scopes.iter().zip([
        ("lab-admins", Role::DepartmentAdministrator),
        ("vision-team", Role::Researcher),
    ]) {
        let rule = AccessRule {
            subject: Subject::Group(subject.into()),
            role,
            scope: scope.clone(),
        };
        db.access_rules().add(&rule, Some(root_id)).await.unwrap();
        org.set_policy(&root, scope, PolicyKind::Trainings, &cap)
            .await
            .expect("a policy on the unit");
    }
    let held = |scope: Scope| async move {
        let rules = db.access_rules().all().await.unwrap();
        let policy = db
            .policies()
            .get(&scope, PolicyKind::Trainings)
            .await
            .unwrap();
        (
            rules.iter().filter(|r| r.rule.scope == scope).count(),
            policy.is_some(),
        )
    };

    org.delete_project(&root, &vision.id).await.unwrap();
    assert_eq!(
        held(scopes[1].clone()).await,
        (0, false),
        "the project's went"
    );
    assert_eq!(
        held(scopes[0].clone()).await,
        (1, true),
        "the department's stay"
    );
    let went = last_entry(db, "project.delete").await;
    assert_eq!(
        went["removed"],
        json!({ "accessRules": [{ "subjectType": "group", "subjectId": "vision-team",
                                  "roleId": Role::Researcher.id() }],
                "policies": ["trainings"] })
    );

    org.delete_department(&root, &lab.id).await.unwrap();
    assert_eq!(
        held(scopes[0].clone()).await,
        (0, false),
        "the department's went"
    );
    let went = last_entry(db, "department.delete").await;
    assert_eq!(went["removed"]["accessRules"][0]["subjectId"], "lab-admins");
    assert_eq!(went["removed"]["policies"], json!(["trainings"]));
}

/// The detail of the newest audit entry with `action`.
async fn last_entry(db: &Database, action: &str) -> serde_json::Value {
    let events = db.audit().recent(50).await.unwrap();
    let event = events
        .into_iter()
        .find(|e| e.action.as_str() == action)
        .unwrap_or_else(|| panic!("no {action} entry"));
    event.detail
}

/// A member added and a policy set while the project is deleted: each is either stored first
/// and removed with the project, or refused (404 naming the project); never left naming a
/// project that is gone. Five rounds, so the two meet in more than one order.
pub async fn a_rule_or_policy_racing_a_delete_is_not_left_behind(db: &Database, _: &str) {
    let services = services(db).await;
    let org = services.organisation();
    let root = admin(super::super::user(db, "root").await);
    org.create_department(&root, department("lab", gpus(Some(8.0), None)))
        .await
        .unwrap();
    let cap = json!({ "rules": { "compute": { "gpuDevicesRequest": { "max": 1 } } } });
    for round in 0..5 {
        let name = format!("brief{round}");
        let made = org
            .create_project(&root, project(&name, "lab", gpus(Some(1.0), None)))
            .await
            .unwrap();
        let id = db.projects().by_name(&name).await.unwrap().id.to_string();
        let rule = NewAccessRule {
            subject_id: format!("team{round}"),
            subject_type: "group".into(),
            role_id: Role::Researcher.id(),
            scope_id: made.id.clone(),
            scope_type: "project".into(),
            cluster_id: None,
        };
        let scope = Scope::Project(id.clone());
        let (added, set, deleted) = tokio::join!(
            services.access().add_rule(&root, &rule),
            org.set_policy(&root, &scope, PolicyKind::Trainings, &cap),
            org.delete_project(&root, &made.id),
        );
        deleted.unwrap_or_else(|e| panic!("round {round}: the delete: {e:?}"));
        for refused in [added.err(), set.err()].into_iter().flatten() {
            assert!(
                matches!(&refused, AppError::NotFound(_) | AppError::Invalid { .. }),
                "round {round}: {refused:?}"
            );
        }
        let rules = db.access_rules().all().await.unwrap();
        assert!(
            rules.iter().all(|r| r.rule.scope != scope),
            "round {round}: a rule names the deleted project"
        );
        let policy = db
            .policies()
            .get(&scope, PolicyKind::Trainings)
            .await
            .unwrap();
        assert!(
            policy.is_none(),
            "round {round}: a policy names the deleted project"
        );
    }
}
