//! Who changed a department's or a project's quota: every create, change and delete is in the
//! audit trail with what it was and what it became, written with the change; a refused one
//! leaves the unit and the trail as they were.

use super::super::quota::{admin, department, gpus, project, services};
use super::{principal, researcher};
use app::error::AppError;
use server::db::Database;
use server::db::audit::AuditEvent;
use tephra_core::domain::authz::{Role, Scope};
use tephra_core::model::access::AuditQuery;

/// A system administrator makes a department and raises its quota; its administrator makes a
/// project, is refused a quota past the department's, raises it within, and deletes it; the
/// system administrator deletes the department. Each act is one entry naming the actor, the
/// unit, and its quota before and after. A researcher's and another department's administrator's
/// attempts, and the over-quota one, are refused and add nothing.
pub async fn every_department_and_project_change_is_audited_and_a_refused_one_leaves_none(
    db: &Database,
    _: &str,
) {
    let services = services(db).await;
    let org = services.organisation();
    let root_id = super::super::user(db, "root").await;
    let root = admin(root_id);
    // The default project, made by Tephra itself on start, is the trail's first such entry.
    db.projects().ensure_default().await.unwrap();
    let start = after(db, 0).await;
    assert_eq!(start.len(), 1, "{start:?}");
    assert_eq!(
        (start[0].action.as_str(), start[0].actor_id),
        ("project.create", None)
    );
    let made = org
        .create_department(&root, department("research", gpus(Some(8.0), None)))
        .await
        .expect("root makes a department");
    let [created] = &after(db, start[0].id).await[..] else {
        panic!("one entry for one department");
    };
    assert_eq!(
        (created.action.as_str(), created.actor_id),
        ("department.create", Some(root_id))
    );
    assert_eq!(created.detail["departmentId"], made.id, "{created:?}");
    assert_eq!(
        created.detail["after"]["resources"][0]["gpu"]["deserved"],
        8.0
    );
    assert!(created.detail["before"].is_null(), "{created:?}");

    org.update_department(
        &root,
        &made.id,
        department("research", gpus(Some(16.0), None)),
    )
    .await
    .expect("root raises its quota");
    let [raised] = &after(db, created.id).await[..] else {
        panic!("one entry for one change");
    };
    assert_eq!(raised.action.as_str(), "department.update");
    assert_eq!(
        raised.detail["before"]["resources"][0]["gpu"]["deserved"],
        8.0
    );
    assert_eq!(
        raised.detail["after"]["resources"][0]["gpu"]["deserved"],
        16.0
    );
    assert!(
        raised.detail["after"].get("description").is_none(),
        "a change keeps only what changed: {raised:?}"
    );

    let head_id = super::super::user(db, "head").await;
    let head = principal(
        head_id,
        Role::DepartmentAdministrator,
        Scope::Department(made.id.clone()),
    );
    let vision = org
        .create_project(&head, project("vision", &made.id, gpus(Some(4.0), None)))
        .await
        .expect("the department's administrator makes a project");
    let [opened] = &after(db, raised.id).await[..] else {
        panic!("one entry for one project");
    };
    assert_eq!(
        (
            opened.action.as_str(),
            opened.actor_id,
            opened.detail["name"].as_str()
        ),
        ("project.create", Some(head_id), Some("vision"))
    );
    let stored = db.projects().by_name("vision").await.unwrap();
    assert_eq!(opened.target_id, stored.id, "a project's entry targets it");
    assert_eq!(opened.detail["namespace"], vision.requested_namespace);

    let too_much = org
        .update_project(
            &head,
            "vision",
            project("vision", &made.id, gpus(Some(32.0), None)),
        )
        .await
        .unwrap_err();
    assert!(matches!(too_much, AppError::Rejected(_)), "{too_much:?}");
    let outsider = super::department_admin(db).await;
    let researcher = researcher(db).await;
    for who in [&outsider, &researcher] {
        let refused = org
            .update_project(
                who,
                "vision",
                project("vision", &made.id, gpus(Some(6.0), None)),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(refused, AppError::Forbidden(_) | AppError::NotFound(_)),
            "{refused:?}"
        );
        let refused = org.delete_department(who, &made.id).await.unwrap_err();
        assert!(matches!(refused, AppError::Forbidden(_)), "{refused:?}");
    }
    assert_eq!(db.projects().by_name("vision").await.unwrap(), stored);
    assert!(
        after(db, opened.id).await.is_empty(),
        "refusals record nothing"
    );

    org.update_project(
        &head,
        "vision",
        project("vision", &made.id, gpus(Some(6.0), None)),
    )
    .await
    .expect("a quota within the department's");
    org.delete_project(&head, "vision")
        .await
        .expect("an empty project");
    org.delete_department(&root, &made.id)
        .await
        .expect("an empty department");
    let rest = after(db, opened.id).await;
    let acts: Vec<_> = rest
        .iter()
        .map(|e| (e.action.as_str(), e.actor_id))
        .collect();
    assert_eq!(
        acts,
        [
            ("project.update", Some(head_id)),
            ("project.delete", Some(head_id)),
            ("department.delete", Some(root_id)),
        ],
        "{rest:?}"
    );
    assert_eq!(
        rest[0].detail["before"]["resources"][0]["gpu"]["deserved"],
        4.0
    );
    assert_eq!(
        rest[0].detail["after"]["resources"][0]["gpu"]["deserved"],
        6.0
    );
    assert!(rest[1].detail["after"].is_null(), "{:?}", rest[1]);
    assert_eq!(rest[2].detail["name"], "research");
    shown_as_the_api_names_them(db, &made.id).await;
}

/// The trail as administrators read it: a department's entry names its number, not the nil
/// UUID the store keeps for it; a target type no entry can have is a 400 naming the field.
async fn shown_as_the_api_names_them(db: &Database, department_id: &str) {
    let services = services(db).await;
    let root = admin(super::super::user(db, "root").await);
    let query = |target: &str| AuditQuery {
        target_type: Some(target.into()),
        ..AuditQuery::default()
    };
    let page = services
        .access()
        .audit(&root, &query("department"))
        .await
        .unwrap();
    assert_eq!(page.total, 3, "{page:?}");
    assert!(
        page.events.iter().all(|e| e.target_id == department_id),
        "{page:?}"
    );
    let unknown = services.access().audit(&root, &query("quota")).await;
    let Err(AppError::Invalid { field, message }) = unknown else {
        panic!("expected a 400, got {unknown:?}");
    };
    assert_eq!(field, "targetType");
    assert!(message.contains("department"), "{message}");
}

/// The audit trail's department and project entries after entry `id`, oldest first.
async fn after(db: &Database, id: i64) -> Vec<AuditEvent> {
    let mut events = db.audit().recent(100).await.unwrap();
    events.retain(|e| {
        let action = e.action.as_str();
        e.id > id && (action.starts_with("department.") || action.starts_with("project."))
    });
    events.reverse();
    events
}
