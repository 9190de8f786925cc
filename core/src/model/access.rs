//! Roles, access rules, applications and the audit trail as the API returns them, in Run:ai's
//! shapes (`/api/v1/authorization/*`, `/api/v1/apps`, `POST /api/v1/token`).

use serde::{Deserialize, Serialize};

/// A predefined role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RoleView {
    pub id: i64,
    pub name: String,
    pub description: String,
    /// What it allows wherever its scope reaches, e.g. `workloads:manage`.
    pub permissions: Vec<String>,
}

/// An access rule to add: `subjectType` is `user` (an e-mail or the provider's subject),
/// `group` (from the provider's groups claim) or `app` (an application's name); `scopeType` is
/// `system` or `project` (`scopeId` its id or name).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewAccessRule {
    pub subject_id: String,
    pub subject_type: String,
    pub role_id: i64,
    #[serde(default)]
    pub scope_id: String,
    pub scope_type: String,
    /// Run:ai sends the cluster; one Tephra manages one, so it is accepted and ignored.
    #[serde(default, skip_serializing)]
    pub cluster_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccessRuleView {
    pub id: i64,
    pub subject_id: String,
    pub subject_type: String,
    pub role_id: i64,
    pub role_name: String,
    pub scope_id: String,
    pub scope_type: String,
    pub scope_name: String,
    pub created_by: Option<String>,
    /// RFC 3339.
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccessRuleList {
    pub total_records: usize,
    pub display_records: usize,
    pub access_rules: Vec<AccessRuleView>,
}

/// A role for a new application, on a scope (as in [`NewAccessRule`], the subject being the
/// application).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppRole {
    pub role_id: i64,
    pub scope_type: String,
    #[serde(default)]
    pub scope_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewApplication {
    /// Lowercase letters, digits and `-`; it is also the client id.
    pub name: String,
    /// Roles to give it, each no wider than the creator's own on that scope. It acts with no
    /// more than its creator holds at the time, whatever it was given.
    #[serde(default)]
    pub roles: Vec<AppRole>,
    /// When its secret stops working (RFC 3339): at most a year ahead; 90 days when left out.
    #[serde(default)]
    pub expires_at: Option<String>,
    /// Must be `true` to give it the system administrator role, which reaches everything.
    #[serde(default)]
    pub confirm_system_administrator: bool,
}

/// A new secret for an application (`POST /api/v1/apps/{id}/secret`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewAppSecret {
    /// When the new secret stops working (RFC 3339); 90 days when left out.
    #[serde(default)]
    pub expires_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApplicationView {
    pub id: String,
    pub name: String,
    /// What `POST /api/v1/token` takes as `clientId` (or `AppId`).
    pub client_id: String,
    pub created_by: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
    /// When its secret, and every token from it, stops working.
    pub expires_at: Option<String>,
    /// Whether that time has passed (a new secret makes it work again).
    pub expired: bool,
    pub enabled: bool,
    /// "Researcher in vision" and the like.
    pub roles: Vec<String>,
}

/// The answer to creating an application: the only time the secret is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreatedApplication {
    #[serde(flatten)]
    pub application: ApplicationView,
    pub client_secret: String,
}

/// Filters of the audit trail; all optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditQuery {
    /// The actor's e-mail, name, or an application's name.
    pub actor: Option<String>,
    /// An action (`workload.submit`) or its first part (`workload`, `auth`).
    pub action: Option<String>,
    /// `workload`, `user`, `application` or `access_rule`.
    pub target_type: Option<String>,
    /// Only events at or after this time (RFC 3339).
    pub since: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: i64,
    /// RFC 3339.
    pub at: String,
    /// Who acted: a person's e-mail or name, an application's name; none for Tephra itself.
    pub actor: Option<String>,
    /// `user`, `application` or `tephra`.
    pub actor_type: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "workload.submit"))]
    pub action: crate::model::history::AuditAction,
    pub target_type: crate::model::history::AuditTarget,
    pub target_id: String,
    /// The detail in one line of words: a change as `setting: before → after`, node pools'
    /// quotas as amounts ("default pool 8 GPUs up to 12 GPUs"), other fields as `name value`.
    pub summary: String,
    pub detail: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub total: i64,
    pub events: Vec<AuditEntry>,
}
