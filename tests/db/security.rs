//! Tenants stay inside their project (issue 33), through the service on both engines: each
//! escape tried as the actor who would try it, answered with a 4xx naming the field or rule, and
//! nothing stored changed (no project, policy or workload added). The cluster side (what the
//! reconciler refuses to create, the service account's limits) is tested in `tests/cluster` and
//! `tests/deploy`.

use super::quota::{admin, services};
use app::error::AppError;
use serde_json::{Value, json};
use server::db::Database;
use tephra_core::domain::authz::{Role, Scope};
use tephra_core::domain::policy::PolicyKind;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::org::ProjectRequest;
use tephra_core::model::principal::{Grant, Principal};

mod leftovers;
mod org_changes;
mod policies;
mod preemption;
mod probing;
pub use leftovers::{
    a_deleted_unit_takes_its_rules_and_policies_with_it,
    a_rule_or_policy_racing_a_delete_is_not_left_behind,
};
pub use org_changes::every_department_and_project_change_is_audited_and_a_refused_one_leaves_none;
pub use policies::{
    an_unreadable_policy_fails_closed,
    every_policy_change_is_in_the_audit_trail_and_a_refused_one_leaves_none,
    strangers_learn_nothing_of_a_projects_policy,
};
pub use preemption::non_preemptible_workers_stay_within_quota;
pub use probing::a_stranger_cannot_tell_a_taken_name_or_id_from_a_free_one;

/// A principal holding one role in one scope.
pub(crate) fn principal(user: uuid::Uuid, role: Role, scope: Scope) -> Principal {
    Principal {
        admin: false,
        grants: vec![Grant {
            role,
            scope,
            scope_name: String::new(),
        }],
        ..admin(user)
    }
}

/// An administrator of the default department.
async fn department_admin(db: &Database) -> Principal {
    let department = db.departments().by_name("default").await.unwrap();
    let user = super::user(db, "dept").await;
    principal(
        user,
        Role::DepartmentAdministrator,
        Scope::Department(department.id.to_string()),
    )
}

/// A researcher in the default project.
async fn researcher(db: &Database) -> Principal {
    let project = db.projects().ensure_default().await.unwrap();
    let user = super::user(db, "res").await;
    principal(
        user,
        Role::Researcher,
        Scope::Project(project.id.to_string()),
    )
}

fn project(name: &str, namespace: Option<&str>) -> ProjectRequest {
    ProjectRequest {
        name: name.into(),
        cluster_id: None,
        description: None,
        parent_id: Some("default".into()),
        resources: Vec::new(),
        default_node_pools: None,
        scheduling_rules: None,
        requested_namespace: namespace.map(str::to_owned),
    }
}

/// The field and message of a refusal: a 400 naming the field (its first detail for a list).
fn refused<T: std::fmt::Debug>(result: Result<T, AppError>) -> (String, String) {
    match result {
        Err(AppError::Invalid { field, message }) => (field, message),
        Err(AppError::Rejected(errors)) if !errors.is_empty() => {
            (errors[0].path.clone(), errors[0].message.clone())
        }
        other => panic!("expected a 400 naming a field, got {other:?}"),
    }
}

/// Every path a 400 names.
fn paths<T: std::fmt::Debug>(result: Result<T, AppError>) -> Vec<String> {
    match result {
        Err(AppError::Rejected(errors)) => errors.into_iter().map(|e| e.path).collect(),
        other => panic!("expected a 400 with details, got {other:?}"),
    }
}

/// What an escape must leave as it was.
async fn stored(db: &Database) -> (usize, usize, String) {
    let projects = db.projects().list().await.unwrap().len();
    let workloads = db.workloads().count(&Default::default()).await.unwrap() as usize;
    let system = db
        .policies()
        .get(&Scope::System, PolicyKind::Trainings)
        .await
        .unwrap();
    (projects, workloads, format!("{system:?}"))
}

