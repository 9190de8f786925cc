//! A stranger cannot tell a taken name or id from a free one: every place a project or a
//! department is named by its name, Run:ai number or UUID answers a caller who holds nothing in
//! it exactly as it answers a key that names nothing. Before, a researcher who sent another
//! tenant's project name got a 403 carrying its UUID, and a free name a 400.

use super::super::quota::{admin, services};
use super::{department_admin, project, researcher, stored};
use app::error::AppError;
use serde_json::json;
use server::db::Database;
use server::service::Services;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::access::NewAccessRule;
use tephra_core::model::org::DepartmentRequest;
use tephra_core::model::principal::Principal;

/// The refusal with the key it was asked about taken out, so two keys' answers compare.
fn answer<T: std::fmt::Debug>(result: Result<T, AppError>, key: &str) -> String {
    match result {
        Ok(found) => panic!("{key:?} was answered: {found:?}"),
        // The message is quoted inside the error's Debug form, so its quotes are escaped.
        Err(error) => format!("{error:?}").replace(&format!("\\\"{key}\\\""), "KEY"),
    }
}

/// What each place that takes a project key answers `who` for `key`.
async fn project_answers(services: &Services, who: &Principal, key: &str) -> Vec<String> {
    let workloads = services.workloads();
    let organisation = services.organisation();
    let request = json!({ "name": "probe", "projectId": key,
        "spec": { "image": "pytorch/pytorch:2.4" } });
    let rule = NewAccessRule {
        subject_id: "eve@example.org".into(),
        subject_type: "user".into(),
        role_id: 4,
        scope_id: key.into(),
        scope_type: "project".into(),
        cluster_id: None,
    };
    vec![
        answer(
            workloads.submit(WorkloadKind::Training, who, request).await,
            key,
        ),
        answer(workloads.readable_project(who, key).await, key),
        answer(organisation.org_project(who, key).await, key),
        answer(organisation.form_policy(who, key).await, key),
        answer(
            organisation
                .policy_scope(who, "project", None, Some(key))
                .await,
            key,
        ),
        answer(services.access().add_rule(who, &rule).await, key),
    ]
}

/// What each place that takes a department key answers `who` for `key`.
async fn department_answers(services: &Services, who: &Principal, key: &str) -> Vec<String> {
    let organisation = services.organisation();
    let rule = NewAccessRule {
        subject_id: "eve@example.org".into(),
        subject_type: "user".into(),
        role_id: 4,
        scope_id: key.into(),
        scope_type: "department".into(),
        cluster_id: None,
    };
    let mut inside = project("probe", None);
    inside.parent_id = Some(key.into());
    vec![
        answer(organisation.department(who, key).await, key),
        answer(
            organisation
                .policy_scope(who, "department", Some(key), None)
                .await,
            key,
        ),
        answer(services.access().add_rule(who, &rule).await, key),
        answer(organisation.create_project(who, inside).await, key),
    ]
}

pub async fn a_stranger_cannot_tell_a_taken_name_or_id_from_a_free_one(db: &Database, _: &str) {
    let services = services(db).await;
    let root = admin(super::super::user(db, "root").await);
    let other = DepartmentRequest {
        name: "acquisitions".into(),
        cluster_id: None,
        description: None,
        resources: Vec::new(),
    };
    let department = services
        .organisation()
        .create_department(&root, other)
        .await
        .expect("a department");
    let mut secret = project("merger", None);
    secret.parent_id = Some("acquisitions".into());
    services
        .organisation()
        .create_project(&root, secret)
        .await
        .expect("a project in it");
    let merger = db.projects().by_name("merger").await.unwrap();
    let actors = [researcher(db).await, department_admin(db).await];
    let before = stored(db).await;

    for who in actors {
        let taken = [
            merger.name.clone(),
            merger.number.to_string(),
            merger.id.to_string(),
        ];
        let free = [
            "no-such-project",
            "987654",
            "00000000-0000-4000-8000-000000000000",
        ];
        for (taken, free) in taken.iter().zip(free) {
            let (a, b) = (
                project_answers(&services, &who, taken).await,
                project_answers(&services, &who, free).await,
            );
            assert_eq!(a, b, "{taken:?} and {free:?} answered alike");
            assert!(a[0].contains("no project you can see"), "{}", a[0]);
        }
        for (taken, free) in [
            (department.name.as_str(), "no-such"),
            (&*department.id, "9876"),
        ] {
            let (a, b) = (
                department_answers(&services, &who, taken).await,
                department_answers(&services, &who, free).await,
            );
            assert_eq!(a, b, "{taken:?} and {free:?} answered alike");
            assert!(a[0].contains("no department you can see"), "{}", a[0]);
        }
    }
    assert_eq!(stored(db).await, before, "nothing stored changed");

    // Someone who holds something there still hears why they may not act: a viewer of the
    // project is refused the submit by permission, with the project named.
    let viewer = super::principal(
        super::super::user(db, "viewer").await,
        tephra_core::domain::authz::Role::Viewer,
        tephra_core::domain::authz::Scope::Project(merger.id.to_string()),
    );
    let request = json!({ "name": "probe", "projectId": "merger",
        "spec": { "image": "pytorch/pytorch:2.4" } });
    let refused = services
        .workloads()
        .submit(WorkloadKind::Training, &viewer, request)
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, AppError::Forbidden(m) if m.contains("workloads:manage") && m.contains("merger")),
        "{refused:?}"
    );
}
