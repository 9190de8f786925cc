//! Access rules, applications, the audit search and lists limited to some projects: stories run
//! on both engines (registered in main.rs).

use super::{submitted, training, user};
use server::db::applications::NewSecret;
use server::db::audit::AuditFilter;
use server::db::projects::NewProject;
use server::db::workloads::WorkloadFilter;
use server::db::{Database, DbError};
use tephra_core::domain::authz::{AccessRule, Caller, Role, Scope, Subject};

pub async fn access_rules_are_unique_and_their_changes_audited(db: &Database, _: &str) {
    let admin = user(db, "root").await;
    let project = db
        .projects()
        .create(&NewProject::named("vision"), None)
        .await
        .unwrap();
    let rule = AccessRule {
        subject: Subject::Group("vision-team".into()),
        role: Role::Researcher,
        scope: Scope::Project(project.id.to_string()),
    };
    let stored = db.access_rules().add(&rule, Some(admin)).await.unwrap();
    assert_eq!(stored.rule, rule);
    assert_eq!(db.access_rules().get(stored.id).await.unwrap(), stored);
    match db.access_rules().add(&rule, Some(admin)).await {
        Err(DbError::Conflict(message)) => assert!(message.contains("vision-team"), "{message}"),
        other => panic!("a second identical rule: {other:?}"),
    }
    let system = AccessRule {
        subject: Subject::User("root@example.com".into()),
        role: Role::SystemAdministrator,
        scope: Scope::System,
    };
    db.access_rules().add(&system, None).await.unwrap();
    assert_eq!(db.access_rules().all().await.unwrap().len(), 2);
    let app_rule = AccessRule {
        subject: Subject::App("vision-team".into()),
        ..rule.clone()
    };
    db.access_rules().add(&app_rule, None).await.unwrap();
    let naming = |caller: Caller| async move {
        let found = db.access_rules().matching(&caller).await.unwrap();
        found.into_iter().map(|s| s.rule).collect::<Vec<_>>()
    };
    let member = Caller {
        subject: Some("s-1".into()),
        email: Some("ada@example.com".into()),
        groups: vec!["other".into(), "vision-team".into()],
        app: None,
    };
    assert_eq!(
        naming(member).await,
        std::slice::from_ref(&rule),
        "by group, not the app's rule"
    );
    let root = Caller {
        email: Some("root@example.com".into()),
        ..Caller::default()
    };
    assert_eq!(naming(root).await, std::slice::from_ref(&system));
    let app = Caller {
        app: Some("vision-team".into()),
        ..Caller::default()
    };
    assert_eq!(naming(app).await, [app_rule]);
    assert!(naming(Caller::default()).await.is_empty());
    let removed_app_rule = db.access_rules().all().await.unwrap()[2].id;
    db.access_rules()
        .remove(removed_app_rule, None)
        .await
        .unwrap();

    let removed = db
        .access_rules()
        .remove(stored.id, Some(admin))
        .await
        .unwrap();
    assert_eq!(removed.rule, rule);
    assert!(matches!(
        db.access_rules().remove(stored.id, Some(admin)).await,
        Err(DbError::NotFound)
    ));
    let (total, events) = db
        .audit()
        .search(&AuditFilter {
            action: Some("access_rule".into()),
            limit: 10,
            ..AuditFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(total, 5, "three adds and two removals");
    assert_eq!(events[0].event.action, "access_rule.remove");
    assert_eq!(events[0].event.detail["subjectId"], "vision-team");
    assert_eq!(events[0].actor_name.as_deref(), Some("root@example.com"));
}

pub async fn applications_act_as_their_own_user_and_revoke_once(db: &Database, _: &str) {
    let owner = user(db, "ada").await;
    let secret = |hash: &str| NewSecret {
        hash: hash.into(),
        expires_at: chrono::Utc::now() + chrono::Duration::days(90),
    };
    let app = db
        .applications()
        .create("nightly", owner, &secret("hash"), serde_json::json!({}))
        .await
        .unwrap();
    assert!(app.expires_at.is_some() && app.secret_set_at.is_some());
    let acting_as = db.users().get(app.user_id).await.unwrap();
    assert_eq!(acting_as.display_name, "nightly");
    assert!(matches!(
        db.applications()
            .create("nightly", owner, &secret("other"), serde_json::json!({}))
            .await,
        Err(DbError::Conflict(_))
    ));
    db.applications().touch(app.id).await.unwrap();
    let used = db.applications().by_name("nightly").await.unwrap();
    let first_use = used.last_used_at.expect("a use is recorded");
    db.applications().touch(app.id).await.unwrap();
    let again = db.applications().get(app.id).await.unwrap();
    assert_eq!(again.last_used_at, Some(first_use), "at most once a minute");

    let rotated = db
        .applications()
        .rotate(app.id, &secret("rotated"), owner)
        .await
        .unwrap()
        .expect("rotated");
    assert_eq!(rotated.secret_hash, "rotated");
    assert!(rotated.secret_set_at >= app.secret_set_at);

    let revoked = db.applications().revoke(app.id, owner).await.unwrap();
    assert!(revoked.and_then(|a| a.revoked_at).is_some());
    assert_eq!(db.applications().revoke(app.id, owner).await.unwrap(), None);
    assert!(
        db.applications()
            .rotate(app.id, &secret("again"), owner)
            .await
            .unwrap()
            .is_none(),
        "a revoked application stays revoked"
    );
    assert_eq!(db.applications().list(Some(owner)).await.unwrap().len(), 1);
    assert_eq!(
        db.applications()
            .list(Some(app.user_id))
            .await
            .unwrap()
            .len(),
        0
    );
    let (total, events) = db
        .audit()
        .search(&AuditFilter {
            target_kind: Some(tephra_core::model::history::AuditTarget::Application),
            limit: 10,
            ..AuditFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(total, 3, "created, rotated, revoked");
    assert_eq!(events[0].event.action, "application.revoke");
    assert_eq!(events[1].event.action, "application.rotate_secret");
}

pub async fn lists_limited_to_some_projects_show_only_theirs(db: &Database, _: &str) {
    let creator = user(db, "lin").await;
    // Names that a LIKE pattern would confuse: `_` is a wildcard there.
    for name in ["a-b", "a_b", "ab"] {
        let project = db
            .projects()
            .create(&NewProject::named(name), None)
            .await
            .unwrap();
        let new = training(project.id, creator, "w");
        db.workloads()
            .insert(&new, submitted(creator))
            .await
            .unwrap();
    }
    let among = |names: &[&str]| WorkloadFilter {
        projects_among: Some(names.iter().map(|n| (*n).to_owned()).collect()),
        ..WorkloadFilter::default()
    };
    let names = |filter: WorkloadFilter| async move {
        let mut names: Vec<String> = db
            .workloads()
            .list(&filter)
            .await
            .unwrap()
            .into_iter()
            .map(|l| l.project_name)
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(among(&["a-b"])).await, ["a-b"]);
    assert_eq!(names(among(&["a_b", "ab"])).await, ["a_b", "ab"]);
    assert!(names(among(&[])).await.is_empty(), "no project, nothing");
    assert_eq!(names(WorkloadFilter::default()).await.len(), 3);
    assert_eq!(db.workloads().count(&among(&["ab"])).await.unwrap(), 1);
    let by_phase = db
        .workloads()
        .count_by_phase(Some(&["a-b".to_owned()]))
        .await
        .unwrap();
    assert_eq!(by_phase.iter().map(|(_, n)| n).sum::<i64>(), 1);
}
