//! Departments and projects as organisation units: their quotas, names, deletes and Run:ai ids,
//! through the service, on both engines.

use super::quota::{admin, department, gpus, one_gpu, project, services};
use super::security::principal;
use app::error::AppError;
use serde_json::json;
use server::db::Database;
use tephra_core::domain::authz::{Role, Scope};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::fit::Verdict;
use tephra_core::model::org::DepartmentRequest;

/// Departments and projects: quotas within the department's, names kept, deletes refused
/// while something is inside, and Run:ai's integer ids.
pub async fn org_units_check_quotas_and_refuse_deleting_what_is_used(db: &Database, _: &str) {
    let user = super::user(db, "root").await;
    let services = services(db).await;
    let root = admin(user);
    let department = services
        .organisation()
        .create_department(
            &root,
            DepartmentRequest {
                description: Some("the lab".into()),
                ..department("research", gpus(Some(4.0), Some(6.0)))
            },
        )
        .await
        .unwrap();
    assert!(department.id.parse::<i64>().is_ok(), "{}", department.id);
    let vision = services
        .organisation()
        .create_project(
            &root,
            project("vision", &department.id, gpus(Some(3.0), Some(6.0))),
        )
        .await
        .unwrap();
    assert!(vision.id.parse::<i64>().is_ok());
    assert_eq!(vision.requested_namespace, "tephra-vision");
    let Err(AppError::Rejected(errors)) = services
        .organisation()
        .create_project(
            &root,
            project("speech", "research", gpus(Some(2.0), Some(8.0))),
        )
        .await
    else {
        panic!("over the department's quota and limit");
    };
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("would total 5 GPUs; its quota is 4 GPUs")
    );
    let Err(AppError::Rejected(errors)) = services
        .organisation()
        .create_project(
            &root,
            project("Bad_Name", "research", gpus(Some(5.0), Some(1.0))),
        )
        .await
    else {
        panic!("bad name and limit below quota");
    };
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["name", "resources[0].gpu.limit"]);
    // The project is found by its integer id and by its name.
    let by_id = services
        .organisation()
        .org_project(&root, &vision.id)
        .await
        .unwrap();
    let by_name = services
        .organisation()
        .org_project(&root, "vision")
        .await
        .unwrap();
    assert_eq!(by_id, by_name);
    services
        .workloads()
        .submit(WorkloadKind::Training, &root, one_gpu("busy", &vision.id))
        .await
        .expect("submitted by integer id");
    // Whether more would fit, without storing anything.
    let fit = |gpus: u32| {
        let (services, root) = (services.clone(), root.clone());
        async move {
            let body = json!({ "name": "probe", "projectId": "vision",
                "spec": { "image": "x", "compute": { "gpuDevicesRequest": gpus } } });
            services
                .workloads()
                .fit(WorkloadKind::Training, &root, &body)
                .await
                .unwrap()
        }
    };
    let within = fit(1).await;
    assert_eq!(within.verdict, Verdict::WithinQuota, "{within:?}");
    assert_eq!(within.project_used.gpus, 1.0);
    assert_eq!(within.project_quota.gpus, Some(3.0));
    let over = fit(3).await;
    assert_eq!(over.verdict, Verdict::OverQuota, "{over:?}");
    assert!(
        over.message.contains("4 GPUs with this one, quota 3"),
        "{}",
        over.message
    );
    // Within the limit of 6 on its own, beside the 1 in use it waits for 1 to free.
    let queued = fit(6).await;
    assert_eq!(queued.verdict, Verdict::Queued, "{queued:?}");
    assert!(
        queued.message.contains("it starts when 1 GPU is free"),
        "{}",
        queued.message
    );
    let refused = fit(7).await;
    assert_eq!(refused.verdict, Verdict::Refused);
    assert_eq!(refused.details[0].field, "spec.compute");
    assert_eq!(refused.free_gpus, None, "no cluster, no nodes known");
    let Err(AppError::Conflict(message)) = services
        .organisation()
        .delete_project(&root, "vision")
        .await
    else {
        panic!("a project with a live workload");
    };
    assert!(message.contains("still has workloads: busy"), "{message}");
    let Err(AppError::Conflict(message)) = services
        .organisation()
        .delete_department(&root, "research")
        .await
    else {
        panic!("a department with a project");
    };
    assert!(message.contains("still has projects: vision"), "{message}");
    let mut renamed = project("other", "research", Vec::new());
    renamed.description = Some("x".into());
    let Err(AppError::Invalid { field, message }) = services
        .organisation()
        .update_project(&root, "vision", renamed)
        .await
    else {
        panic!("a project keeps its name");
    };
    assert_eq!(field, "name");
    assert!(message.contains("keeps its name"), "{message}");
}

