//! Access rules, after Run:ai's `/api/v1/authorization/access-rules`.

use super::{Access, actor, invalid, name_of, rfc3339};
use crate::authorize;
use crate::db::DbError;
use crate::db::access_rules::StoredRule;
use crate::db::departments::DepartmentWithCounts;
use crate::db::projects::ProjectWithCounts;
use crate::service::lookup::{department_by_key, project_by_key, scope_gone};
use app::error::AppError;
use tephra_core::domain::authz::{self, AccessRule, Permission, Role, Scope, Subject};
use tephra_core::model::access::{AccessRuleList, AccessRuleView, NewAccessRule, RoleView};
use tephra_core::model::principal::Principal;

/// The longest subject id accepted (an e-mail address may be 254 characters).
const SUBJECT_MAX: usize = 320;

/// Filters of the rule list (Run:ai's query parameters); all optional.
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RuleQuery {
    pub subject_type: Option<String>,
    pub subject_id: Option<String>,
    pub role_id: Option<i64>,
    pub scope_type: Option<String>,
    pub scope_id: Option<String>,
}

pub fn roles() -> Vec<RoleView> {
    Role::ALL
        .into_iter()
        .map(|role| RoleView {
            id: role.id(),
            name: role.name().to_owned(),
            description: role.description().to_owned(),
            permissions: role
                .permissions()
                .iter()
                .map(|p| p.as_str().to_owned())
                .collect(),
        })
        .collect()
}

