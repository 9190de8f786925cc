//! Projects' scheduling rules: stored and read back through the org-unit service and the
//! organisation page's form, refused out of range with nothing stored, cleared by a `PUT` that
//! leaves them out, and listed for the watcher that suspends idle trainings.

use super::quota::{admin, services};
use app::error::AppError;
use server::db::Database;
use tephra_core::model::org::{ProjectRequest, SchedulingRules};
use tephra_core::model::org_form::QuotaFields;

fn request(name: &str, idle_seconds: Option<u64>) -> ProjectRequest {
    ProjectRequest {
        name: name.into(),
        cluster_id: None,
        description: None,
        parent_id: None,
        resources: Vec::new(),
        default_node_pools: None,
        scheduling_rules: idle_seconds.map(|s| SchedulingRules {
            training_job_max_idle_duration_seconds: Some(s),
        }),
        requested_namespace: None,
    }
}

async fn idle_rule_names(db: &Database) -> Vec<String> {
    let projects = db.projects().with_idle_rule().await.unwrap();
    projects.into_iter().map(|p| p.name).collect()
}

fn refused_paths(result: Result<impl std::fmt::Debug, AppError>) -> Vec<String> {
    match result {
        Err(AppError::Rejected(errors)) => errors.into_iter().map(|e| e.path).collect(),
        other => panic!("expected a refusal naming fields, got {other:?}"),
    }
}

pub async fn scheduling_rules_are_stored_checked_cleared_and_listed(db: &Database, _: &str) {
    let user = super::user(db, "root").await;
    let services = services(db).await;
    let root = admin(user);
    db.projects().ensure_default().await.unwrap();

    let idle = services
        .organisation()
        .create_project(&root, request("idle", Some(1800)))
        .await
        .unwrap();
    let rule = SchedulingRules {
        training_job_max_idle_duration_seconds: Some(1800),
    };
    assert_eq!(idle.scheduling_rules, Some(rule));
    assert_eq!(
        services
            .organisation()
            .org_project(&root, "idle")
            .await
            .unwrap(),
        idle,
        "read back as answered"
    );
    services
        .organisation()
        .create_project(&root, request("busy", None))
        .await
        .unwrap();
    assert_eq!(idle_rule_names(db).await, ["idle"]);

    // Out of range: refused at the field, and nothing stored or changed.
    for seconds in [59, 2_592_001] {
        let created = services
            .organisation()
            .create_project(&root, request("bad", Some(seconds)))
            .await;
        assert_eq!(
            refused_paths(created),
            ["schedulingRules.trainingJobMaxIdleDurationSeconds"]
        );
        let updated = services
            .organisation()
            .update_project(&root, "idle", request("idle", Some(seconds)))
            .await;
        assert_eq!(
            refused_paths(updated),
            ["schedulingRules.trainingJobMaxIdleDurationSeconds"]
        );
    }
    assert!(db.projects().by_name("bad").await.is_err());
    let stored = db.projects().by_name("idle").await.unwrap();
    assert_eq!(stored.scheduling_rules.map(|r| r.0), Some(rule));

    // A PUT replaces the fields whole: without the rules, the project has none.
    let cleared = services
        .organisation()
        .update_project(&root, "idle", request("idle", None))
        .await
        .unwrap();
    assert_eq!(cleared.scheduling_rules, None);
    assert!(idle_rule_names(db).await.is_empty());
    // Rules that set nothing are stored as none, so the listing needs no second look.
    let mut empty = request("busy", None);
    empty.scheduling_rules = Some(SchedulingRules::default());
    let busy = services
        .organisation()
        .update_project(&root, "busy", empty)
        .await
        .unwrap();
    assert_eq!(busy.scheduling_rules, None);
    let stored = db.projects().by_name("busy").await.unwrap();
    assert_eq!(stored.scheduling_rules, None);

    // The organisation page's form: minutes typed, seconds stored; empty removes the timeout.
    let quota = QuotaFields {
        gpu_quota: "1".into(),
        ..Default::default()
    };
    let saved = services
        .organisation()
        .save_project(&root, "form", "", quota.clone(), "30")
        .await
        .unwrap();
    assert_eq!(
        saved.scheduling_rules,
        Some(SchedulingRules {
            training_job_max_idle_duration_seconds: Some(1800),
        })
    );
    assert_eq!(idle_rule_names(db).await, ["form"]);
    let refused = services
        .organisation()
        .save_project(&root, "form", "", quota.clone(), "0")
        .await;
    assert_eq!(refused_paths(refused), ["idle_minutes"]);
    assert_eq!(
        idle_rule_names(db).await,
        ["form"],
        "a refusal changes nothing"
    );
    let saved = services
        .organisation()
        .save_project(&root, "form", "", quota, "")
        .await
        .unwrap();
    assert_eq!(saved.scheduling_rules, None);
    assert_eq!(saved.resources[0].gpu.deserved, Some(1.0));
    assert!(idle_rule_names(db).await.is_empty());
}
