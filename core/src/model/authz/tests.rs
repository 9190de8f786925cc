use super::*;

fn vision() -> Target {
    Target::Project {
        id: "4".into(),
        department: Some("2".into()),
    }
}

fn speech() -> Target {
    Target::Project {
        id: "5".into(),
        department: Some("3".into()),
    }
}

fn rule(subject: Subject, role: Role, scope: Scope) -> AccessRule {
    AccessRule {
        subject,
        role,
        scope,
    }
}

fn user(email: &str) -> Caller {
    Caller {
        subject: Some(format!("sub-{email}")),
        email: Some(email.into()),
        ..Caller::default()
    }
}

fn rules() -> Vec<AccessRule> {
    let project = || Scope::Project("4".into());
    vec![
        rule(
            Subject::User("root@x".into()),
            Role::SystemAdministrator,
            Scope::System,
        ),
        rule(
            Subject::User("dana@x".into()),
            Role::DepartmentAdministrator,
            Scope::Department("2".into()),
        ),
        rule(
            Subject::User("pat@x".into()),
            Role::ProjectAdministrator,
            project(),
        ),
        rule(
            Subject::Group("vision-team".into()),
            Role::Researcher,
            project(),
        ),
        rule(Subject::User("vic@x".into()), Role::Viewer, project()),
        rule(Subject::App("ci-bot".into()), Role::Researcher, project()),
    ]
}

fn may(caller: &Caller, permission: Permission, target: &Target) -> bool {
    allows(&grants_of(&rules(), caller), permission, target)
}

#[test]
fn a_system_administrator_may_do_everything_everywhere() {
    let root = user("root@x");
    for permission in Permission::ALL {
        for target in [
            Target::System,
            Target::Department("9".into()),
            vision(),
            speech(),
        ] {
            assert!(
                may(&root, permission, &target),
                "{permission} on {target:?}"
            );
        }
    }
}

#[test]
fn a_department_administrator_reaches_the_departments_projects_only() {
    let dana = user("dana@x");
    assert!(may(
        &dana,
        Permission::ManageProjects,
        &Target::Department("2".into())
    ));
    assert!(may(&dana, Permission::ManageMembers, &vision()));
    assert!(!may(&dana, Permission::ReadWorkloads, &speech()));
    assert!(!may(&dana, Permission::ManageSystem, &Target::System));
}

#[test]
fn members_get_what_their_role_allows_in_their_project() {
    let researcher = Caller {
        groups: vec!["vision-team".into()],
        ..user("rae@x")
    };
    assert!(may(&researcher, Permission::ManageWorkloads, &vision()));
    assert!(!may(&researcher, Permission::ManageMembers, &vision()));
    let viewer = grants_of(&rules(), &user("vic@x"));
    assert!(allows(&viewer, Permission::ReadWorkloads, &vision()));
    let denied = check(&viewer, Permission::ManageWorkloads, &vision(), || {
        "project \"vision\"".into()
    })
    .unwrap_err();
    assert_eq!(
        denied.to_string(),
        "missing permission workloads:manage on project \"vision\""
    );
    let admin = user("pat@x");
    assert!(may(&admin, Permission::ManageMembers, &vision()));
    assert!(!may(
        &admin,
        Permission::ManageProjects,
        &Target::Department("2".into())
    ));
}

#[test]
fn members_of_one_project_see_nothing_of_another() {
    let researcher = Caller {
        groups: vec!["vision-team".into()],
        ..user("rae@x")
    };
    assert!(!may(&researcher, Permission::ReadWorkloads, &speech()));
    assert!(!may(
        &user("nobody@x"),
        Permission::ReadWorkloads,
        &vision()
    ));
    let reach = Reach::of(&grants_of(&rules(), &researcher), Permission::ReadWorkloads);
    assert!(reach.includes("4", Some("2")));
    assert!(!reach.includes("5", Some("3")));
    assert!(!reach.everything);
}

#[test]
fn a_unit_is_seen_only_by_those_who_hold_something_in_it() {
    let sees_as = |email: &str, target: &Target| sees(&grants_of(&rules(), &user(email)), target);
    // A viewer sees the project; a department administrator sees its department and projects.
    assert!(sees_as("vic@x", &vision()));
    assert!(sees_as("dana@x", &vision()));
    assert!(sees_as("dana@x", &Target::Department("2".into())));
    assert!(sees_as("root@x", &speech()));
    // Another department's project, the department of one's project, and anything to someone
    // with no grant are unseen.
    assert!(!sees_as("dana@x", &speech()));
    assert!(!sees_as("pat@x", &Target::Department("2".into())));
    assert!(!sees_as("nobody@x", &vision()));
}

