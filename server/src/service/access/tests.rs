//! The access service on an in-memory database: access rules are added, listed and deleted; a
//! project administrator manages their project's members but grants no role wider than theirs.

use super::Access;
use crate::service::testing::{admin, database, default_project, person};
use app::error::AppError;
use tephra_core::domain::authz::Role;
use tephra_core::model::access::{AppRole, NewAccessRule, NewApplication};

fn rule(subject: &str, role: Role, scope_type: &str, scope_id: &str) -> NewAccessRule {
    NewAccessRule {
        subject_id: subject.into(),
        subject_type: "user".into(),
        role_id: role.id(),
        scope_id: scope_id.into(),
        scope_type: scope_type.into(),
        cluster_id: None,
    }
}

fn forbidden<T: std::fmt::Debug>(result: Result<T, AppError>) -> String {
    match result {
        Err(AppError::Forbidden(message)) => message,
        other => panic!("expected a 403, got {other:?}"),
    }
}

#[tokio::test]
async fn an_access_rule_is_added_listed_and_deleted() {
    let db = database().await;
    let access = Access::new(db.clone());
    let root = admin(&db).await;

    let added = access
        .add_rule(
            &root,
            &rule("ada@example.com", Role::Researcher, "project", "default"),
        )
        .await
        .expect("a system administrator adds a rule");
    assert_eq!(
        (added.subject_id.as_str(), added.role_name.as_str()),
        ("ada@example.com", "Researcher")
    );
    assert_eq!(
        (added.scope_type.as_str(), added.scope_name.as_str()),
        ("project", "default")
    );
    assert_eq!(added.created_by.as_deref(), Some("root@example.com"));

    let listed = access.list_rules(&root, &Default::default()).await.unwrap();
    assert_eq!(listed.total_records, 1);
    assert_eq!(listed.access_rules, std::slice::from_ref(&added));
    assert_eq!(access.get_rule(&root, added.id).await.unwrap(), added);

    let removed = access.remove_rule(&root, added.id).await.unwrap();
    assert_eq!(removed.id, added.id);
    let listed = access.list_rules(&root, &Default::default()).await.unwrap();
    assert!(listed.access_rules.is_empty(), "{listed:?}");
    let gone = access.get_rule(&root, added.id).await;
    assert!(matches!(gone, Err(AppError::NotFound(_))), "{gone:?}");
}

#[tokio::test]
async fn a_project_administrator_grants_no_role_wider_than_theirs() {
    let db = database().await;
    let access = Access::new(db.clone());
    let project = default_project(&db).await;
    let pat = person(&db, "pat", Role::ProjectAdministrator, project).await;

    access
        .add_rule(
            &pat,
            &rule("ada@example.com", Role::Researcher, "project", "default"),
        )
        .await
        .expect("a project administrator manages their project's members");

    let message = forbidden(
        access
            .add_rule(
                &pat,
                &rule(
                    "ada@example.com",
                    Role::DepartmentAdministrator,
                    "department",
                    "default",
                ),
            )
            .await,
    );
    assert!(
        message.contains("missing permission project-members:manage"),
        "{message}"
    );

    let system = NewApplication {
        name: "ci".into(),
        roles: vec![AppRole {
            role_id: Role::SystemAdministrator.id(),
            scope_type: "system".into(),
            scope_id: String::new(),
        }],
        expires_at: None,
        confirm_system_administrator: true,
    };
    let message = forbidden(access.create_app(&pat, &system).await);
    assert!(
        message.starts_with("roles[0].roleId: System administrator is wider than your own role"),
        "{message}"
    );

    let rules = db.access_rules().all().await.unwrap();
    assert_eq!(rules.len(), 1, "only the researcher's rule was stored");
    assert_eq!(rules[0].rule.role, Role::Researcher);
    assert!(db.applications().list(None).await.unwrap().is_empty());
}
