//! Who may do what, after Run:ai: an access rule binds a subject (a user, an IdP group or an
//! application) to a role on a scope (the system, a department or a project). Pure: rules and
//! the caller come in, the caller's grants go out; grants and a target come in, a decision goes
//! out, and a refusal names the permission that was missing.

mod scope;

pub use scope::{Scope, Target};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// The predefined roles. Ids are Run:ai-style integers (`roleId`), stable across versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    SystemAdministrator,
    DepartmentAdministrator,
    ProjectAdministrator,
    Researcher,
    Viewer,
}

/// One thing a role allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Permission {
    /// See a project's workloads, their status and history.
    ReadWorkloads,
    /// Submit, suspend, resume and delete workloads.
    ManageWorkloads,
    /// See a project, its members and (later) its quota and usage.
    ReadProject,
    /// Add and remove a project's members (its access rules).
    ManageMembers,
    /// Create, change and delete projects (within the department's quota).
    ManageProjects,
    /// Create, change and delete departments, and grant roles on the whole system.
    ManageSystem,
    /// Read the audit trail of everything.
    ReadAudit,
}

impl Permission {
    pub const ALL: [Permission; 7] = [
        Permission::ReadWorkloads,
        Permission::ManageWorkloads,
        Permission::ReadProject,
        Permission::ManageMembers,
        Permission::ManageProjects,
        Permission::ManageSystem,
        Permission::ReadAudit,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Permission::ReadWorkloads => "workloads:read",
            Permission::ManageWorkloads => "workloads:manage",
            Permission::ReadProject => "project:read",
            Permission::ManageMembers => "project-members:manage",
            Permission::ManageProjects => "projects:manage",
            Permission::ManageSystem => "system:manage",
            Permission::ReadAudit => "audit:read",
        }
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::SystemAdministrator,
        Role::DepartmentAdministrator,
        Role::ProjectAdministrator,
        Role::Researcher,
        Role::Viewer,
    ];

    pub fn id(self) -> i64 {
        match self {
            Role::SystemAdministrator => 1,
            Role::DepartmentAdministrator => 2,
            Role::ProjectAdministrator => 3,
            Role::Researcher => 4,
            Role::Viewer => 5,
        }
    }

    pub fn from_id(id: i64) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.id() == id)
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::SystemAdministrator => "System administrator",
            Role::DepartmentAdministrator => "Department administrator",
            Role::ProjectAdministrator => "Project administrator",
            Role::Researcher => "Researcher",
            Role::Viewer => "Viewer",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Role::SystemAdministrator => {
                "Everything, everywhere: departments, projects, members, audit."
            }
            Role::DepartmentAdministrator => {
                "Manages the projects of a department, their members and workloads."
            }
            Role::ProjectAdministrator => "Manages a project's members and its workloads.",
            Role::Researcher => "Submits and manages workloads in a project.",
            Role::Viewer => "Reads a project's workloads.",
        }
    }

    /// What the role allows, wherever its scope reaches.
    pub fn permissions(self) -> &'static [Permission] {
        use Permission::*;
        match self {
            Role::SystemAdministrator => &Permission::ALL,
            Role::DepartmentAdministrator => &[
                ReadWorkloads,
                ManageWorkloads,
                ReadProject,
                ManageMembers,
                ManageProjects,
            ],
            Role::ProjectAdministrator => {
                &[ReadWorkloads, ManageWorkloads, ReadProject, ManageMembers]
            }
            Role::Researcher => &[ReadWorkloads, ManageWorkloads, ReadProject],
            Role::Viewer => &[ReadWorkloads, ReadProject],
        }
    }
}

/// Who a rule is for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Subject {
    /// A user by e-mail or by the provider's subject.
    User(String),
    /// Everyone the identity provider lists in this group.
    Group(String),
    /// An application (API client) by its name, which is its client id.
    App(String),
}

impl Subject {
    pub const TYPES: &str = "user, group or app";

    /// The subject from Run:ai's `subjectType` and `subjectId`; the error says what is allowed.
    pub fn parse(subject_type: &str, id: &str) -> Result<Subject, String> {
        let id = id.trim().to_owned();
        match subject_type {
            "user" => Ok(Subject::User(id)),
            "group" => Ok(Subject::Group(id)),
            "app" => Ok(Subject::App(id)),
            other => Err(format!("{other:?} is not allowed: {}", Subject::TYPES)),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Subject::User(_) => "user",
            Subject::Group(_) => "group",
            Subject::App(_) => "app",
        }
    }

