//! The organisation page's operations, over the org-unit and policy services: create a
//! department or project, or set its GPU share in one node pool (other pools keep theirs), and
//! try a policy before saving it.

use super::Organisation;
use crate::db::DbError;
use crate::service::lookup::seen_project;
use app::error::AppError;
use serde_json::Value;
use std::collections::BTreeMap;
use tephra_core::model::cluster::{ClusterView, NodeView};
use tephra_core::model::org::{self, DepartmentRequest, ProjectRequest};
use tephra_core::model::org_form::{QuotaFields, idle_rule, with_pool};
use tephra_core::model::policy::{PolicyField, PolicyKind, preview};
use tephra_core::model::principal::Principal;

impl Organisation {
    /// The organisation page: departments, projects, GPUs in use and the cluster's nodes.
    pub async fn page(&self, principal: &Principal) -> Result<org::Organisation, AppError> {
        let departments = self.departments(principal).await?;
        let mut department_gpus = BTreeMap::new();
        let projects = self.db.projects().list().await?;
        for (project, used) in self.db.workloads().usage_by_project().await? {
            let Some(p) = projects.iter().find(|p| p.project.id == project) else {
                continue;
            };
            if let Some(d) = departments
                .iter()
                .find(|d| d.id == p.project.department_id.to_string())
            {
                *department_gpus.entry(d.name.clone()).or_insert(0.0) += used.gpus;
            }
        }
        Ok(org::Organisation {
            departments,
            projects: self.org_projects(principal).await?,
            department_gpus,
            cluster: self.cluster_view(),
            // The access service fills these in (`crate::service::port`).
            members: Vec::new(),
            roles: Vec::new(),
            system_policy: match self
                .policy_text(principal, "system", "", PolicyKind::Trainings)
                .await
            {
                Ok(text) => Some(text),
                Err(AppError::Forbidden(_)) => None,
                Err(other) => return Err(other),
            },
        })
    }

    /// The node pools with their capacity, and the GPUs Tephra's bound pods hold in each.
    pub fn node_pools(&self) -> Vec<(crate::cluster::nodes::Pool, f64)> {
        let view = self.cluster_view();
        let pools = self
            .cluster
            .shared
            .nodes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .pools();
        pools
            .into_iter()
            .map(|pool| {
                let used = view.pools.iter().find(|p| p.name == pool.name);
                let allocated = used.map_or(0.0, |p| p.used_gpus);
                (pool, allocated)
            })
            .collect()
    }

    /// The nodes the watch has seen, by pool, with the GPUs Tephra's bound pods hold on each.
    pub fn cluster_view(&self) -> ClusterView {
        let shared = &self.cluster.shared;
        let used = shared.index().gpus_by_node(None);
        let nodes = shared.nodes.read().unwrap_or_else(|e| e.into_inner());
        ClusterView::of(
            nodes
                .nodes()
                .map(|(name, size)| NodeView {
                    name: name.to_owned(),
                    pool: size.pool.clone(),
                    gpus: size.allocatable.gpus,
                    used_gpus: used.get(name).copied().unwrap_or(0.0),
                    schedulable: size.schedulable,
                })
                .collect(),
        )
    }

    pub async fn save_department(
        &self,
        principal: &Principal,
        name: &str,
        quota: QuotaFields,
    ) -> Result<org::Department, AppError> {
        let entry = quota.resources().map_err(AppError::Rejected)?;
        match self.db.departments().by_key(name).await {
            Ok(existing) => {
                let request = DepartmentRequest {
                    name: existing.name.clone(),
                    cluster_id: None,
                    description: Some(existing.description.clone()),
                    resources: with_pool(existing.resources.0.clone(), entry),
                };
                self.update_department(principal, name, request).await
            }
            Err(DbError::NotFound) => {
                let request = DepartmentRequest {
                    name: name.to_owned(),
                    cluster_id: None,
                    description: None,
                    resources: vec![entry],
                };
                self.create_department(principal, request).await
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Creates the project or sets its share in one pool, and its idle-GPU timeout to the
    /// minutes typed: an empty field removes the timeout, as the form sets all it shows.
    pub async fn save_project(
        &self,
        principal: &Principal,
        name: &str,
        department: &str,
        quota: QuotaFields,
        idle_minutes: &str,
    ) -> Result<org::Project, AppError> {
        let entry = quota.resources();
        let rules = idle_rule(idle_minutes);
        let (entry, scheduling_rules) = match (entry, rules) {
            (Ok(entry), Ok(rules)) => (entry, rules),
            (entry, rules) => {
                let mut errors = entry.err().unwrap_or_default();
                errors.extend(rules.err());
                return Err(AppError::Rejected(errors));
            }
        };
        let parent_id = (!department.is_empty()).then(|| department.to_owned());
        // A project the caller cannot see is one to create (whose name may then be taken).
        match seen_project(&self.db, principal, name).await? {
            Some(existing) => {
                let request = ProjectRequest {
                    name: existing.name.clone(),
                    cluster_id: None,
                    description: Some(existing.description.clone()),
                    parent_id,
                    resources: with_pool(existing.resources.0.clone(), entry),
                    default_node_pools: existing.default_node_pools.map(|p| p.0),
                    scheduling_rules,
                    requested_namespace: None,
                };
                self.update_project(principal, name, request).await
            }
            None => {
                let request = ProjectRequest {
                    name: name.to_owned(),
                    cluster_id: None,
                    description: None,
                    parent_id,
                    resources: vec![entry],
                    default_node_pools: None,
                    scheduling_rules,
                    requested_namespace: None,
                };
                self.create_project(principal, request).await
            }
        }
    }

    /// One scope's own policy as indented JSON (`{}` when it has none).
    pub async fn policy_text(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
    ) -> Result<String, AppError> {
        let (scope, kind) = self.page_scope(principal, scope, id, kind).await?;
        let found = self.policy(principal, &scope, kind).await?;
        let own = found
            .own
            .unwrap_or_else(|| Value::Object(Default::default()));
        Ok(serde_json::to_string_pretty(&own).unwrap_or_default())
    }

    /// Checks `body` as the scope's policy as saving would, and answers what the form will show
    /// with it; stores it when `save`.
    #[allow(clippy::too_many_arguments)]
    pub async fn try_policy(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
        body: &str,
        save: bool,
    ) -> Result<Vec<PolicyField>, AppError> {
        let (scope, kind) = self.page_scope(principal, scope, id, kind).await?;
        let body: Value = serde_json::from_str(body)
            .map_err(|e| AppError::field("policy", format!("must be a JSON object: {e}")))?;
        let layers = self
            .validated_policy(principal, &scope, kind, &body)
            .await?;
        if save {
            self.set_policy(principal, &scope, kind, &body).await?;
        }
        Ok(preview(&layers))
    }

    async fn page_scope(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
    ) -> Result<(tephra_core::domain::authz::Scope, PolicyKind), AppError> {
        let id = (!id.is_empty()).then_some(id);
        let scope = match scope {
            "department" => self.policy_scope(principal, scope, id, None).await?,
            "project" => self.policy_scope(principal, scope, None, id).await?,
            _ => self.policy_scope(principal, scope, None, None).await?,
        };
        Ok((scope, kind))
    }
}
