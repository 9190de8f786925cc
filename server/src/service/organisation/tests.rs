//! The organisation service on an in-memory database without a cluster: a system administrator
//! creates a department and a project in it; a researcher may do neither, and nothing is stored.

use super::Organisation;
use crate::db::Database;
use crate::service::testing::{admin, cluster, database, default_project, namespaces, person};
use app::error::AppError;
use tephra_core::domain::authz::Role;
use tephra_core::model::org::{DepartmentRequest, PoolRef, PoolResources, ProjectRequest, Share};

fn organisation(db: &Database) -> Organisation {
    Organisation::new(db.clone(), cluster(), namespaces())
}

fn gpus(deserved: f64, limit: f64) -> Vec<PoolResources> {
    vec![PoolResources {
        node_pool: PoolRef {
            id: None,
            name: "default".into(),
        },
        gpu: Share {
            deserved: Some(deserved),
            limit: Some(limit),
            over_quota_weight: None,
        },
        cpu: Share::default(),
        memory: Share::default(),
    }]
}

fn department(name: &str) -> DepartmentRequest {
    DepartmentRequest {
        name: name.into(),
        cluster_id: None,
        description: Some("research groups".into()),
        resources: gpus(8.0, 12.0),
    }
}

fn project(name: &str, department: &str) -> ProjectRequest {
    project_with(name, department, 4.0, 8.0)
}

fn project_with(name: &str, department: &str, deserved: f64, limit: f64) -> ProjectRequest {
    ProjectRequest {
        name: name.into(),
        cluster_id: None,
        description: None,
        parent_id: Some(department.into()),
        resources: gpus(deserved, limit),
        default_node_pools: None,
        scheduling_rules: None,
        requested_namespace: None,
    }
}

fn forbidden<T: std::fmt::Debug>(result: Result<T, AppError>) -> String {
    match result {
        Err(AppError::Forbidden(message)) => message,
        other => panic!("expected a 403, got {other:?}"),
    }
}

#[tokio::test]
async fn an_administrator_creates_a_department_and_a_project_in_it() {
    let db = database().await;
    let service = organisation(&db);
    let root = admin(&db).await;

    let research = service
        .create_department(&root, department("research"))
        .await
        .expect("a system administrator creates a department");
    assert_eq!(research.name, "research");
    assert_eq!(research.cluster_id, "default");
    assert_eq!(research.queue, "tephra-research.department");
    let vision = service
        .create_project(&root, project("vision", "research"))
        .await
        .expect("and a project within its quota");
    assert_eq!(vision.parent_id, research.id);
    assert_eq!(vision.parent_name, "research");
    assert_eq!(vision.requested_namespace, "tephra-vision");
    assert_eq!(vision.workloads, 0);

    let names: Vec<String> = service
        .org_projects(&root)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["default", "vision"]);
    let by_name = service.department(&root, "research").await.unwrap();
    assert_eq!(by_name.id, research.id);

    let over = service
        .create_project(&root, project_with("speech", "research", 10.0, 12.0))
        .await
        .expect_err("a quota past its department's");
    assert!(matches!(over, AppError::Rejected(_)), "{over:?}");
}

#[tokio::test]
async fn a_researcher_may_create_neither_and_nothing_is_stored() {
    let db = database().await;
    let service = organisation(&db);
    let researcher = person(&db, "ada", Role::Researcher, default_project(&db).await).await;

    let message = forbidden(
        service
            .create_department(&researcher, department("research"))
            .await,
    );
    assert!(
        message.contains("missing permission system:manage"),
        "{message}"
    );
    let message = forbidden(
        service
            .create_project(&researcher, project("vision", "default"))
            .await,
    );
    assert!(
        message.contains("missing permission projects:manage"),
        "{message}"
    );

    assert_eq!(db.departments().list().await.unwrap().len(), 1);
    assert_eq!(db.projects().list().await.unwrap().len(), 1);
    let seen: Vec<String> = service
        .org_projects(&researcher)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(seen, ["default"], "a researcher sees their own project");
}
