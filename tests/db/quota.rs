//! Departments, projects and their quotas, through the service, on both engines.

use app::error::AppError;
use serde_json::json;
use server::auth::{Admins, Authenticator};
use server::cluster::ClusterHandle;
use server::db::Database;
use server::service::{ServiceConfig, Services};
use std::sync::Arc;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::history::{AuditAction, AuditTarget, HistoryAction};
use tephra_core::model::org::{DepartmentRequest, PoolRef, PoolResources, ProjectRequest, Share};
use tephra_core::model::phase::Phase;
use tephra_core::model::principal::{Grant, Principal};

/// The services as start-up builds them, over `db` and without a cluster.
pub(crate) async fn services(db: &Database) -> Services {
    let config = ServiceConfig {
        db: db.clone(),
        cluster: ClusterHandle::detached("default"),
        profile: Arc::new(ClusterProfile::default()),
        max_pods: 1000,
        namespaces: tephra_core::domain::namespaces::NamespaceRules {
            prefix: "tephra-".into(),
            release: "tephra-system".into(),
        },
        metrics: server::metrics::Metrics::new(),
        prometheus: None,
    };
    let auth = Authenticator::new(db, false, None, Admins::default(), 3600, None)
        .await
        .expect("the authenticator");
    Services::new(config, auth)
}

pub(crate) fn admin(user_id: uuid::Uuid) -> Principal {
    Principal {
        user_id: user_id.to_string(),
        subject: "root".into(),
        display_name: "Root".into(),
        email: None,
        groups: Vec::new(),
        admin: true,
        dev_login: false,
        application: None,
        uid: None,
        gid: None,
        grants: vec![Grant {
            role: tephra_core::domain::authz::Role::SystemAdministrator,
            scope: tephra_core::domain::authz::Scope::System,
            scope_name: String::new(),
        }],
    }
}

pub(crate) fn gpus(deserved: Option<f64>, limit: Option<f64>) -> Vec<PoolResources> {
    vec![PoolResources {
        node_pool: PoolRef {
            id: None,
            name: "default".into(),
        },
        gpu: Share {
            deserved,
            limit,
            over_quota_weight: Some(1),
        },
        cpu: Share::default(),
        memory: Share::default(),
    }]
}

pub(crate) fn project(name: &str, parent: &str, resources: Vec<PoolResources>) -> ProjectRequest {
    ProjectRequest {
        name: name.into(),
        cluster_id: None,
        description: None,
        parent_id: Some(parent.into()),
        resources,
        default_node_pools: None,
        scheduling_rules: None,
        requested_namespace: None,
    }
}

/// The services, the system administrator "root", and a project `name` in the default department
/// with `resources`: how the quota stories begin.
pub(crate) async fn with_project(
    db: &Database,
    name: &str,
    resources: Vec<PoolResources>,
) -> (Services, Principal) {
    let services = services(db).await;
    let root = admin(super::user(db, "root").await);
    services
        .organisation()
        .create_project(&root, project(name, "default", resources))
        .await
        .expect("project created");
    (services, root)
}

pub(crate) fn department(name: &str, resources: Vec<PoolResources>) -> DepartmentRequest {
    DepartmentRequest {
        name: name.into(),
        cluster_id: None,
        description: None,
        resources,
    }
}

pub(crate) fn one_gpu(name: &str, project: &str) -> serde_json::Value {
    json!({ "name": name, "projectId": project,
            "spec": { "image": "pytorch/pytorch:2.4", "compute": { "gpuDevicesRequest": 1 } } })
}

