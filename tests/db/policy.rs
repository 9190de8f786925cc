//! Policies through the service, on both engines: the built-in node protection, inner scopes
//! that may only narrow, defaults that fill a request, and a resume held to today's policy.

use super::quota::{admin, services};
use app::error::AppError;
use serde_json::{Value, json};
use server::db::Database;
use tephra_core::domain::authz::Scope;
use tephra_core::domain::policy::PolicyKind;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::action::Action;
use tephra_core::model::phase::Phase;

fn training(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    spec["image"] = json!("pytorch/pytorch:2.4");
    json!({ "name": name, "projectId": "default", "spec": spec })
}

fn refusals(result: Result<impl std::fmt::Debug, AppError>) -> Vec<(String, String)> {
    match result {
        Err(AppError::Rejected(errors)) => {
            errors.into_iter().map(|e| (e.path, e.message)).collect()
        }
        other => panic!("expected a 400 with details, got {other:?}"),
    }
}

pub async fn policies_protect_nodes_narrow_inward_and_fill_defaults(db: &Database, _: &str) {
    let user = super::user(db, "root").await;
    let services = services(db).await;
    let root = admin(user);
    let project = Scope::Project(db.projects().ensure_default().await.unwrap().id.to_string());
    // The built-in system policy refuses what reaches into the node.
    let host = training(
        "host",
        json!({ "security": { "hostNetwork": true },
        "storage": { "hostPath": [{ "name": "h", "path": "/var/log", "mountPath": "/logs" }] } }),
    );
    let found = refusals(
        services
            .workloads()
            .submit(WorkloadKind::Training, &root, host.clone())
            .await,
    );
    assert!(
        found.contains(&(
            "spec.security.hostNetwork".into(),
            "cannot be changed: it is locked to unset (the system policy)".into()
        )),
        "{found:?}"
    );
    assert!(
        found.iter().any(|(p, _)| p == "spec.storage.hostPath"),
        "{found:?}"
    );
    // A project policy narrows: at most 2 GPUs, and a default CPU request.
    let narrow = json!({ "defaults": { "compute": { "cpuCoreRequest": 0.5 } },
                         "rules": { "compute": { "gpuDevicesRequest": { "max": 2 } } } });
    services
        .organisation()
        .set_policy(&root, &project, PolicyKind::Trainings, &narrow)
        .await
        .expect("a narrower project policy");
    let big = training("big", json!({ "compute": { "gpuDevicesRequest": 4 } }));
    assert_eq!(
        refusals(
            services
                .workloads()
                .submit(WorkloadKind::Training, &root, big)
                .await
        ),
        [(
            "spec.compute.gpuDevicesRequest".to_owned(),
            "must be at most 2 (project \"default\"'s policy)".to_owned()
        )]
    );
    let small = training("small", json!({ "compute": { "gpuDevicesRequest": 1 } }));
    let stored = services
        .workloads()
        .submit(WorkloadKind::Training, &root, small)
        .await
        .expect("within the rules");
    assert_eq!(
        stored.listing.workload.spec["spec"]["compute"]["cpuCoreRequest"],
        json!(0.5),
        "the default is stored with the request"
    );
    // Widening the system policy from a project is refused, naming both.
    let wide = json!({ "rules": { "security": { "hostNetwork": { "canEdit": true } } } });
    let found = refusals(
        services
            .organisation()
            .set_policy(&root, &project, PolicyKind::Trainings, &wide)
            .await,
    );
    assert_eq!(found[0].0, "policy.rules.security.hostNetwork");
    assert!(
        found[0]
            .1
            .contains("which the system policy does not allow"),
        "{found:?}"
    );
    // Defaults that break a rule are refused.
    let bad_default = json!({ "defaults": { "compute": { "gpuDevicesRequest": 3 } },
                              "rules": { "compute": { "gpuDevicesRequest": { "max": 2 } } } });
    let found = refusals(
        services
            .organisation()
            .set_policy(&root, &project, PolicyKind::Trainings, &bad_default)
            .await,
    );
    assert_eq!(
        found[0].0, "policy.defaults.compute.gpuDevicesRequest",
        "{found:?}"
    );
    // A resume is held to the policy of the day.
    services
        .workloads()
        .act(
            None,
            Action::Suspend,
            &root,
            &stored.listing.workload.id.to_string(),
        )
        .await
        .expect("suspended");
    // No cluster here: record what the reconciler would, the training stopped.
    db.workloads()
        .record_status(
            stored.listing.workload.id,
            super::moved(Phase::Stopped, Phase::Creating, Phase::Stopped),
        )
        .await
        .expect("recorded")
        .expect("desired phase unchanged");
    let tighter = json!({ "rules": { "compute": { "gpuDevicesRequest": { "max": 0 } } } });
    services
        .organisation()
        .set_policy(&root, &project, PolicyKind::Trainings, &tighter)
        .await
        .expect("tighter");
    let found = refusals(
        services
            .workloads()
            .act(
                None,
                Action::Resume,
                &root,
                &stored.listing.workload.id.to_string(),
            )
            .await,
    );
    assert_eq!(found[0].0, "spec.compute.gpuDevicesRequest");
    // A system policy that leaves node protection's rules out keeps them; one that names them
    // relaxes them, explicitly: host network and host paths become possible.
    services
        .organisation()
        .set_policy(
            &root,
            &Scope::System,
            PolicyKind::Trainings,
            &json!({ "rules": {} }),
        )
        .await
        .expect("system policy");
    assert!(
        services
            .workloads()
            .submit(WorkloadKind::Training, &root, host.clone())
            .await
            .is_err(),
        "node protection is kept when a system policy leaves it out"
    );
    let relax = json!({ "rules": {
        "security": { "hostNetwork": { "canEdit": true } },
        "storage": { "hostPath": { "canAdd": true } } } });
    services
        .organisation()
        .set_policy(&root, &Scope::System, PolicyKind::Trainings, &relax)
        .await
        .expect("system policy");
    services
        .organisation()
        .delete_policy(&root, &project, PolicyKind::Trainings)
        .await
        .expect("project policy removed");
    services
        .workloads()
        .submit(WorkloadKind::Training, &root, host)
        .await
        .expect("allowed by the system policy now");
}

