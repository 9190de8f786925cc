//! Projects: created, changed and deleted within their department's quota by its
//! administrators, listed in Run:ai's shape and, with their GPU use, for the dashboard.

use super::Organisation;
use super::departments::{NAMESPACE_MAX, department_name, rfc3339, scope_of};
use crate::authorize;
use crate::cluster::namespace::Refusal;
use crate::db::departments::Department;
use crate::db::projects::{NewProject, Project, ProjectFields, Within};
use crate::service::lookup::{actor, department_by_key, no_project, projects_where, seen_project};
use app::error::AppError;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::namespaces::project_name_refusal;
use tephra_core::domain::quota::{self, Allowance};
use tephra_core::model::org::{self, PoolResources, ProjectRequest, SchedulingRules};
use tephra_core::model::principal::Principal;
use tephra_core::model::project::ProjectSummary;
use tephra_core::model::validation::dns1123_label;

/// A project as the dashboard lists it, with the GPUs its workloads that may run ask for.
pub(super) fn summary(
    p: Project,
    trainings: i64,
    department: &str,
    gpus_in_use: f64,
) -> ProjectSummary {
    let allowance = Allowance::of(&p.resources);
    ProjectSummary {
        id: p.number.to_string(),
        department: department.to_owned(),
        gpus_in_use,
        gpu_quota: allowance.deserved.gpus,
        gpu_limit: allowance.limit.gpus,
        created_at: rfc3339(p.created_at),
        name: p.name,
        namespace: p.namespace,
        queue: p.queue,
        trainings,
    }
}