/// Fifty submissions at once against a project with a limit of 10 GPUs: each fits the limit on
/// its own, so all are accepted, and exactly the ten the limit leaves room for are not queued
/// (the check and the write are one transaction, so racing submissions see each other); one
/// larger than the limit on its own is refused with the numbers and stores nothing.
pub async fn concurrent_submissions_queue_beyond_the_limit(db: &Database, _: &str) {
    let user = super::user(db, "root").await;
    let services = services(db).await;
    let root = admin(user);
    services
        .organisation()
        .create_department(&root, department("research", gpus(Some(8.0), Some(12.0))))
        .await
        .expect("department created");
    let created = services
        .organisation()
        .create_project(
            &root,
            project("vision", "research", gpus(Some(4.0), Some(10.0))),
        )
        .await
        .expect("project created");
    assert_eq!(created.parent_name, "research");
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let (services, root) = (services.clone(), root.clone());
            tokio::spawn(async move {
                services
                    .workloads()
                    .submit(
                        WorkloadKind::Training,
                        &root,
                        one_gpu(&format!("t{i}"), "vision"),
                    )
                    .await
            })
        })
        .collect();
    let mut accepted = Vec::new();
    for task in tasks {
        let submitted = task
            .await
            .expect("task ran")
            .expect("each fits the limit alone");
        accepted.push(submitted.listing.workload.id);
    }
    assert_eq!(accepted.len(), 50);
    assert_eq!(
        queued(db, &accepted).await,
        40,
        "room under the limit for 10, one each"
    );
    let before = db.workloads().count(&Default::default()).await.unwrap();
    let mut huge = one_gpu("huge", "vision");
    huge["spec"]["compute"]["gpuDevicesRequest"] = json!(11);
    let Err(AppError::Rejected(errors)) = services
        .workloads()
        .submit(WorkloadKind::Training, &root, huge)
        .await
    else {
        panic!("11 GPUs can never run under a limit of 10");
    };
    assert_eq!(errors[0].path, "spec.compute", "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("asks 11 GPUs in total; project \"vision\" may use at most 10 GPUs"),
        "{errors:?}"
    );
    assert_eq!(
        db.workloads().count(&Default::default()).await.unwrap(),
        before
    );
    // The department's limit (12) caps its projects together: 10 already asked by vision.
    services
        .organisation()
        .create_project(&root, project("speech", "research", gpus(Some(2.0), None)))
        .await
        .expect("second project");
    let mut speech = Vec::new();
    for i in 0..5 {
        let submitted = services
            .workloads()
            .submit(
                WorkloadKind::Training,
                &root,
                one_gpu(&format!("s{i}"), "speech"),
            )
            .await
            .expect("queued behind the department's work, not refused");
        speech.push(submitted.listing.workload.id);
    }
    assert_eq!(
        queued(db, &speech).await,
        3,
        "12 in the department, 10 used by vision"
    );
    // The department is at its limit, but 6 of vision's 10 are borrowed beyond its quota of 4:
    // a project within its own quota is admitted, and Volcano reclaims the borrowed GPUs.
    services
        .organisation()
        .create_project(&root, project("audio", "research", gpus(Some(2.0), None)))
        .await
        .expect("third project");
    let audio = services
        .workloads()
        .submit(WorkloadKind::Training, &root, one_gpu("a0", "audio"))
        .await
        .expect("within audio's quota");
    assert_eq!(
        queued(db, &[audio.listing.workload.id]).await,
        0,
        "the borrowed GPUs do not count against it"
    );
}

/// How many of `ids` their history says were queued at admission.
async fn queued(db: &Database, ids: &[uuid::Uuid]) -> usize {
    let mut queued = 0;
    for id in ids {
        let events = db
            .audit()
            .for_target(AuditTarget::Workload, *id)
            .await
            .unwrap();
        if events
            .iter()
            .any(|e| e.action == AuditAction::Workload(HistoryAction::Queued))
        {
            queued += 1;
        }
    }
    queued
}