/// A create reads its project's policies from the project it already holds, and a submit from
/// the project and department it holds: the same layers, labelled the same, as reading them by
/// the project's scope.
pub async fn a_projects_layers_read_from_it_match_its_scopes(db: &Database, _: &str) {
    let user = super::user(db, "root").await;
    let services = services(db).await;
    let root = admin(user);
    let project = db.projects().ensure_default().await.unwrap();
    let scope = Scope::Project(project.id.to_string());
    let department = Scope::Department(project.department_id.to_string());
    let cap = |n: u32| json!({ "rules": { "compute": { "gpuDevicesRequest": { "max": n } } } });
    let organisation = services.organisation();
    for (at, kind, n) in [
        (&department, PolicyKind::Trainings, 4),
        (&scope, PolicyKind::Trainings, 2),
        (&scope, PolicyKind::Distributed, 1),
    ] {
        organisation
            .set_policy(&root, at, kind, &cap(n))
            .await
            .expect("policy");
    }
    let by_scope = db
        .policies()
        .layers_of_every_kind(&scope, true)
        .await
        .unwrap();
    let from_project = db.policies().layers_of_project(&project).await.unwrap();
    assert_eq!(from_project, by_scope);
    // What a submit reads, with the department it has already read.
    let its_department = db.departments().get(project.department_id).await.unwrap();
    let in_department = db
        .policies()
        .layers_in(&project, &its_department)
        .await
        .unwrap();
    assert_eq!(in_department, by_scope);
    // The system's, the department's and the project's trainings policies, in that order.
    assert_eq!(from_project.get(PolicyKind::Trainings).len(), 3);
    assert_eq!(from_project.get(PolicyKind::Distributed).len(), 2);
}
