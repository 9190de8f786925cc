//! The store itself: opening it again, settings, projects and users kept unique, references
//! checked, the audit trail in order, and bad input refused alike on both engines.

use super::{acted, quota, submitted, training, user};
use app::error::AppError;
use serde_json::json;
use server::db::projects::{DEFAULT_PROJECT, NewProject};
use server::db::users::Identity;
use server::db::workloads::WorkloadFilter;
use server::db::{Database, DbError};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::history::{AuditAction, AuditTarget};
use tephra_core::model::principal::Principal;
use uuid::Uuid;

pub async fn reopening_keeps_data_and_the_default_project(db: &Database, url: &str) {
    let first = db.projects().ensure_default().await.unwrap();
    assert_eq!(first.name, DEFAULT_PROJECT);
    assert_eq!(first.namespace, "tephra-default");
    assert_eq!(first.queue, "tephra-default");

    // A second process (or a restart) migrates again and finds the same project.
    let again = Database::connect(url)
        .await
        .expect("migrations are idempotent");
    let second = again.projects().ensure_default().await.unwrap();
    assert_eq!(first, second);
    assert_eq!(again.projects().count().await.unwrap(), 1);
    again.ping().await.unwrap();
    again.close().await;
}

pub async fn settings_are_created_once(db: &Database, _: &str) {
    let first = db
        .settings()
        .get_or_create("owner-key", || "one".into())
        .await
        .unwrap();
    let second = db
        .settings()
        .get_or_create("owner-key", || "two".into())
        .await
        .unwrap();
    assert_eq!((first.as_str(), second.as_str()), ("one", "one"));
}

pub async fn projects_are_unique_by_name_namespace_and_queue(db: &Database, _: &str) {
    let vision = db
        .projects()
        .create(&NewProject::named("vision"), None)
        .await
        .unwrap();
    assert_eq!(db.projects().by_name("vision").await.unwrap(), vision);
    assert_eq!(db.projects().get(vision.id).await.unwrap(), vision);

    let err = db
        .projects()
        .create(&NewProject::named("vision"), None)
        .await
        .unwrap_err();
    match err {
        DbError::Conflict(message) => assert!(message.contains("\"vision\""), "{message}"),
        other => panic!("expected a conflict, got {other:?}"),
    }
    let mut same_queue = NewProject::named("speech");
    same_queue.queue = vision.queue.clone();
    assert!(matches!(
        db.projects().create(&same_queue, None).await,
        Err(DbError::Conflict(_))
    ));

    db.projects()
        .create(&NewProject::named("audio"), None)
        .await
        .unwrap();
    let names: Vec<String> = db
        .projects()
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.project.name)
        .collect();
    assert_eq!(names, ["audio", "vision"]);
    assert!(matches!(
        db.projects().by_name("nope").await,
        Err(DbError::NotFound)
    ));
}

pub async fn users_are_recorded_once_per_identity(db: &Database, _: &str) {
    let mut identity = Identity {
        issuer: "https://idp.example".into(),
        subject: "u-1".into(),
        display_name: "Ada".into(),
        email: None,
        uid: Some(1000),
        gid: None,
        groups: vec!["ml-team".into()],
    };
    let first = db.users().upsert(&identity).await.unwrap();
    assert_eq!(first.groups.0, ["ml-team"]);
    identity.display_name = "Ada Lovelace".into();
    identity.email = Some("ada@example.com".into());
    identity.groups = vec!["vision".into(), "speech".into()];
    let second = db.users().upsert(&identity).await.unwrap();
    assert_eq!(first.id, second.id, "the same identity keeps its id");
    assert_eq!(second.display_name, "Ada Lovelace");
    assert_eq!(second.email.as_deref(), Some("ada@example.com"));
    assert_eq!(
        second.groups.0,
        ["vision", "speech"],
        "the groups of the last sign-in"
    );
    assert!(second.last_seen_at >= first.last_seen_at);
    assert_eq!(second.created_at, first.created_at);

    // The same subject at another issuer is another person.
    identity.issuer = "https://other.example".into();
    let other = db.users().upsert(&identity).await.unwrap();
    assert_ne!(other.id, first.id);
    assert_eq!(db.users().count().await.unwrap(), 2);
    assert_eq!(db.users().get(first.id).await.unwrap(), second);
}

