//! Departments: who may see and change them, the checks on their quotas, and refusing to delete
//! one that still has projects. System administrators manage departments; department
//! administrators manage the projects of their department within its quota (`org_projects`).

use super::Organisation;
use crate::authorize;
use crate::db::departments::{Department, DepartmentFields, DepartmentWithCounts};
use crate::service::lookup::{actor, no_department, seen_department};
use app::error::AppError;
use chrono::SecondsFormat;
use tephra_core::domain::authz::{Permission, Scope};
use tephra_core::domain::quota;
use tephra_core::model::org::{self, DepartmentRequest};
use tephra_core::model::principal::Principal;
use tephra_core::model::validation::{FieldError, dns1123_label};

/// The longest project name: the namespace `<prefix><name>` must stay a DNS label.
pub(super) const NAMESPACE_MAX: usize = 63;

pub(super) fn rfc3339(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl Organisation {
    fn department_view(&self, d: &Department) -> org::Department {
        org::Department {
            id: d.id.to_string(),
            name: d.name.clone(),
            cluster_id: self.cluster.id.clone(),
            description: d.description.clone(),
            resources: d.resources.0.clone(),
            queue: d.queue.clone(),
            created_at: rfc3339(d.created_at),
            updated_at: rfc3339(d.updated_at),
        }
    }

    /// The department `key` names, if the principal can see it: one it cannot is answered as
    /// one that does not exist.
    pub(super) async fn department_for(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<Department, AppError> {
        seen_department(&self.db, principal, key)
            .await?
            .ok_or_else(|| AppError::NotFound(no_department(key)))
    }

    /// The departments where the principal may read projects.
    pub async fn departments(
        &self,
        principal: &Principal,
    ) -> Result<Vec<org::Department>, AppError> {
        let all = self.db.departments().list().await?;
        Ok(all
            .iter()
            .filter(|d| may_read_department(principal, d.department.id))
            .map(|d| self.department_view(&d.department))
            .collect())
    }

    pub async fn department(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<org::Department, AppError> {
        let department = self.department_for(principal, key).await?;
        authorize::require_on(principal, Permission::ReadProject, &scope_of(&department))?;
        Ok(self.department_view(&department))
    }

    pub async fn create_department(
        &self,
        principal: &Principal,
        request: DepartmentRequest,
    ) -> Result<org::Department, AppError> {
        authorize::require_system(principal, Permission::ManageSystem)?;
        let fields = self.department_fields(&request)?;
        let department = self
            .db
            .departments()
            .create(&self.namespaces.prefix, &fields, actor(principal))
            .await?;
        self.cluster.org_changed();
        Ok(self.department_view(&department))
    }

    pub async fn update_department(
        &self,
        principal: &Principal,
        key: &str,
        request: DepartmentRequest,
    ) -> Result<org::Department, AppError> {
        authorize::require_system(principal, Permission::ManageSystem)?;
        let department = self.department_for(principal, key).await?;
        if request.name != department.name {
            return Err(AppError::field(
                "name",
                format!(
                    "a department keeps its name ({:?}): its queue is named after it",
                    department.name
                ),
            ));
        }
        let fields = self.department_fields(&request)?;
        let updated = self
            .db
            .departments()
            .update(department.id, &fields, actor(principal))
            .await?;
        self.cluster.org_changed();
        Ok(self.department_view(&updated))
    }

    pub async fn delete_department(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<(), AppError> {
        authorize::require_system(principal, Permission::ManageSystem)?;
        let department = self.department_for(principal, key).await?;
        if department.name == crate::db::departments::DEFAULT_DEPARTMENT {
            return Err(AppError::Conflict(
                "the default department cannot be deleted".into(),
            ));
        }
        if !self
            .db
            .departments()
            .delete(department.id, actor(principal))
            .await?
        {
            let projects: Vec<String> = self
                .db
                .projects()
                .list()
                .await?
                .into_iter()
                .filter(|p| p.project.department_id == department.id)
                .map(|p| p.project.name)
                .collect();
            return Err(AppError::Conflict(format!(
                "department {:?} still has projects: {}; delete or move them first",
                department.name,
                projects.join(", ")
            )));
        }
        self.cluster.org_changed();
        Ok(())
    }

    fn department_fields(&self, request: &DepartmentRequest) -> Result<DepartmentFields, AppError> {
        let mut errors = self.common_checks(&request.name, request.cluster_id.as_deref());
        errors.extend(quota::check_resources(&request.resources));
        if !errors.is_empty() {
            return Err(AppError::Rejected(errors));
        }
        Ok(DepartmentFields {
            name: request.name.clone(),
            description: request.description.clone().unwrap_or_default(),
            resources: request.resources.clone(),
        })
    }

    /// The name and cluster checks departments and projects share.
    pub(super) fn common_checks(&self, name: &str, cluster_id: Option<&str>) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let max = NAMESPACE_MAX.saturating_sub(self.namespaces.prefix.len());
        if let Err(message) = dns1123_label(name, max) {
            errors.push(FieldError {
                path: "name".into(),
                message,
            });
        }
        if let Some(cluster) = cluster_id
            && !cluster.eq_ignore_ascii_case(&self.cluster.id)
        {
            errors.push(FieldError {
                path: "clusterId".into(),
                message: format!(
                    "unknown cluster {cluster:?}; this Tephra manages cluster {:?}",
                    self.cluster.id
                ),
            });
        }
        errors
    }
}

pub(super) fn scope_of(department: &Department) -> Scope {
    Scope::Department(department.id.to_string())
}

fn may_read_department(principal: &Principal, id: i64) -> bool {
    authorize::require_on(
        principal,
        Permission::ReadProject,
        &Scope::Department(id.to_string()),
    )
    .is_ok()
}

pub(super) fn department_name(departments: &[DepartmentWithCounts], id: i64) -> &str {
    departments
        .iter()
        .find(|d| d.department.id == id)
        .map_or("", |d| d.department.name.as_str())
}