pub async fn tenants_cannot_choose_a_namespace_tephra_does_not_own(db: &Database, _: &str) {
    let services = services(db).await;
    let root = admin(super::user(db, "root").await);
    let dept_admin = department_admin(db).await;
    let before = stored(db).await;
    for (who, request, field, says) in [
        (
            &dept_admin,
            project("ops", Some("kube-system")),
            "requestedNamespace",
            "only system administrators",
        ),
        (
            &dept_admin,
            project("ops", Some("tephra-ops")),
            "requestedNamespace",
            "only system administrators",
        ),
        (
            &dept_admin,
            project("system", None),
            "name",
            "the namespace Tephra itself runs in",
        ),
        (&dept_admin, project("42", None), "name", "all digits"),
        (
            &root,
            project("ops", Some("kube-system")),
            "requestedNamespace",
            "belongs to Kubernetes",
        ),
        (
            &root,
            project("ops", Some("default")),
            "requestedNamespace",
            "belongs to Kubernetes",
        ),
        (
            &root,
            project("ops", Some("tephra-system")),
            "requestedNamespace",
            "Tephra itself runs in",
        ),
        (
            &root,
            project("ops", Some("ops")),
            "requestedNamespace",
            "does not start with \"tephra-\"",
        ),
    ] {
        let (path, message) = refused(
            services
                .organisation()
                .create_project(who, request.clone())
                .await,
        );
        assert_eq!(path, field, "{request:?}: {message}");
        assert!(message.contains(says), "{request:?}: {message}");
    }
    assert_eq!(stored(db).await, before, "nothing stored changed");
    // A system administrator may name a prefixed namespace; nobody may move a project's.
    let made = services
        .organisation()
        .create_project(&root, project("ops", Some("tephra-operations")))
        .await
        .expect("a prefixed namespace, by a system administrator");
    assert_eq!(made.requested_namespace, "tephra-operations");
    let (path, _) = refused(
        services
            .organisation()
            .update_project(&root, "ops", project("ops", Some("kube-system")))
            .await,
    );
    assert_eq!(path, "requestedNamespace");
}

pub async fn inner_policies_cannot_unlock_what_the_system_locks(db: &Database, _: &str) {
    let services = services(db).await;
    let root = admin(super::user(db, "root").await);
    let default = db.projects().ensure_default().await.unwrap();
    let dept_admin = department_admin(db).await;
    let scope = Scope::Project(default.id.to_string());
    // Defaults that would turn on what the system policy locks are refused when saved.
    let host = json!({ "defaults": { "security": { "hostNetwork": true, "hostIpc": true },
        "storage": { "hostPath": [{ "name": "root", "path": "/", "mountPath": "/host" }] } } });
    let found = paths(
        services
            .organisation()
            .set_policy(&dept_admin, &scope, PolicyKind::Trainings, &host)
            .await,
    );
    for path in [
        "policy.defaults.security.hostNetwork",
        "policy.defaults.security.hostIpc",
        "policy.defaults.storage.hostPath",
    ] {
        assert!(found.contains(&path.to_owned()), "{found:?}");
    }
    assert!(
        db.policies()
            .get(&scope, PolicyKind::Trainings)
            .await
            .unwrap()
            .is_none()
    );
    // A system policy of one default keeps node protection.
    let one_default = json!({ "defaults": { "image": "pytorch/pytorch:2.4" } });
    services
        .organisation()
        .set_policy(&root, &Scope::System, PolicyKind::Trainings, &one_default)
        .await
        .expect("a system policy with one default");
    let before = stored(db).await;
    let escape = training(json!({ "security": { "hostNetwork": true },
        "storage": { "hostPath": [{ "name": "root", "path": "/", "mountPath": "/host" }] } }));
    let found = paths(
        services
            .workloads()
            .submit(WorkloadKind::Training, &root, escape)
            .await,
    );
    assert_eq!(
        found,
        ["spec.security.hostNetwork", "spec.storage.hostPath"]
    );
    assert_eq!(stored(db).await, before, "nothing stored");
}

/// A system administrator offers host paths; a department offers one read-only dataset path
/// and no more; a researcher cannot swap it for the node's `/`.
pub async fn offered_entries_are_compared_whole(db: &Database, _: &str) {
    let services = services(db).await;
    let root = admin(super::user(db, "root").await);
    let department = db.departments().by_name("default").await.unwrap();
    let researcher = researcher(db).await;
    let relax = json!({ "rules": { "storage": { "hostPath": { "canAdd": true } } } });
    services
        .organisation()
        .set_policy(&root, &Scope::System, PolicyKind::Trainings, &relax)
        .await
        .expect("an explicit relaxation");
    let offered =
        json!([{ "name": "data", "path": "/datasets", "mountPath": "/data", "readOnly": true }]);
    let dept = json!({ "defaults": { "storage": { "hostPath": offered } },
                       "rules": { "storage": { "hostPath": { "canAdd": false } } } });
    let department_scope = Scope::Department(department.id.to_string());
    services
        .organisation()
        .set_policy(&root, &department_scope, PolicyKind::Trainings, &dept)
        .await
        .expect("a department offering one path");
    let before = stored(db).await;
    let swapped = training(json!({ "storage": { "hostPath": [
        { "name": "data", "path": "/", "mountPath": "/data", "readOnly": false }] } }));
    let (path, message) = refused(
        services
            .workloads()
            .submit(WorkloadKind::Training, &researcher, swapped)
            .await,
    );
    assert_eq!(path, "spec.storage.hostPath");
    assert!(
        message.contains("allows only the entries the policy offers"),
        "{message}"
    );
    assert_eq!(stored(db).await, before);
    services
        .workloads()
        .submit(WorkloadKind::Training, &researcher, training(json!({})))
        .await
        .expect("the offered path, as offered");
}