pub async fn bad_references_store_nothing(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let creator = user(db, "dave").await;
    let orphan = training(Uuid::new_v4(), creator, "orphan");
    let err = db
        .workloads()
        .insert(&orphan, submitted(creator))
        .await
        .unwrap_err();
    assert!(
        matches!(err, DbError::NotFound),
        "a missing project is not a name conflict: {err:?}"
    );
    let ghost = training(project.id, Uuid::new_v4(), "ghost");
    assert!(
        db.workloads()
            .insert(&ghost, acted("workload.submit"))
            .await
            .is_err()
    );
    let listed = db
        .workloads()
        .list(&WorkloadFilter {
            include_deleted: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(listed.is_empty(), "nothing was stored: {listed:?}");
}

pub async fn the_audit_trail_keeps_order(db: &Database, _: &str) {
    let project = db.projects().ensure_default().await.unwrap();
    let actor = user(db, "erin").await;
    let workload = db
        .workloads()
        .insert(&training(project.id, actor, "gpt"), submitted(actor))
        .await
        .unwrap();
    // The submit's history entry was written with the row.
    db.audit()
        .record(
            None,
            AuditAction::parse("workload.phase").unwrap(),
            AuditTarget::Workload,
            workload.id,
            json!({ "to": "Running" }),
        )
        .await
        .unwrap();
    db.audit()
        .record(
            Some(actor),
            AuditAction::parse("workload.suspend").unwrap(),
            AuditTarget::Workload,
            workload.id,
            json!({}),
        )
        .await
        .unwrap();
    db.audit()
        .record(
            Some(actor),
            AuditAction::parse("workload.submit").unwrap(),
            AuditTarget::Workload,
            Uuid::new_v4(),
            json!({}),
        )
        .await
        .unwrap();

    let trail = db
        .audit()
        .for_target(AuditTarget::Workload, workload.id)
        .await
        .unwrap();
    let actions: Vec<&str> = trail.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        ["workload.submit", "workload.phase", "workload.suspend"]
    );
    assert_eq!(trail[1].actor_id, None);
    assert_eq!(trail[1].detail, json!({ "to": "Running" }));
    assert!(trail.windows(2).all(|w| w[0].at <= w[1].at));
}

/// What PostgreSQL cannot store (U+0000) and numbers Kubernetes cannot hold are refused by the
/// service before the database sees them, so both engines answer alike. Without the check,
/// PostgreSQL failed the insert with a 500 while SQLite stored the NUL.
pub async fn bad_input_gets_the_same_400_on_both_engines_and_stores_nothing(
    db: &Database,
    _: &str,
) {
    db.projects().ensure_default().await.unwrap();
    let user_id = user(db, "mallory").await;
    let services = quota::services(db).await;
    let principal = Principal {
        user_id: user_id.to_string(),
        subject: "mallory".into(),
        display_name: "Mallory".into(),
        email: None,
        groups: Vec::new(),
        admin: true,
        dev_login: true,
        application: None,
        uid: None,
        gid: None,
        grants: vec![tephra_core::model::principal::Grant {
            role: tephra_core::domain::authz::Role::SystemAdministrator,
            scope: tephra_core::domain::authz::Scope::System,
            scope_name: String::new(),
        }],
    };
    let nul = "must not contain a NUL character (\\u0000)";
    let training = |spec: serde_json::Value| {
        let mut spec = spec;
        spec["image"] = json!("pytorch/pytorch:2.4");
        json!({ "name": "bad", "projectId": "default", "spec": spec })
    };
    let cases = [
        (
            WorkloadKind::Training,
            training(json!({ "command": "python\u{0} train.py" })),
            "spec.command",
            nul.to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(json!({ "environmentVariables": [{ "name": "A", "value": "x\u{0}" }] })),
            "spec.environmentVariables[0].value",
            nul.to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(
                json!({ "probes": { "readiness": { "periodSeconds": 4294967297u64,
                "handler": { "httpGet": { "port": 8080 } } } } }),
            ),
            "spec.probes.readiness.periodSeconds",
            "must be between 1 and 2147483647 (got 4294967297)".to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(json!({ "compute": { "cpuMemoryRequest": "1e400" } })),
            "spec.compute.cpuMemoryRequest",
            "must be below 8Ei (2^63 base units, the most Kubernetes can count) (got \"1e400\")"
                .to_owned(),
        ),
        (
            WorkloadKind::Training,
            training(json!({ "parallelism": 3000000 })),
            "spec.parallelism",
            "asks for 3000000 pods at once; this Tephra allows at most 1000 per workload \
             (--max-pods-per-workload)"
                .to_owned(),
        ),
        (
            // Looked up before the request is parsed; PostgreSQL cannot even query it.
            WorkloadKind::Training,
            json!({ "name": "bad", "projectId": "\u{0}", "spec": { "image": "x" } }),
            "projectId",
            nul.to_owned(),
        ),
        (
            WorkloadKind::Distributed,
            json!({ "name": "bad", "projectId": "default", "spec": {
                "image": "x", "distributedFramework": "PyTorch", "numWorkers": 1,
                "master": { "image": "y", "args": "\u{0}" } } }),
            "spec.master.args",
            nul.to_owned(),
        ),
    ];
    for (kind, body, field, message) in cases {
        for preview in [false, true] {
            let err = if preview {
                services
                    .workloads()
                    .preview(kind, &principal, &body)
                    .await
                    .unwrap_err()
            } else {
                services
                    .workloads()
                    .submit(kind, &principal, body.clone())
                    .await
                    .unwrap_err()
            };
            let errors = err.field_errors();
            assert!(matches!(err, AppError::Rejected(_)), "{err:?}");
            let details: Vec<(&str, &str)> = errors
                .iter()
                .map(|d| (d.path.as_str(), d.message.as_str()))
                .collect();
            assert_eq!(details, [(field, message.as_str())], "{body}");
        }
    }
    let stored = db
        .workloads()
        .list(&WorkloadFilter {
            include_deleted: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(stored.is_empty(), "nothing was stored: {stored:?}");

    // The same path stores a valid request on this engine.
    let fine = training(json!({ "command": "python train.py", "parallelism": 1000 }));
    services
        .workloads()
        .submit(WorkloadKind::Training, &principal, fine)
        .await
        .expect("a valid request is stored");
}
