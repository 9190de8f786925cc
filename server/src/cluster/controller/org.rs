//! Keeping the cluster's organisation in step with the database, level-triggered: every
//! department's queue and every project's queue (under its department's), compared with what is
//! there on every pass so a queue edited or deleted by hand comes back (only those that differ
//! are written); every project's namespace, applied when its level changes and every
//! [`NAMESPACE_REPAIR`]; and the queues of departments and projects that are gone, deleted.

use super::{Controller, Error, Result};
use crate::cluster::apply;
use crate::cluster::namespace::ProjectNamespace;
use crate::db::projects::Project;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;
use tephra_core::domain::policy::{self, PerKind, Policy};
use tephra_core::domain::quota::queues::{OrgUnit, queues};

/// How often a pass applies a project's namespace, RoleBinding and NetworkPolicy that this
/// process applied before at the same Pod Security level. Each is four API round trips: at a
/// thousand projects, applying them on every pass (every 10 s) made four hundred requests a
/// second for nothing. A level that changes (a policy edit) is applied at the next pass; what
/// someone changes by hand (which the admission policies refuse to anyone but Tephra) is repaired
/// within this time.
const NAMESPACE_REPAIR: Duration = Duration::from_secs(300);

impl Controller {
    /// A project's namespace, labelled with the Pod Security level its policies allow, unless
    /// this process applied it at that level less than `within` ago.
    async fn ensure_namespace_within(&self, project: &Project, within: Duration) -> Result<()> {
        let every = self.db.policies().layers_of_project(project).await?;
        self.ensure_namespace_at(project, pod_security_level(&every), within)
            .await
    }

    /// The project's namespace before a create, at the level of the policies the create was
    /// checked against, unless applied within the last resync: a burst of creates in one
    /// project pays for it once.
    pub(super) async fn ensure_namespace_for_create(
        &self,
        project: &Project,
        every: &PerKind<Vec<Policy>>,
    ) -> Result<()> {
        self.ensure_namespace_at(project, pod_security_level(every), self.resync)
            .await
    }

    async fn ensure_namespace_at(
        &self,
        project: &Project,
        level: &'static str,
        within: Duration,
    ) -> Result<()> {
        if self
            .namespaces
            .applied_within(&project.namespace, level, within)
        {
            return Ok(());
        }
        self.apply_namespace(project, level).await
    }

    async fn apply_namespace(&self, project: &Project, level: &str) -> Result<()> {
        let id = project.id.to_string();
        let target = ProjectNamespace {
            project: &project.name,
            id: &id,
            namespace: &project.namespace,
        };
        self.namespaces
            .ensure(&self.client, &self.key, target, level)
            .await
    }

    /// [`Self::sync_org`], logging a failure (the next pass retries).
    pub(super) async fn sync_org_logged(&self) {
        if let Err(error) = self.sync_org_if_older(std::time::Duration::ZERO).await {
            tracing::warn!(%error, "cannot apply the departments' and projects' queues")
        }
    }

    /// Applies the organisation unless that was done less than `age` ago; one at a time. A
    /// create that finds it fresh goes on without waiting for a pass's sync under way.
    pub(super) async fn sync_org_if_older(&self, age: std::time::Duration) -> Result<()> {
        let fresh = |at: Option<std::time::Instant>| at.is_some_and(|at| at.elapsed() < age);
        if !age.is_zero() && fresh(*self.org_synced_at()) {
            return Ok(());
        }
        let _one_at_a_time = self.org_sync.lock().await;
        if !age.is_zero() && fresh(*self.org_synced_at()) {
            return Ok(());
        }
        self.sync_org().await?;
        *self.org_synced_at() = Some(std::time::Instant::now());
        Ok(())
    }

    fn org_synced_at(&self) -> std::sync::MutexGuard<'_, Option<std::time::Instant>> {
        self.org_synced.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies the whole organisation; returns how many queues it wrote (those that were not
    /// already as planned).
    pub(super) async fn sync_org(&self) -> Result<usize> {
        let departments = self.db.departments().list().await?;
        let projects = self.db.projects().list().await?;
        let mut by_department: BTreeMap<i64, Vec<OrgUnit<'_>>> = BTreeMap::new();
        for p in &projects {
            by_department
                .entry(p.project.department_id)
                .or_default()
                .push(OrgUnit {
                    name: &p.project.name,
                    queue: &p.project.queue,
                    resources: &p.project.resources,
                });
        }
        let tree: Vec<(OrgUnit<'_>, Vec<OrgUnit<'_>>)> = departments
            .iter()
            .map(|d| {
                let unit = OrgUnit {
                    name: &d.department.name,
                    queue: &d.department.queue,
                    resources: &d.department.resources,
                };
                (
                    unit,
                    by_department.remove(&d.department.id).unwrap_or_default(),
                )
            })
            .collect();
        let plans = queues(&tree);
        // One list of what is there, and only what differs applied: at a thousand projects a
        // pass would otherwise write a thousand queues that are already right. Departments'
        // queues come first in the plan: a project's parent must exist before it.
        let seen = apply::managed_queues(&self.client).await?;
        let mut applied = 0;
        for plan in &plans {
            let desired = apply::desired_queue(&self.key, plan);
            let current = seen
                .iter()
                .find(|q| q.metadata.name.as_deref() == Some(plan.name.as_str()))
                .is_some_and(|q| apply::queue_is_current(&desired, q));
            if !current {
                apply::apply_queue(&self.client, &desired).await?;
                applied += 1;
            }
        }
        for p in &projects {
            match self
                .ensure_namespace_within(&p.project, NAMESPACE_REPAIR)
                .await
            {
                // Logged by `ensure`, shown on the project's workloads, and no reason to leave
                // the other projects' namespaces or the stale queues as they are.
                Err(Error::NamespaceNotOurs { .. }) => {}
                other => other?,
            }
        }
        let keep: HashSet<&str> = plans.iter().map(|p| p.name.as_str()).collect();
        for name in apply::delete_stale_queues(&self.client, &self.key, &seen, &keep).await? {
            tracing::info!(queue = %name, "deleted the queue of a department or project that is gone");
        }
        Ok(applied)
    }
}

/// The Pod Security level a project's policies allow (both kinds': a namespace holds trainings
/// and distributed trainings).
fn pod_security_level(every: &PerKind<Vec<Policy>>) -> &'static str {
    let privileged = every
        .values()
        .any(|layers| policy::pod_security_level(layers) == "privileged");
    if privileged { "privileged" } else { "baseline" }
}