/// A project's page: what it holds (placed) and waits for (admitted), per resource and by the
/// user who submitted it; only its members and administrators may read it.
pub async fn a_projects_usage_splits_placed_and_waiting_work_by_user(db: &Database, _: &str) {
    let (services, root) = with_project(db, "shared", gpus(Some(4.0), Some(8.0))).await;
    let ada = admin(super::user(db, "ada").await);
    let bo = admin(super::user(db, "bo").await);
    let mut ada_first = None;
    for (who, name) in [(&ada, "a1"), (&ada, "a2"), (&bo, "b1")] {
        let accepted = services
            .workloads()
            .submit(WorkloadKind::Training, who, one_gpu(name, "shared"))
            .await
            .expect("admitted");
        ada_first.get_or_insert(accepted.listing.workload.id);
    }
    db.workloads()
        .record_status(
            ada_first.unwrap(),
            super::moved(Phase::Running, Phase::Creating, Phase::Running),
        )
        .await
        .unwrap()
        .expect("status written");

    let usage = services
        .organisation()
        .project_usage(&root, "shared")
        .await
        .expect("the administrator reads it");
    assert_eq!(usage.project.trainings, 3);
    let gpu = &usage.resources[0];
    assert_eq!((gpu.quota, gpu.limit), (Some(4.0), Some(8.0)));
    assert_eq!((gpu.allocated, gpu.pending), (1.0, 2.0), "{usage:?}");
    let users: Vec<_> = usage
        .users
        .iter()
        .map(|u| {
            (
                u.user.as_str(),
                u.trainings,
                u.allocated_gpus,
                u.pending_gpus,
            )
        })
        .collect();
    assert_eq!(users, [("User ada", 2, 1.0, 1.0), ("User bo", 1, 0.0, 1.0)]);
    assert_eq!(usage.pools[0].pool, "default");

    let mut stranger = admin(super::user(db, "stranger").await);
    stranger.admin = false;
    stranger.grants.clear();
    let refused = services
        .organisation()
        .project_usage(&stranger, "shared")
        .await;
    assert!(
        matches!(refused, Err(AppError::Forbidden(_) | AppError::NotFound(_))),
        "{refused:?}"
    );
}

/// Edits of a live training (seed 001): admitted against the project's limit without the
/// training's own use, refused beyond it with nothing stored, and of several edits made from the
/// same read exactly one is stored.
pub async fn edits_are_admitted_without_their_own_use_and_one_of_racing_edits_wins(
    db: &Database,
    _: &str,
) {
    let (services, root) = with_project(db, "elastic", gpus(Some(2.0), Some(4.0))).await;
    let ddp = json!({ "name": "ddp", "projectId": "elastic",
        "spec": { "image": "pytorch/pytorch:2.4", "distributedFramework": "PyTorch",
                  "numWorkers": 1, "compute": { "gpuDevicesRequest": 1 } } });
    let accepted = services
        .workloads()
        .submit(WorkloadKind::Distributed, &root, ddp)
        .await
        .expect("two GPUs admitted");
    let id = accepted.listing.workload.id.to_string();
    let department = accepted.listing.department_id;

    // Four GPUs with its own two left out of the use: within the limit of 4.
    let edited = services
        .workloads()
        .edit(None, &root, &id, &json!({ "numWorkers": 3 }))
        .await
        .expect("scaled to the limit");
    assert_eq!(edited.workload.spec["spec"]["numWorkers"], 3);
    let refused = services
        .workloads()
        .edit(None, &root, &id, &json!({ "numWorkers": 4 }))
        .await
        .expect_err("five GPUs are beyond the limit");
    let AppError::Rejected(errors) = refused else {
        panic!("a refusal by field: {refused:?}");
    };
    assert!(
        errors[0]
            .message
            .contains("project \"elastic\" may use at most 4 GPUs"),
        "{errors:?}"
    );
    let stored = db.workloads().get(edited.workload.id).await.unwrap();
    assert_eq!(
        stored.spec["spec"]["numWorkers"], 3,
        "a refused edit stores nothing"
    );

    // Four edits from the same read: one is stored, the others find the request changed. None
    // asks for the 3 workers it has: an edit that changes nothing leaves the request as read, so
    // another edit after it rightly still applies.
    let racing: Vec<_> = [1, 2, 4, 5]
        .into_iter()
        .map(|workers| {
            let (db, stored) = (db.clone(), stored.clone());
            tokio::spawn(async move {
                let mut spec = stored.spec.clone();
                spec["spec"]["numWorkers"] = json!(workers);
                let change = server::db::workloads::Change {
                    actor: None,
                    action: tephra_core::model::history::HistoryAction::Edit,
                    detail: json!({}),
                };
                db.workloads()
                    .edit_admitted(
                        &stored,
                        department,
                        &spec,
                        Default::default(),
                        change,
                        |_| Ok::<(), ()>(()),
                    )
                    .await
                    .expect("the store answers")
                    .expect("admitted")
            })
        })
        .collect();
    let mut won = 0;
    for task in racing {
        if task.await.expect("task ran").is_some() {
            won += 1;
        }
    }
    assert_eq!(won, 1, "exactly one of the racing edits is stored");
}