    pub fn id(&self) -> &str {
        match self {
            Subject::User(id) | Subject::Group(id) | Subject::App(id) => id,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AccessRule {
    pub subject: Subject,
    pub role: Role,
    pub scope: Scope,
}

/// Who is asking, as the rules can match them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The provider's subject, and the e-mail when known.
    pub subject: Option<String>,
    pub email: Option<String>,
    pub groups: Vec<String>,
    /// Set when an application is calling.
    pub app: Option<String>,
}

impl Caller {
    fn is(&self, subject: &Subject) -> bool {
        match subject {
            Subject::User(user) => {
                self.subject.as_deref() == Some(user) || self.email.as_deref() == Some(user)
            }
            Subject::Group(group) => self.groups.iter().any(|g| g == group),
            Subject::App(app) => self.app.as_deref() == Some(app),
        }
    }
}

/// A role held on a scope.
pub type Grant = (Role, Scope);

/// A refusal, naming what was missing and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("missing permission {permission} on {target}")]
pub struct Denied {
    pub permission: Permission,
    pub target: String,
}

/// The roles the caller holds, with their scopes, once each.
pub fn grants_of(rules: &[AccessRule], caller: &Caller) -> Vec<Grant> {
    let mut held: Vec<Grant> = rules
        .iter()
        .filter(|rule| caller.is(&rule.subject))
        .map(|rule| (rule.role, rule.scope.clone()))
        .collect();
    held.sort();
    held.dedup();
    held
}

/// The grants of an application that its creator's grants allow as well: an application never
/// acts with more than the person who made it holds now. `department_of` gives a project's
/// department, so a department administrator's application keeps its roles in their projects.
pub fn bounded_by(
    app: Vec<Grant>,
    creator: &[Grant],
    department_of: impl Fn(&str) -> Option<String>,
) -> Vec<Grant> {
    app.into_iter()
        .filter(|(role, scope)| {
            let target = match scope {
                Scope::Project(id) => Target::Project {
                    id: id.clone(),
                    department: department_of(id),
                },
                other => other.target(),
            };
            role.permissions()
                .iter()
                .all(|permission| allows(creator, *permission, &target))
        })
        .collect()
}

/// Whether any grant allows `permission` on `target`.
pub fn allows(grants: &[Grant], permission: Permission, target: &Target) -> bool {
    grants
        .iter()
        .any(|(role, scope)| scope.reaches(target) && role.permissions().contains(&permission))
}

/// Whether any grant reaches `target` at all. Something a caller holds nothing in is, to them,
/// something that does not exist: a lookup answers as it does for a missing one, so a stranger
/// cannot learn which names and ids are taken by asking for them.
pub fn sees(grants: &[Grant], target: &Target) -> bool {
    grants.iter().any(|(_, scope)| scope.reaches(target))
}

/// [`allows`], or the refusal naming the permission; `described` names the target for people.
pub fn check(
    grants: &[Grant],
    permission: Permission,
    target: &Target,
    described: impl FnOnce() -> String,
) -> Result<(), Denied> {
    if allows(grants, permission, target) {
        Ok(())
    } else {
        Err(Denied {
            permission,
            target: described(),
        })
    }
}

/// Whether a caller with `grants` may hand `role` on `scope` to someone (or to an application):
/// only roles no wider than their own there. Refuses with the first permission they lack.
pub fn may_grant(grants: &[Grant], role: Role, scope: &Scope) -> Result<(), Denied> {
    let target = scope.target();
    for permission in role.permissions() {
        check(grants, *permission, &target, || describe(scope))?;
    }
    Ok(())
}

/// The scope for people: "the system", "project 4".
pub fn describe(scope: &Scope) -> String {
    match scope {
        Scope::System => "the system".into(),
        Scope::Department(id) => format!("department {id}"),
        Scope::Project(id) => format!("project {id}"),
    }
}

/// Which projects a caller may exercise one permission in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    pub everything: bool,
    pub departments: BTreeSet<String>,
    pub projects: BTreeSet<String>,
}

impl Reach {
    pub fn of(grants: &[Grant], permission: Permission) -> Reach {
        let mut reach = Reach::default();
        for (role, scope) in grants {
            if !role.permissions().contains(&permission) {
                continue;
            }
            match scope {
                Scope::System => reach.everything = true,
                Scope::Department(id) => {
                    reach.departments.insert(id.clone());
                }
                Scope::Project(id) => {
                    reach.projects.insert(id.clone());
                }
            }
        }
        reach
    }

    pub fn includes(&self, project: &str, department: Option<&str>) -> bool {
        self.everything
            || self.projects.contains(project)
            || department.is_some_and(|d| self.departments.contains(d))
    }
}

#[cfg(test)]
mod tests;