/// What a researcher might put in a request to reach past the project.
pub async fn researchers_cannot_reach_past_their_pods(db: &Database, _: &str) {
    let services = services(db).await;
    let researcher = researcher(db).await;
    let before = stored(db).await;
    let master = json!({
        "name": "d", "projectId": "default",
        "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 1 },
        "masterSpecSameAsWorker": false,
        "masterSpec": { "image": "x", "security": { "hostNetwork": true, "hostIpc": true,
            "capabilities": ["SYS_MODULE"], "seccompProfileType": "Unconfined", "runAsUid": 0 },
            "storage": { "hostPath": [{ "name": "r", "path": "/", "mountPath": "/r" }] } }
    });
    let found = paths(
        services
            .workloads()
            .submit(WorkloadKind::Distributed, &researcher, master)
            .await,
    );
    for path in [
        "hostNetwork",
        "hostIpc",
        "capabilities",
        "seccompProfileType",
        "runAsUid",
    ] {
        assert!(
            found.contains(&format!("masterSpec.security.{path}")),
            "{found:?}"
        );
    }
    assert!(
        found.contains(&"masterSpec.storage.hostPath".to_owned()),
        "{found:?}"
    );
    for (spec, path, says) in [
        (
            json!({ "storage": { "nfs": [{ "name": "n", "server": "10.0.0.9", "path": "/", "mountPath": "/n" }] } }),
            "spec.storage.nfs[0]",
            "not an export the cluster profile offers",
        ),
        (
            json!({ "ports": [{ "container": 80, "serviceType": "LoadBalancer" }] }),
            "spec.ports[0].serviceType",
            "outside the cluster",
        ),
        (
            json!({ "ports": [{ "container": 80, "serviceType": "NodePort" }] }),
            "spec.ports[0].serviceType",
            "outside the cluster",
        ),
        (
            json!({ "annotations": [{ "name": "volcano.sh/preemptable", "value": "false" }] }),
            "spec.annotations[0].name",
            "reserved",
        ),
        (
            json!({ "annotations": [{ "name": "k8s.v1.cni.cncf.io/networks", "value": "kube-system/x" }] }),
            "spec.annotations[0].name",
            "reserved",
        ),
        (
            json!({ "labels": [{ "name": "sidecar.istio.io/inject", "value": "false" }] }),
            "spec.labels[0].name",
            "reserved",
        ),
        (
            json!({ "tolerations": [{ "operator": "Exists" }] }),
            "spec.tolerations[0].key",
            "tolerates every taint",
        ),
        (
            json!({ "nodeAffinityRequired": { "nodeSelectorTerms": [{ "matchExpressions": [
            { "key": "node-role.kubernetes.io/control-plane", "operator": "Exists" }] }] } }),
            "spec.nodeAffinityRequired.nodeSelectorTerms[0].matchExpressions[0].key",
            "control-plane",
        ),
        (
            json!({ "security": { "supplementalGroups": "0" } }),
            "spec.security.supplementalGroups",
            "root group",
        ),
    ] {
        let (at, message) = refused(
            services
                .workloads()
                .submit(WorkloadKind::Training, &researcher, training(spec.clone()))
                .await,
        );
        assert_eq!(at, path, "{spec}: {message}");
        assert!(message.contains(says), "{spec}: {message}");
    }
    assert_eq!(stored(db).await, before, "nothing stored");
}

/// A training request with `spec` and an image every policy here allows.
fn training(spec: Value) -> Value {
    let mut spec = spec;
    spec["image"] = json!("pytorch/pytorch:2.4");
    json!({ "name": "t", "projectId": "default", "spec": spec })
}
