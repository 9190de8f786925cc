//! What the audit trail records: one spelling per action and per kind of object, written by the
//! server, read back from the store, shown on the audit page and in a workload's history.

use serde::{Deserialize, Serialize};
use serde_with::{DeserializeFromStr, SerializeDisplay};

/// What happened to a workload, as its history names it (`GET /api/v1/workloads/{id}/history`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum HistoryAction {
    Submit,
    Edit,
    Suspend,
    Resume,
    /// Someone asked for it to be deleted.
    Delete,
    /// The project's idle GPU rule suspended it.
    IdleSuspend,
    /// Tephra stopped it at its time limit (`maxRunTimeSeconds`).
    TimeLimit,
    /// Admitted beyond the project's quota, so preemptible.
    OverQuota,
    /// Admitted into the queue behind its project's or department's work, under a limit.
    Queued,
    /// The cluster moved it to another phase.
    Phase,
    /// Its objects are gone from the cluster.
    Deleted,
    /// Volcano evicted it for another workload.
    Preempted,
}

impl HistoryAction {
    pub const ALL: [HistoryAction; 12] = [
        HistoryAction::Submit,
        HistoryAction::Edit,
        HistoryAction::Suspend,
        HistoryAction::Resume,
        HistoryAction::Delete,
        HistoryAction::IdleSuspend,
        HistoryAction::TimeLimit,
        HistoryAction::OverQuota,
        HistoryAction::Queued,
        HistoryAction::Phase,
        HistoryAction::Deleted,
        HistoryAction::Preempted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HistoryAction::Submit => "submit",
            HistoryAction::Edit => "edit",
            HistoryAction::Suspend => "suspend",
            HistoryAction::Resume => "resume",
            HistoryAction::Delete => "delete",
            HistoryAction::IdleSuspend => "idle-suspend",
            HistoryAction::TimeLimit => "time-limit",
            HistoryAction::OverQuota => "over-quota",
            HistoryAction::Queued => "queued",
            HistoryAction::Phase => "phase",
            HistoryAction::Deleted => "deleted",
            HistoryAction::Preempted => "preempted",
        }
    }
}

impl From<crate::model::action::Action> for HistoryAction {
    fn from(action: crate::model::action::Action) -> Self {
        use crate::model::action::Action;
        match action {
            Action::Suspend => HistoryAction::Suspend,
            Action::Resume => HistoryAction::Resume,
            Action::Delete => HistoryAction::Delete,
        }
    }
}

impl std::fmt::Display for HistoryAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An audit event's action, spelled `<object>.<verb>` in the store and on the wire
/// (`workload.submit`, `auth.sign_in`), so a filter by its first part finds a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, SerializeDisplay, DeserializeFromStr)]
pub enum AuditAction {
    Workload(HistoryAction),
    /// The system policy replaced one of node protection's rules.
    NodeProtectionReplaced,
    /// A scope's policy of one kind was saved (its whole body in the detail), or removed.
    PolicySet,
    PolicyDelete,
    /// A department or a project was made, changed (its quota, description, scheduling) or
    /// removed; a change's detail holds what it was before and after.
    DepartmentCreate,
    DepartmentUpdate,
    DepartmentDelete,
    ProjectCreate,
    ProjectUpdate,
    ProjectDelete,
    AccessRuleAdd,
    AccessRuleRemove,
    ApplicationCreate,
    ApplicationRevoke,
    ApplicationRotateSecret,
    SignIn,
    SignInFailed,
    SignOut,
    /// Entries older than the retention (`--audit-retention-days`) were removed; how many and
    /// up to when are in the detail.
    AuditForgotten,
}

