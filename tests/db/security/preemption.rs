//! A researcher cannot get work past the project's quota that Volcano may never take back: a
//! request is non-preemptible when any of its pod groups is, not only its first.

use super::super::quota::{gpus, with_project};
use super::principal;
use app::error::AppError;
use serde_json::json;
use server::db::Database;
use tephra_core::domain::authz::{Role, Scope};
use tephra_core::domain::request::WorkloadKind;

/// Project `capped` has a quota of 1 GPU (limit 4). A distributed training whose master is
/// preemptible and whose two 1-GPU workers are not would hold 2 GPUs over quota that reclaim
/// cannot free: refused naming the compute, nothing stored. The same with preemptible workers
/// is admitted over quota, as any preemptible work is.
pub async fn non_preemptible_workers_stay_within_quota(db: &Database, _: &str) {
    let (services, _) = with_project(db, "capped", gpus(Some(1.0), Some(4.0))).await;
    let project = db.projects().by_name("capped").await.unwrap();
    let researcher = principal(
        super::super::user(db, "res").await,
        Role::Researcher,
        Scope::Project(project.id.to_string()),
    );
    let ddp = |workers: &str| {
        json!({ "name": format!("ddp-{workers}"), "projectId": "capped",
            "masterSpec": { "image": "x", "preemptibility": "preemptible" },
            "spec": { "image": "pytorch/pytorch:2.4", "distributedFramework": "PyTorch",
                      "masterSpecSameAsWorker": false, "numWorkers": 2,
                      "preemptibility": workers, "compute": { "gpuDevicesRequest": 1 } } })
    };
    let refused = services
        .workloads()
        .submit(
            WorkloadKind::Distributed,
            &researcher,
            ddp("non-preemptible"),
        )
        .await;
    let Err(AppError::Rejected(errors)) = &refused else {
        panic!("expected a 400: {refused:?}");
    };
    assert_eq!(errors[0].path, "spec.compute", "{errors:?}");
    assert!(
        errors[0].message.contains("is non-preemptible") && errors[0].message.contains("capped"),
        "{errors:?}"
    );
    assert_eq!(db.workloads().count(&Default::default()).await.unwrap(), 0);
    services
        .workloads()
        .submit(WorkloadKind::Distributed, &researcher, ddp("preemptible"))
        .await
        .expect("preemptible work may borrow beyond the quota");
}
