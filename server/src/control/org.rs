//! Departments and projects: who may see and change them, the checks on their quotas, and
//! refusing to delete what still has work in it. System administrators manage departments;
//! department administrators manage the projects of their department within its quota.

use super::Control;
use crate::access;
use crate::db::DbError;
use crate::db::departments::{Department, DepartmentFields, DepartmentWithCounts};
use crate::db::projects::{NewProject, Project, ProjectFields, ProjectWithCounts};
use crate::domain::authz::{Permission, Scope};
use crate::domain::quota::{self, Allowance, Bound, Resource};
use app::error::AppError;
use app::model::org::{self, DepartmentRequest, ProjectRequest};
use app::model::principal::Principal;
use app::model::validation::{FieldError, dns1123_label};
use chrono::SecondsFormat;

/// The longest project name: the namespace `<prefix><name>` must stay a DNS label.
const NAMESPACE_MAX: usize = 63;

fn rfc3339(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl Control {
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

    fn project_view(&self, p: &Project, workloads: i64, department: &str) -> org::Project {
        org::Project {
            id: p.number.to_string(),
            name: p.name.clone(),
            cluster_id: self.cluster.id.clone(),
            description: p.description.clone(),
            parent_id: p.department_id.to_string(),
            parent_name: department.to_owned(),
            resources: p.resources.0.clone(),
            default_node_pools: p.default_node_pools.as_ref().map(|j| j.0.clone()),
            requested_namespace: p.namespace.clone(),
            queue: p.queue.clone(),
            workloads,
            created_at: rfc3339(p.created_at),
            updated_at: rfc3339(p.updated_at),
        }
    }

    async fn department_by_key(&self, key: &str) -> Result<Department, AppError> {
        match self.db.departments().by_key(key).await {
            Ok(d) => Ok(d),
            Err(DbError::NotFound) => Err(AppError::NotFound(format!(
                "no department has the id or name {key:?}"
            ))),
            Err(e) => Err(e.into()),
        }
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
        let department = self.department_by_key(key).await?;
        access::require_on(principal, Permission::ReadProject, &scope_of(&department))?;
        Ok(self.department_view(&department))
    }

    pub async fn create_department(
        &self,
        principal: &Principal,
        request: DepartmentRequest,
    ) -> Result<org::Department, AppError> {
        access::require_system(principal, Permission::ManageSystem)?;
        let fields = self.department_fields(&request)?;
        let department = self
            .db
            .departments()
            .create(&self.namespace_prefix, &fields)
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
        access::require_system(principal, Permission::ManageSystem)?;
        let department = self.department_by_key(key).await?;
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
        let updated = self.db.departments().update(department.id, &fields).await?;
        self.cluster.org_changed();
        Ok(self.department_view(&updated))
    }

    pub async fn delete_department(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<(), AppError> {
        access::require_system(principal, Permission::ManageSystem)?;
        let department = self.department_by_key(key).await?;
        if department.name == crate::db::departments::DEFAULT_DEPARTMENT {
            return Err(AppError::Conflict(
                "the default department cannot be deleted".into(),
            ));
        }
        if !self.db.departments().delete(department.id).await? {
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
    fn common_checks(&self, name: &str, cluster_id: Option<&str>) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let max = NAMESPACE_MAX.saturating_sub(self.namespace_prefix.len());
        if let Err(message) = dns1123_label(name, max) {
            errors.push(FieldError {
                path: "name".into(),
                message,
            });
        }
        if let Some(cluster) = cluster_id
            && cluster != self.cluster.id
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

    /// The projects the principal may read, in Run:ai's shape.
    pub async fn org_projects(&self, principal: &Principal) -> Result<Vec<org::Project>, AppError> {
        let projects = self.projects(principal, Permission::ReadProject).await?;
        let departments = self.db.departments().list().await?;
        Ok(projects
            .iter()
            .map(|p| {
                let department = department_name(&departments, p.project.department_id);
                self.project_view(&p.project, p.workloads, department)
            })
            .collect())
    }

    pub async fn org_project(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<org::Project, AppError> {
        let project = self
            .project_for(principal, key, Permission::ReadProject)
            .await?;
        self.project_with_counts(&project).await
    }

    async fn project_with_counts(&self, project: &Project) -> Result<org::Project, AppError> {
        let all = self.db.projects().list().await?;
        let workloads = all
            .iter()
            .find(|p| p.project.id == project.id)
            .map_or(0, |p| p.workloads);
        let department = self.db.departments().get(project.department_id).await?;
        Ok(self.project_view(project, workloads, &department.name))
    }

    /// The project `key` names, if the principal holds `permission` in it; a stranger learns
    /// only that it is not theirs.
    async fn project_for(
        &self,
        principal: &Principal,
        key: &str,
        permission: Permission,
    ) -> Result<Project, AppError> {
        let project = match self.db.projects().by_key(key).await {
            Ok(p) => p,
            Err(DbError::NotFound) => {
                return Err(AppError::NotFound(format!(
                    "no project has the id or name {key:?}"
                )));
            }
            Err(e) => return Err(e.into()),
        };
        access::require(principal, permission, &project)?;
        Ok(project)
    }

    pub async fn create_project(
        &self,
        principal: &Principal,
        request: ProjectRequest,
    ) -> Result<org::Project, AppError> {
        let department = match request.parent_id.as_deref() {
            Some(key) => self.department_by_key(key).await.map_err(|_| {
                AppError::field(
                    "parentId",
                    format!("no department has the id or name {key:?}; GET /api/v1/org-unit/departments lists them"),
                )
            })?,
            None => self.db.departments().by_name(crate::db::departments::DEFAULT_DEPARTMENT).await?,
        };
        access::require_on(
            principal,
            Permission::ManageProjects,
            &scope_of(&department),
        )?;
        let fields = self.project_fields(&request, &department, None).await?;
        let namespace = match request.requested_namespace.as_deref() {
            Some(ns) => {
                dns1123_label(ns, NAMESPACE_MAX)
                    .map_err(|m| AppError::field("requestedNamespace", m))?;
                ns.to_owned()
            }
            None => format!("{}{}", self.namespace_prefix, request.name),
        };
        let new = NewProject {
            name: request.name.clone(),
            namespace,
            queue: format!("{}{}", self.namespace_prefix, request.name),
            department_id: Some(department.id),
            fields,
        };
        let project = self.db.projects().create(&new).await?;
        self.cluster.org_changed();
        Ok(self.project_view(&project, 0, &department.name))
    }

    pub async fn update_project(
        &self,
        principal: &Principal,
        key: &str,
        request: ProjectRequest,
    ) -> Result<org::Project, AppError> {
        let project = self
            .project_for(principal, key, Permission::ReadProject)
            .await?;
        let department = self.db.departments().get(project.department_id).await?;
        access::require_on(
            principal,
            Permission::ManageProjects,
            &scope_of(&department),
        )?;
        if request.name != project.name {
            return Err(AppError::field(
                "name",
                format!(
                    "a project keeps its name ({:?}): its namespace and queue carry it",
                    project.name
                ),
            ));
        }
        if request
            .parent_id
            .as_deref()
            .is_some_and(|p| p != department.id.to_string() && p != department.name)
        {
            return Err(AppError::field(
                "parentId",
                "moving a project to another department is not supported; create a new project there",
            ));
        }
        let fields = self
            .project_fields(&request, &department, Some(&project))
            .await?;
        let updated = self.db.projects().update(project.id, &fields).await?;
        self.cluster.org_changed();
        self.project_with_counts(&updated).await
    }

    pub async fn delete_project(&self, principal: &Principal, key: &str) -> Result<(), AppError> {
        let project = self
            .project_for(principal, key, Permission::ReadProject)
            .await?;
        let department = self.db.departments().get(project.department_id).await?;
        access::require_on(
            principal,
            Permission::ManageProjects,
            &scope_of(&department),
        )?;
        if project.name == crate::db::projects::DEFAULT_PROJECT {
            return Err(AppError::Conflict(
                "the default project cannot be deleted".into(),
            ));
        }
        if let Err(live) = self.db.projects().delete(project.id).await? {
            return Err(AppError::Conflict(format!(
                "project {:?} still has workloads: {}; delete them first",
                project.name,
                live.join(", ")
            )));
        }
        self.cluster.org_changed();
        Ok(())
    }

    /// Checks a project's fields, its shares on their own and against its department's.
    async fn project_fields(
        &self,
        request: &ProjectRequest,
        department: &Department,
        existing: Option<&Project>,
    ) -> Result<ProjectFields, AppError> {
        let mut errors = self.common_checks(&request.name, request.cluster_id.as_deref());
        errors.extend(quota::check_resources(&request.resources));
        if errors.is_empty() {
            let siblings = self.db.projects().list().await?;
            let others = others_deserved(&siblings, department.id, existing.map(|p| p.id));
            errors.extend(quota::within_department(
                &department.name,
                &Allowance::of(&department.resources),
                &others,
                &Allowance::of(&request.resources),
            ));
        }
        if !errors.is_empty() {
            return Err(AppError::Rejected(errors));
        }
        Ok(ProjectFields {
            description: request.description.clone().unwrap_or_default(),
            resources: request.resources.clone(),
            default_node_pools: request.default_node_pools.clone(),
        })
    }
}

fn scope_of(department: &Department) -> Scope {
    Scope::Department(department.id.to_string())
}

fn may_read_department(principal: &Principal, id: i64) -> bool {
    access::require_on(
        principal,
        Permission::ReadProject,
        &Scope::Department(id.to_string()),
    )
    .is_ok()
}

fn department_name(departments: &[DepartmentWithCounts], id: i64) -> &str {
    departments
        .iter()
        .find(|d| d.department.id == id)
        .map_or("", |d| d.department.name.as_str())
}

/// The quotas of the department's other projects, summed.
fn others_deserved(
    projects: &[ProjectWithCounts],
    department: i64,
    except: Option<uuid::Uuid>,
) -> Bound {
    let mut sum = Bound::default();
    for p in projects
        .iter()
        .filter(|p| p.project.department_id == department && Some(p.project.id) != except)
    {
        let allowance = Allowance::of(&p.project.resources);
        for resource in Resource::ALL {
            if let Some(d) = allowance.deserved.get(resource) {
                sum.set(resource, Some(sum.get(resource).unwrap_or(0.0) + d));
            }
        }
    }
    sum
}