#[test]
fn reach_follows_the_scope_of_each_grant() {
    let dana = Reach::of(
        &grants_of(&rules(), &user("dana@x")),
        Permission::ReadWorkloads,
    );
    assert!(dana.includes("4", Some("2")) && dana.includes("77", Some("2")));
    assert!(!dana.includes("5", Some("3")) && !dana.includes("77", None));
    let root = Reach::of(&grants_of(&rules(), &user("root@x")), Permission::ReadAudit);
    assert!(root.everything);
    let viewer = Reach::of(
        &grants_of(&rules(), &user("vic@x")),
        Permission::ManageWorkloads,
    );
    assert_eq!(viewer, Reach::default());
}

#[test]
fn applications_are_matched_by_name_not_by_user_rules() {
    let bot = Caller {
        app: Some("ci-bot".into()),
        ..Caller::default()
    };
    assert!(may(&bot, Permission::ManageWorkloads, &vision()));
    let impostor = Caller {
        subject: Some("ci-bot".into()),
        ..Caller::default()
    };
    assert!(!may(&impostor, Permission::ManageWorkloads, &vision()));
}

#[test]
fn a_role_can_be_granted_only_by_someone_who_holds_all_it_allows_there() {
    let pat = grants_of(&rules(), &user("pat@x"));
    let vision = Scope::Project("4".into());
    assert_eq!(may_grant(&pat, Role::Researcher, &vision), Ok(()));
    assert_eq!(may_grant(&pat, Role::ProjectAdministrator, &vision), Ok(()));
    let wider = may_grant(&pat, Role::DepartmentAdministrator, &vision).unwrap_err();
    assert_eq!(wider.permission, Permission::ManageProjects);
    assert!(may_grant(&pat, Role::Viewer, &Scope::Project("5".into())).is_err());
    let viewer = grants_of(&rules(), &user("vic@x"));
    assert!(may_grant(&viewer, Role::Researcher, &vision).is_err());
    assert_eq!(may_grant(&viewer, Role::Viewer, &vision), Ok(()));
}

#[test]
fn subjects_parse_from_their_run_ai_types_and_say_what_is_allowed() {
    assert_eq!(
        Subject::parse("group", "ml"),
        Ok(Subject::Group("ml".into()))
    );
    assert_eq!(
        Subject::parse("app", " bot "),
        Ok(Subject::App("bot".into()))
    );
    let err = Subject::parse("team", "x").unwrap_err();
    assert!(
        err.contains("\"team\"") && err.contains("user, group or app"),
        "{err}"
    );
}

#[test]
fn role_ids_round_trip_and_grants_are_listed_once() {
    for role in Role::ALL {
        assert_eq!(Role::from_id(role.id()), Some(role));
    }
    assert_eq!(Role::from_id(99), None);
    let mut twice = rules();
    twice.push(rules()[4].clone());
    assert_eq!(
        grants_of(&twice, &user("vic@x")),
        vec![(Role::Viewer, Scope::Project("4".into()))]
    );
}

#[test]
fn an_application_keeps_only_what_its_creator_still_holds() {
    let project = |id: &str| Scope::Project(id.into());
    let app = vec![
        (Role::Researcher, project("vision")),
        (Role::ProjectAdministrator, project("speech")),
        (Role::Viewer, project("audio")),
    ];
    let creator = vec![
        (Role::ProjectAdministrator, project("vision")),
        (Role::Researcher, project("speech")),
        (
            Role::DepartmentAdministrator,
            Scope::Department("research".into()),
        ),
    ];
    let department_of = |id: &str| (id == "audio").then(|| "research".to_owned());
    assert_eq!(
        bounded_by(app.clone(), &creator, department_of),
        [
            (Role::Researcher, project("vision")),
            (Role::Viewer, project("audio")),
        ],
        "a wider role than the creator's now is dropped; a department's project is reached"
    );
    assert!(
        bounded_by(app, &[], department_of).is_empty(),
        "a creator without rules"
    );
    let admin = vec![(Role::SystemAdministrator, Scope::System)];
    let everything = vec![(Role::SystemAdministrator, Scope::System)];
    assert_eq!(bounded_by(everything.clone(), &admin, |_| None), everything);
}