impl AuditAction {
    const OTHERS: [(AuditAction, &'static str); 18] = [
        (
            AuditAction::NodeProtectionReplaced,
            "policy.node-protection",
        ),
        (AuditAction::PolicySet, "policy.set"),
        (AuditAction::PolicyDelete, "policy.delete"),
        (AuditAction::DepartmentCreate, "department.create"),
        (AuditAction::DepartmentUpdate, "department.update"),
        (AuditAction::DepartmentDelete, "department.delete"),
        (AuditAction::ProjectCreate, "project.create"),
        (AuditAction::ProjectUpdate, "project.update"),
        (AuditAction::ProjectDelete, "project.delete"),
        (AuditAction::AccessRuleAdd, "access_rule.add"),
        (AuditAction::AccessRuleRemove, "access_rule.remove"),
        (AuditAction::ApplicationCreate, "application.create"),
        (AuditAction::ApplicationRevoke, "application.revoke"),
        (
            AuditAction::ApplicationRotateSecret,
            "application.rotate_secret",
        ),
        (AuditAction::SignIn, "auth.sign_in"),
        (AuditAction::SignInFailed, "auth.sign_in_failed"),
        (AuditAction::SignOut, "auth.sign_out"),
        (AuditAction::AuditForgotten, "audit.forgotten"),
    ];

    /// How the store and the API spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::Workload(action) => match action {
                HistoryAction::Submit => "workload.submit",
                HistoryAction::Edit => "workload.edit",
                HistoryAction::Suspend => "workload.suspend",
                HistoryAction::Resume => "workload.resume",
                HistoryAction::Delete => "workload.delete",
                HistoryAction::IdleSuspend => "workload.idle-suspend",
                HistoryAction::TimeLimit => "workload.time-limit",
                HistoryAction::OverQuota => "workload.over-quota",
                HistoryAction::Queued => "workload.queued",
                HistoryAction::Phase => "workload.phase",
                HistoryAction::Deleted => "workload.deleted",
                HistoryAction::Preempted => "workload.preempted",
            },
            other => Self::OTHERS
                .iter()
                .find(|(action, _)| *action == other)
                .map_or("", |(_, text)| text),
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        HistoryAction::ALL
            .into_iter()
            .map(AuditAction::Workload)
            .chain(Self::OTHERS.iter().map(|(action, _)| *action))
            .find(|action| action.as_str() == text)
    }

    /// What happened to a workload, when this is about one.
    pub fn on_workload(self) -> Option<HistoryAction> {
        match self {
            AuditAction::Workload(action) => Some(action),
            _ => None,
        }
    }
}

impl std::fmt::Display for AuditAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for AuditAction {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::parse(text).ok_or_else(|| format!("no audit action is called {text:?}"))
    }
}

impl PartialEq<&str> for AuditAction {
    fn eq(&self, text: &&str) -> bool {
        self.as_str() == *text
    }
}

/// The kind of object an audit event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuditTarget {
    Workload,
    User,
    Application,
    AccessRule,
    /// A scope's policy; the scope and the kind are in the entry's detail.
    Policy,
    /// A department; its id (a number, not a UUID) is in the entry's detail.
    Department,
    Project,
    System,
}

impl AuditTarget {
    pub const ALL: [AuditTarget; 8] = [
        AuditTarget::Workload,
        AuditTarget::User,
        AuditTarget::Application,
        AuditTarget::AccessRule,
        AuditTarget::Policy,
        AuditTarget::Department,
        AuditTarget::Project,
        AuditTarget::System,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AuditTarget::Workload => "workload",
            AuditTarget::User => "user",
            AuditTarget::Application => "application",
            AuditTarget::AccessRule => "access_rule",
            AuditTarget::Policy => "policy",
            AuditTarget::Department => "department",
            AuditTarget::Project => "project",
            AuditTarget::System => "system",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|target| target.as_str() == text)
    }
}

impl std::fmt::Display for AuditTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for AuditTarget {
    fn eq(&self, text: &&str) -> bool {
        self.as_str() == *text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_reads_back_from_its_spelling() {
        let all = HistoryAction::ALL
            .into_iter()
            .map(AuditAction::Workload)
            .chain(AuditAction::OTHERS.iter().map(|(action, _)| *action));
        for action in all {
            assert!(!action.as_str().is_empty(), "{action:?}");
            assert_eq!(AuditAction::parse(action.as_str()), Some(action));
            let json = serde_json::to_value(action).unwrap();
            assert_eq!(json, action.as_str());
            assert_eq!(serde_json::from_value::<AuditAction>(json).unwrap(), action);
        }
        assert_eq!(AuditAction::parse("workload.resumed"), None);
    }

    #[test]
    fn a_workload_action_is_its_history_verb_behind_workload() {
        for action in HistoryAction::ALL {
            let audit = AuditAction::Workload(action).as_str();
            assert_eq!(audit.strip_prefix("workload."), Some(action.as_str()));
            assert_eq!(serde_json::to_value(action).unwrap(), action.as_str());
        }
    }

    #[test]
    fn each_target_reads_back_from_its_spelling() {
        for target in AuditTarget::ALL {
            assert_eq!(AuditTarget::parse(target.as_str()), Some(target));
            assert_eq!(serde_json::to_value(target).unwrap(), target.as_str());
        }
    }
}
