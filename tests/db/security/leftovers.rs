//! A deleted department or project takes the access rules and policies scoped to it: nothing
//! is left that names a unit that is gone, and its delete's audit entry says what went.

use super::super::quota::{admin, department, gpus, project, services};
use serde_json::json;
use server::db::Database;
use tephra_core::domain::authz::{AccessRule, Role, Scope, Subject};
use tephra_core::domain::policy::PolicyKind;

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