/// Two of a department's administrators raise two projects' quotas at once, each within the department's quota on
/// its own and over it together: the check reads the other projects under the department's lock
/// in the transaction that writes, so exactly one is stored and the other is refused naming
/// `resources`. The same for two new projects made at once.
pub async fn racing_project_quotas_never_pass_their_department_together(db: &Database, _: &str) {
    let services = services(db).await;
    let org = services.organisation();
    let root = admin(super::user(db, "root").await);
    let lab = org
        .create_department(&root, department("lab", gpus(Some(8.0), None)))
        .await
        .unwrap();
    // Two of the department's administrators, each raising the project they look after: the
    // actors who would want more than the department holds.
    let [alice, bob] = [super::user(db, "alice").await, super::user(db, "bob").await].map(|user| {
        principal(
            user,
            Role::DepartmentAdministrator,
            Scope::Department(lab.id.clone()),
        )
    });
    for name in ["a", "b"] {
        org.create_project(&alice, project(name, "lab", gpus(Some(2.0), None)))
            .await
            .unwrap();
    }
    let (first, second) = tokio::join!(
        org.update_project(&alice, "a", project("a", "lab", gpus(Some(6.0), None))),
        org.update_project(&bob, "b", project("b", "lab", gpus(Some(6.0), None))),
    );
    one_of_two(first, second);
    let held: f64 = db
        .projects()
        .list()
        .await
        .unwrap()
        .iter()
        .filter(|p| p.project.name == "a" || p.project.name == "b")
        .map(|p| p.project.resources.0[0].gpu.deserved.unwrap_or(0.0))
        .sum();
    assert_eq!(held, 8.0, "the department's quota, not more");
    let (first, second) = tokio::join!(
        org.update_project(&alice, "a", project("a", "lab", gpus(Some(0.0), None))),
        org.update_project(&bob, "b", project("b", "lab", gpus(Some(0.0), None))),
    );
    first.and(second).expect("both lowered to nothing");
    let (first, second) = tokio::join!(
        org.create_project(&alice, project("c", "lab", gpus(Some(5.0), None))),
        org.create_project(&bob, project("d", "lab", gpus(Some(5.0), None))),
    );
    one_of_two(first, second);
}

/// Exactly one of two racing changes stored, the other a 400 naming `resources`.
fn one_of_two<T: std::fmt::Debug>(first: Result<T, AppError>, second: Result<T, AppError>) {
    let refused = match (first, second) {
        (Ok(_), Err(refused)) | (Err(refused), Ok(_)) => refused,
        other => panic!("exactly one of two may pass: {other:?}"),
    };
    let AppError::Rejected(errors) = &refused else {
        panic!("expected a 400, got {refused:?}");
    };
    assert_eq!(errors[0].path, "resources", "{errors:?}");
    assert!(
        errors[0].message.contains("its quota is 8 GPUs"),
        "{errors:?}"
    );
}

/// A department deleted while a project is made in it ends one way or the other, never both and
/// never a 500: the project is made and the delete refused naming it, or the department is gone
/// and the project refused. Five rounds, so the two meet in more than one order.
pub async fn a_department_deleted_while_a_project_is_made_in_it_ends_one_way(
    db: &Database,
    _: &str,
) {
    let services = services(db).await;
    let org = services.organisation();
    let root = admin(super::user(db, "root").await);
    for round in 0..5 {
        let name = format!("doomed{round}");
        org.create_department(&root, department(&name, gpus(Some(8.0), None)))
            .await
            .unwrap();
        let late = format!("late{round}");
        let (made, deleted) = tokio::join!(
            org.create_project(&root, project(&late, &name, gpus(Some(1.0), None))),
            org.delete_department(&root, &name),
        );
        let stored = db.projects().by_name(&late).await.ok();
        match (made, deleted) {
            (Ok(_), Err(AppError::Conflict(message))) => {
                assert!(message.contains(&late), "{message}");
                assert!(stored.is_some());
            }
            (Err(AppError::NotFound(_) | AppError::Invalid { .. }), Ok(())) => {
                assert!(stored.is_none(), "no project in a department that is gone");
            }
            other => panic!("round {round}: {other:?}"),
        }
    }
}

/// A project deleted while a training is submitted into it ends one way or the other, never a
/// 500: the training is stored and the delete refused naming it, or the project is gone and the
/// submit refused. Five rounds, so the two meet in more than one order.
pub async fn a_project_deleted_while_a_training_is_submitted_into_it_ends_one_way(
    db: &Database,
    _: &str,
) {
    let services = services(db).await;
    let org = services.organisation();
    let root = admin(super::user(db, "root").await);
    org.create_department(&root, department("lab", gpus(Some(8.0), None)))
        .await
        .unwrap();
    for round in 0..5 {
        let name = format!("brief{round}");
        org.create_project(&root, project(&name, "lab", gpus(Some(1.0), None)))
            .await
            .unwrap();
        let training = format!("late{round}");
        let (submitted, deleted) = tokio::join!(
            services
                .workloads()
                .submit(WorkloadKind::Training, &root, one_gpu(&training, &name)),
            org.delete_project(&root, &name),
        );
        let project = db.projects().by_name(&name).await.ok();
        match (submitted, deleted) {
            (Ok(_), Err(AppError::Conflict(message))) => {
                assert!(message.contains(&training), "{message}");
                assert!(project.is_some(), "the project is kept with its training");
            }
            (Err(AppError::Invalid { field, message }), Ok(())) => {
                assert_eq!(field, "projectId", "{message}");
                assert!(project.is_none(), "the project is gone");
            }
            other => panic!("round {round}: {other:?}"),
        }
    }
    // Every project kept holds the training that won its round; no training lost its project.
    let kept = db.projects().list().await.unwrap();
    assert!(kept.iter().all(|p| p.workloads == 1), "{kept:?}");
    let stored = db.workloads().count(&Default::default()).await.unwrap();
    assert_eq!(stored, kept.len() as i64);
}
