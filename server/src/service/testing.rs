//! What the services' tests share: a fresh in-memory SQLite database as start-up leaves it (the
//! default department and project), people stored in it, principals holding one role, and a
//! cluster handle without a cluster.

use crate::cluster::ClusterHandle;
use crate::db::Database;
use crate::db::users::Identity;
use tephra_core::domain::authz::{Role, Scope};
use tephra_core::domain::namespaces::NamespaceRules;
use tephra_core::model::principal::{Grant, Principal};
use uuid::Uuid;

pub(super) const PREFIX: &str = "tephra-";

/// A database of its own (each `sqlite::memory:` is another), migrated, with the default
/// department and project.
pub(super) async fn database() -> Database {
    let db = Database::connect("sqlite::memory:")
        .await
        .expect("an in-memory SQLite database opens");
    db.departments()
        .ensure_default(PREFIX)
        .await
        .expect("the default department");
    db.projects()
        .ensure_default_prefixed(PREFIX)
        .await
        .expect("the default project");
    db
}

/// A detached cluster handle: workloads are stored and wait.
pub(super) fn cluster() -> ClusterHandle {
    ClusterHandle::detached("default")
}

pub(super) fn namespaces() -> NamespaceRules {
    NamespaceRules {
        prefix: PREFIX.into(),
        release: "tephra-system".into(),
    }
}

/// A person who has signed in, holding `role` on `scope`.
pub(super) async fn person(db: &Database, subject: &str, role: Role, scope: Scope) -> Principal {
    let identity = Identity {
        issuer: "https://idp.example".into(),
        subject: subject.into(),
        display_name: format!("User {subject}"),
        email: Some(format!("{subject}@example.com")),
        uid: None,
        gid: None,
        groups: Vec::new(),
    };
    let user = db.users().upsert(&identity).await.expect("user stored");
    principal(user.id, subject, vec![(role, scope)])
}

/// A person who has signed in and holds no role anywhere.
pub(super) async fn stranger(db: &Database) -> Principal {
    let mut nobody = person(db, "stranger", Role::Viewer, Scope::System).await;
    nobody.grants.clear();
    nobody
}

/// A system administrator.
pub(super) async fn admin(db: &Database) -> Principal {
    person(db, "root", Role::SystemAdministrator, Scope::System).await
}

/// The scope of the default project.
pub(super) async fn default_project(db: &Database) -> Scope {
    let project = db
        .projects()
        .by_name(crate::db::projects::DEFAULT_PROJECT)
        .await
        .expect("default project");
    Scope::Project(project.id.to_string())
}

fn principal(user: Uuid, subject: &str, grants: Vec<(Role, Scope)>) -> Principal {
    Principal {
        user_id: user.to_string(),
        subject: subject.into(),
        display_name: format!("User {subject}"),
        email: Some(format!("{subject}@example.com")),
        groups: Vec::new(),
        admin: false,
        dev_login: false,
        application: None,
        uid: None,
        gid: None,
        grants: grants
            .into_iter()
            .map(|(role, scope)| Grant {
                role,
                scope,
                scope_name: String::new(),
            })
            .collect(),
    }
}