fn role_list() -> String {
    Role::ALL
        .iter()
        .map(|r| format!("{} ({})", r.id(), r.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The projects and departments, to name scopes.
pub(super) struct OrgNames {
    projects: Vec<ProjectWithCounts>,
    departments: Vec<DepartmentWithCounts>,
}

/// The scope's name for people: the project's or department's name, empty for the system.
fn scope_name(org: &OrgNames, scope: &Scope) -> String {
    let projects = &org.projects;
    match scope {
        Scope::System => String::new(),
        Scope::Department(id) => org
            .departments
            .iter()
            .find(|d| d.department.id.to_string() == *id)
            .map_or_else(|| id.clone(), |d| d.department.name.clone()),
        Scope::Project(id) => projects
            .iter()
            .find(|p| p.project.id.to_string() == *id)
            .map_or_else(|| id.clone(), |p| p.project.name.clone()),
    }
}

/// Whether `principal` may change who holds roles on `scope`: project members' administrators
/// on projects, system administrators on the system.
pub(super) fn may_manage(principal: &Principal, scope: &Scope) -> Result<(), AppError> {
    match scope {
        Scope::System => authorize::require_system(principal, Permission::ManageSystem),
        other => authorize::require_on(principal, Permission::ManageMembers, other),
    }
}

/// Refuses a role wider than the principal's own on `scope`, naming the field.
pub(super) fn no_wider(
    principal: &Principal,
    role: Role,
    scope: &Scope,
    field: &str,
) -> Result<(), AppError> {
    authz::may_grant(&authorize::grants(principal), role, scope).map_err(|denied| {
        AppError::Forbidden(format!(
            "{field}: {} is wider than your own role there ({denied})",
            role.name()
        ))
    })
}

impl Access {
    /// A role on a scope from the request's fields; `prefix` names them in errors
    /// (`roles[0].`).
    pub(super) async fn role_on_scope(
        &self,
        principal: &Principal,
        role_id: i64,
        scope_type: &str,
        scope_id: &str,
        prefix: &str,
    ) -> Result<(Role, Scope), AppError> {
        let role = Role::from_id(role_id).ok_or_else(|| {
            invalid(
                &format!("{prefix}roleId"),
                format!("{role_id} is not a role: one of {}", role_list()),
            )
        })?;
        let scope = match scope_type {
            "system" => Scope::System,
            "project" => {
                let field = format!("{prefix}scopeId");
                let project = project_by_key(&self.db, principal, scope_id, &field).await?;
                Scope::Project(project.id.to_string())
            }
            "department" => {
                let field = format!("{prefix}scopeId");
                let department = department_by_key(&self.db, principal, scope_id, &field).await?;
                Scope::Department(department.id.to_string())
            }
            other => {
                return Err(invalid(
                    &format!("{prefix}scopeType"),
                    format!("{other:?} is not allowed: {}", Scope::TYPES),
                ));
            }
        };
        let fits = match role {
            Role::SystemAdministrator => scope == Scope::System,
            Role::DepartmentAdministrator => matches!(scope, Scope::Department(_)),
            _ => true,
        };
        if !fits {
            return Err(invalid(
                &format!("{prefix}scopeType"),
                format!(
                    "{} is held on {}, not on a {scope_type}",
                    role.name(),
                    if role == Role::SystemAdministrator {
                        "the system"
                    } else {
                        "a department"
                    }
                ),
            ));
        }
        Ok((role, scope))
    }

    async fn parse(
        &self,
        principal: &Principal,
        new: &NewAccessRule,
    ) -> Result<AccessRule, AppError> {
        let id = new.subject_id.trim();
        if id.is_empty() || id.len() > SUBJECT_MAX || id.chars().any(char::is_control) {
            return Err(invalid(
                "subjectId",
                format!("must be 1 to {SUBJECT_MAX} printable characters"),
            ));
        }
        let subject =
            Subject::parse(&new.subject_type, id).map_err(|m| invalid("subjectType", m))?;
        let (role, scope) = self
            .role_on_scope(principal, new.role_id, &new.scope_type, &new.scope_id, "")
            .await?;
        Ok(AccessRule {
            subject,
            role,
            scope,
        })
    }

    /// Whether `principal` owns the application a rule names (owners give their own
    /// applications roles no wider than theirs, without managing the project's members).
    async fn owns_app(&self, principal: &Principal, subject: &Subject) -> Result<bool, AppError> {
        let Subject::App(name) = subject else {
            return Ok(false);
        };
        match self.db.applications().by_name(name).await {
            Ok(app) => Ok(Some(app.owner_id) == actor(principal)),
            Err(DbError::NotFound) => Err(invalid(
                "subjectId",
                format!("no application is named {name:?}; GET /api/v1/apps lists yours"),
            )),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn add_rule(
        &self,
        principal: &Principal,
        new: &NewAccessRule,
    ) -> Result<AccessRuleView, AppError> {
        let rule = self.parse(principal, new).await?;
        if !self.owns_app(principal, &rule.subject).await? {
            may_manage(principal, &rule.scope)?;
        }
        no_wider(principal, rule.role, &rule.scope, "roleId")?;
        let stored = match self.db.access_rules().add(&rule, actor(principal)).await {
            Err(DbError::NotFound) => return Err(scope_gone(&rule.scope)),
            other => other?,
        };
        tracing::info!(rule = stored.id, subject = ?rule.subject, role = rule.role.name(), "access rule added");
        self.view(&stored).await
    }

    pub async fn remove_rule(
        &self,
        principal: &Principal,
        id: i64,
    ) -> Result<AccessRuleView, AppError> {
        let stored = self.rule(id).await?;
        if !self
            .owns_app(principal, &stored.rule.subject)
            .await
            .unwrap_or(false)
        {
            // As in `get_rule`: a rule on a scope the caller cannot see is not there for them
            // (rule ids are sequential; a 403 would confirm one and name its scope).
            if !visible(principal, &stored.rule.scope) {
                return Err(not_found(id));
            }
            may_manage(principal, &stored.rule.scope)?;
        }
        let view = self.view(&stored).await?;
        match self.db.access_rules().remove(id, actor(principal)).await {
            Ok(_) => Ok(view),
            Err(DbError::NotFound) => Err(not_found(id)),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn get_rule(
        &self,
        principal: &Principal,
        id: i64,
    ) -> Result<AccessRuleView, AppError> {
        let stored = self.rule(id).await?;
        if !visible(principal, &stored.rule.scope) {
            return Err(not_found(id));
        }
        self.view(&stored).await
    }

    pub async fn list_rules(
        &self,
        principal: &Principal,
        query: &RuleQuery,
    ) -> Result<AccessRuleList, AppError> {
        let all = self.db.access_rules().all().await?;
        let projects = self.org_names().await?;
        let users = self.names().await?;
        let rules: Vec<AccessRuleView> = all
            .iter()
            .filter(|s| visible(principal, &s.rule.scope))
            .map(|s| view_of(s, &projects, &users))
            .filter(|v| {
                query
                    .subject_type
                    .as_ref()
                    .is_none_or(|t| *t == v.subject_type)
                    && query.subject_id.as_ref().is_none_or(|t| *t == v.subject_id)
                    && query.role_id.is_none_or(|r| r == v.role_id)
                    && query.scope_type.as_ref().is_none_or(|t| *t == v.scope_type)
                    && query
                        .scope_id
                        .as_ref()
                        .is_none_or(|t| *t == v.scope_id || *t == v.scope_name)
            })
            .collect();
        Ok(AccessRuleList {
            total_records: rules.len(),
            display_records: rules.len(),
            access_rules: rules,
        })
    }

    async fn rule(&self, id: i64) -> Result<StoredRule, AppError> {
        match self.db.access_rules().get(id).await {
            Ok(stored) => Ok(stored),
            Err(DbError::NotFound) => Err(not_found(id)),
            Err(e) => Err(e.into()),
        }
    }

    async fn org_names(&self) -> Result<OrgNames, AppError> {
        Ok(OrgNames {
            projects: self.db.projects().list().await?,
            departments: self.db.departments().list().await?,
        })
    }

    async fn view(&self, stored: &StoredRule) -> Result<AccessRuleView, AppError> {
        let projects = self.org_names().await?;
        let users = self.names().await?;
        Ok(view_of(stored, &projects, &users))
    }

    /// "Researcher in vision" for each rule naming `subject`.
    pub(super) async fn role_labels(&self, subject: &Subject) -> Result<Vec<String>, AppError> {
        let all = self.db.access_rules().all().await?;
        let projects = self.org_names().await?;
        Ok(all
            .iter()
            .filter(|s| s.rule.subject == *subject)
            .map(|s| match &s.rule.scope {
                Scope::System => s.rule.role.name().to_owned(),
                scope => format!("{} in {}", s.rule.role.name(), scope_name(&projects, scope)),
            })
            .collect())
    }
}

/// Rules are shown to those who may see their scope: a project's members see who else is in it.
fn visible(principal: &Principal, scope: &Scope) -> bool {
    let grants = authorize::grants(principal);
    match scope {
        Scope::System => authz::allows(&grants, Permission::ManageSystem, &scope.target()),
        other => authz::allows(&grants, Permission::ReadProject, &other.target()),
    }
}

fn not_found(id: i64) -> AppError {
    AppError::NotFound(format!("no access rule with the id {id}"))
}

fn view_of(
    stored: &StoredRule,
    projects: &OrgNames,
    users: &[crate::db::users::User],
) -> AccessRuleView {
    let rule = &stored.rule;
    AccessRuleView {
        id: stored.id,
        subject_id: rule.subject.id().to_owned(),
        subject_type: rule.subject.kind().to_owned(),
        role_id: rule.role.id(),
        role_name: rule.role.name().to_owned(),
        scope_id: rule.scope.id().to_owned(),
        scope_type: rule.scope.kind().to_owned(),
        scope_name: scope_name(projects, &rule.scope),
        created_by: name_of(users, stored.created_by),
        created_at: rfc3339(stored.created_at),
    }
}