impl Organisation {
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
            scheduling_rules: p.scheduling_rules.as_ref().map(|j| j.0),
            requested_namespace: p.namespace.clone(),
            queue: p.queue.clone(),
            workloads,
            created_at: rfc3339(p.created_at),
            updated_at: rfc3339(p.updated_at),
        }
    }

    /// The projects the principal may read, with their GPU quota, limit and use, for the
    /// dashboard.
    pub async fn project_summaries(
        &self,
        principal: &Principal,
    ) -> Result<Vec<ProjectSummary>, AppError> {
        let projects = projects_where(&self.db, principal, Permission::ReadProject).await?;
        let departments = self.db.departments().list().await?;
        let usage = self.db.workloads().usage_by_project().await?;
        Ok(projects
            .into_iter()
            .map(|p| {
                let department = department_name(&departments, p.project.department_id);
                let in_use = usage
                    .iter()
                    .find(|(id, _)| *id == p.project.id)
                    .map_or(0.0, |(_, a)| a.gpus);
                summary(p.project, p.workloads, department, in_use)
            })
            .collect())
    }

    /// The projects the principal may read, in Run:ai's shape.
    pub async fn org_projects(&self, principal: &Principal) -> Result<Vec<org::Project>, AppError> {
        let projects = projects_where(&self.db, principal, Permission::ReadProject).await?;
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
        let workloads = self.db.projects().workload_count(project.id).await?;
        let department = self.db.departments().get(project.department_id).await?;
        Ok(self.project_view(project, workloads, &department.name))
    }

    /// The project `key` names and its department, if the principal may manage the department's
    /// projects (a project's own members learn they may not; a stranger is told there is no such
    /// project).
    async fn managed_project(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<(Project, Department), AppError> {
        let project = self
            .project_for(principal, key, Permission::ReadProject)
            .await?;
        let department = self.db.departments().get(project.department_id).await?;
        authorize::require_on(
            principal,
            Permission::ManageProjects,
            &scope_of(&department),
        )?;
        Ok((project, department))
    }

    /// The project `key` names, if the principal holds `permission` in it; to a stranger it is a
    /// 404, as a key that names nothing.
    pub(super) async fn project_for(
        &self,
        principal: &Principal,
        key: &str,
        permission: Permission,
    ) -> Result<Project, AppError> {
        let project = seen_project(&self.db, principal, key)
            .await?
            .ok_or_else(|| AppError::NotFound(no_project(key)))?;
        authorize::require(principal, permission, &project)?;
        Ok(project)
    }

    pub async fn create_project(
        &self,
        principal: &Principal,
        request: ProjectRequest,
    ) -> Result<org::Project, AppError> {
        let department = match request.parent_id.as_deref() {
            Some(key) => department_by_key(&self.db, principal, key, "parentId").await?,
            None => {
                self.db
                    .departments()
                    .by_name(crate::db::departments::DEFAULT_DEPARTMENT)
                    .await?
            }
        };
        authorize::require_on(
            principal,
            Permission::ManageProjects,
            &scope_of(&department),
        )?;
        if let Some(why) = project_name_refusal(&request.name) {
            return Err(AppError::field("name", why));
        }
        let fields = self.project_fields(&request)?;
        let namespace = self.project_namespace(principal, &request).await?;
        let new = NewProject {
            name: request.name.clone(),
            namespace,
            queue: format!("{}{}", self.namespaces.prefix, request.name),
            department_id: Some(department.id),
            fields,
        };
        let fits = |within: &Within| fits_department(&request.resources, within);
        let project = self
            .db
            .projects()
            .create_within(&new, actor(principal), fits)
            .await??;
        self.cluster.org_changed();
        Ok(self.project_view(&project, 0, &department.name))
    }

    /// The namespace a new project gets: its name under the prefix, or (system administrators
    /// only) the one it requests, if it is one a project may have.
    async fn project_namespace(
        &self,
        principal: &Principal,
        request: &ProjectRequest,
    ) -> Result<String, AppError> {
        let (namespace, field) = match request.requested_namespace.as_deref() {
            Some(ns) => {
                if authorize::require_system(principal, Permission::ManageSystem).is_err() {
                    return Err(AppError::field(
                        "requestedNamespace",
                        "only system administrators may choose a project's namespace; leave it \
                         out and the project gets its own",
                    ));
                }
                dns1123_label(ns, NAMESPACE_MAX)
                    .map_err(|m| AppError::field("requestedNamespace", m))?;
                (ns.to_owned(), "requestedNamespace")
            }
            None => (self.namespaces.derived(&request.name), "name"),
        };
        if let Some(why) = self.namespaces.refusal(&namespace) {
            return Err(AppError::field(field, why));
        }
        match self.namespace_refusal(&namespace).await {
            None => {}
            Some(Refusal::NotOurs) => {
                return Err(AppError::field(
                    field,
                    format!(
                        "namespace {namespace:?} already exists and Tephra did not create it for \
                         this installation; a project never takes over a namespace it did not \
                         make, so choose another {field}"
                    ),
                ));
            }
            Some(Refusal::Held(by)) => {
                return Err(AppError::field(
                    field,
                    format!(
                        "namespace {namespace:?} was made for project {by:?}, and what that project \
                         left there (claims, Secrets) may still be in it; a new project never \
                         takes over another project's namespace, so choose another {field} (or \
                         have a cluster administrator delete the namespace)"
                    ),
                ));
            }
        }
        Ok(namespace)
    }

    /// Why a new project may not have `namespace` (it exists and is not this installation's,
    /// or was made for another project). When the cluster cannot be read the project is
    /// created: the controller reads the namespace again before it labels or uses it, and
    /// refuses it then.
    async fn namespace_refusal(&self, namespace: &str) -> Option<Refusal> {
        let (Some(client), Some(key)) = (&self.cluster.client, &self.cluster.key) else {
            return None;
        };
        match crate::cluster::namespace::refusal_for_new(client, key, namespace).await {
            Ok(refusal) => refusal,
            Err(error) => {
                tracing::warn!(%error, namespace, "cannot read the new project's namespace; the controller checks it");
                None
            }
        }
    }

    pub async fn update_project(
        &self,
        principal: &Principal,
        key: &str,
        request: ProjectRequest,
    ) -> Result<org::Project, AppError> {
        let (project, department) = self.managed_project(principal, key).await?;
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
            .requested_namespace
            .as_deref()
            .is_some_and(|ns| ns != project.namespace)
        {
            return Err(AppError::field(
                "requestedNamespace",
                format!(
                    "a project keeps its namespace ({:?}); create a new project for another",
                    project.namespace
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
        let fields = self.project_fields(&request)?;
        let fits = |within: &Within| fits_department(&request.resources, within);
        let updated = self
            .db
            .projects()
            .update(&project, &fields, actor(principal), fits)
            .await??;
        self.cluster.org_changed();
        self.project_with_counts(&updated).await
    }

    pub async fn delete_project(&self, principal: &Principal, key: &str) -> Result<(), AppError> {
        let (project, _) = self.managed_project(principal, key).await?;
        if project.name == crate::db::projects::DEFAULT_PROJECT {
            return Err(AppError::Conflict(
                "the default project cannot be deleted".into(),
            ));
        }
        if let Err(live) = self
            .db
            .projects()
            .delete(&project, actor(principal))
            .await?
        {
            return Err(AppError::Conflict(format!(
                "project {:?} still has workloads: {}; delete them first",
                project.name,
                live.join(", ")
            )));
        }
        self.cluster.org_changed();
        Ok(())
    }

    /// Checks a project's fields: its shares and its scheduling rules. Its shares against its
    /// department's are checked where it is stored ([`fits_department`]).
    fn project_fields(&self, request: &ProjectRequest) -> Result<ProjectFields, AppError> {
        let mut errors = self.common_checks(&request.name, request.cluster_id.as_deref());
        errors.extend(quota::check_resources(&request.resources));
        let scheduling_rules = SchedulingRules::parse(request.scheduling_rules)
            .map_err(|e| errors.extend(e))
            .ok()
            .flatten();
        if !errors.is_empty() {
            return Err(AppError::Rejected(errors));
        }
        Ok(ProjectFields {
            description: request.description.clone().unwrap_or_default(),
            resources: request.resources.clone(),
            default_node_pools: request.default_node_pools.clone(),
            scheduling_rules,
        })
    }
}

/// Whether a project with `resources` fits its department as the store's transaction holds it
/// (locked, with the other projects' quotas), so two changes at once cannot pass it together.
fn fits_department(resources: &[PoolResources], within: &Within) -> Result<(), AppError> {
    let others = quota::deserved_sum(within.others.iter().map(Vec::as_slice));
    let errors = quota::within_department(
        &within.department.name,
        &Allowance::of(&within.department.resources),
        &others,
        &Allowance::of(resources),
    );
    if errors.is_empty() {
        Ok(())
    } else {
        Err(AppError::Rejected(errors))
    }
}
