//! Where a rule applies (a [`Scope`]) and what an action is on (a [`Target`]).

use serde::{Deserialize, Serialize};

/// Where a rule applies.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "type", content = "id", rename_all = "lowercase")]
pub enum Scope {
    System,
    Department(String),
    Project(String),
}

impl Scope {
    pub const TYPES: &str = "system, department or project";

    pub fn kind(&self) -> &'static str {
        match self {
            Scope::System => "system",
            Scope::Department(_) => "department",
            Scope::Project(_) => "project",
        }
    }

    /// The id as Run:ai's `scopeId` spells it (the system's is empty).
    pub fn id(&self) -> &str {
        match self {
            Scope::System => "",
            Scope::Department(id) | Scope::Project(id) => id,
        }
    }

    /// What the scope covers, to check a permission on it.
    pub fn target(&self) -> Target {
        match self {
            Scope::System => Target::System,
            Scope::Department(id) => Target::Department(id.clone()),
            Scope::Project(id) => Target::Project {
                id: id.clone(),
                department: None,
            },
        }
    }

    /// Whether a rule on this scope reaches `target`: the system reaches everything, a
    /// department its projects.
    pub(super) fn reaches(&self, target: &Target) -> bool {
        match (self, target) {
            (Scope::System, _) => true,
            (Scope::Department(d), Target::Department(t)) => d == t,
            (Scope::Department(d), Target::Project { department, .. }) => {
                department.as_ref() == Some(d)
            }
            (Scope::Project(p), Target::Project { id, .. }) => p == id,
            _ => false,
        }
    }
}

/// What is acted on: the system, a department, or a project (in its department, once projects
/// have departments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    System,
    Department(String),
    Project {
        id: String,
        department: Option<String>,
    },
}
