//! Submitting a workload, and previewing what it would create.

use super::admission::{admission, log_standing};
use super::{Workloads, creator_of};
use crate::authorize;
use crate::db::DbError;
use crate::db::departments::Department;
use crate::db::projects::Project;
use crate::db::workloads::{Change, NewWorkload, WorkloadListing};
use crate::service::lookup::{project_by_key, seen_project};
use app::error::AppError;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::labels::{Owner, job_name};
use tephra_core::domain::policy::{self, PolicyKind};
use tephra_core::domain::quota;
use tephra_core::domain::render::Rendered;
use tephra_core::domain::request::{Request, WorkloadKind};
use tephra_core::model::principal::Principal;
use tephra_core::model::validation::FieldError;
use uuid::Uuid;

/// A request checked against its project and this cluster, ready to store or render.
pub(super) struct Checked {
    pub(super) request: Request,
    /// The request as sent, with the policies' defaults filled in: what is stored.
    pub(super) value: serde_json::Value,
    pub(super) project: Project,
    pub(super) department: Department,
    /// The principal's uid and gid from the provider's token, for `fromIdpToken`.
    pub(super) token_uid_gid: Option<(i64, i64)>,
}

impl Checked {
    fn owner(&self, workload_id: &str, job_name: String, created_by: String) -> Owner {
        Owner {
            id: workload_id.to_owned(),
            job_name,
            requested_name: self.request.name().to_owned(),
            project: self.project.name.clone(),
            namespace: self.project.namespace.clone(),
            queue: self.project.queue.clone(),
            created_by,
            kind: self.request.kind(),
            token_uid_gid: self.token_uid_gid,
        }
    }
}

/// A stored workload, and the fields its request set without effect.
#[derive(Debug)]
pub struct Accepted {
    pub listing: WorkloadListing,
    pub warnings: Vec<FieldError>,
}

impl Accepted {
    /// The API's answer to the submit.
    pub fn response(&self) -> tephra_core::model::workload::Workload {
        tephra_core::model::workload::Workload {
            warnings: self.warnings.clone(),
            ..super::view::workload_response(&self.listing)
        }
    }
}

/// The project a raw request names, before it is parsed.
fn named_project(value: &serde_json::Value) -> Option<String> {
    match value.get("projectId")? {
        serde_json::Value::String(key) => Some(key.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Five random lowercase letters or digits for `useGivenNameAsPrefix`.
fn name_suffix() -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..5)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

impl Workloads {
    /// Checks `value` as a request for `kind`'s collection, in this order: resolve the project it
    /// names, authorize the principal there, load the project's policies, parse (with their
    /// defaults filled in), check against the policies and this cluster. Authorizing before
    /// anything else means a stranger to a project learns nothing of its policies from the
    /// errors (to them it is a project that does not exist); the project and its department are
    /// each read once.
    pub(super) async fn check(
        &self,
        kind: WorkloadKind,
        principal: &Principal,
        value: &serde_json::Value,
    ) -> Result<Checked, AppError> {
        // One it cannot see is reported after parsing, with the request's other errors, as
        // one that does not exist.
        let named = match named_project(value) {
            Some(key) => seen_project(&self.db, principal, &key).await?,
            None => None,
        };
        let named = match named {
            Some(project) => {
                authorize::require(principal, Permission::ManageWorkloads, &project)?;
                Some(self.with_department(project).await?)
            }
            None => None,
        };
        // The project's policies fill what the request leaves out before it is validated, as
        // Run:ai's defaults do.
        let layers = match &named {
            Some((project, department)) => self
                .db
                .policies()
                .layers_in(project, department)
                .await?
                .take(PolicyKind::of(kind)),
            None => Vec::new(),
        };
        let mut value = value.clone();
        policy::apply_defaults(&mut value, &layers);
        let request = Request::parse(&value, kind).map_err(AppError::Rejected)?;
        request
            .within_pod_limit(self.max_pods)
            .map_err(|e| AppError::Rejected(vec![e]))?;
        let (project, department) = match named {
            Some(placed) => placed,
            // Parsing succeeded, so the request names a project: one that does not exist (the
            // error says so), or one spelled differently than the store knows it.
            None => {
                let project =
                    project_by_key(&self.db, principal, &request.project_id(), "projectId").await?;
                authorize::require(principal, Permission::ManageWorkloads, &project)?;
                self.with_department(project).await?
            }
        };
        if let Some(cluster) = request.cluster_id()
            && !cluster.eq_ignore_ascii_case(&self.cluster.id)
        {
            return Err(AppError::field(
                "clusterId",
                format!(
                    "unknown cluster {cluster:?}; this Tephra runs workloads on cluster {:?}",
                    self.cluster.id
                ),
            ));
        }
        let refused = policy::refusals(&value, &request, &layers, &self.profile);
        if !refused.is_empty() {
            return Err(AppError::Rejected(refused));
        }
        Ok(Checked {
            request,
            value,
            project,
            department,
            token_uid_gid: principal
                .uid
                .zip(principal.gid)
                .map(|(u, g)| (i64::from(u), i64::from(g))),
        })
    }

    /// The project with its department, read once for the policies' chain and the admission.
    async fn with_department(&self, project: Project) -> Result<(Project, Department), AppError> {
        let department = self.db.departments().get(project.department_id).await?;
        Ok((project, department))
    }

    fn render(&self, checked: &Checked, owner: &Owner) -> Result<Rendered, AppError> {
        checked
            .request
            .render(owner, &self.profile)
            .map_err(AppError::Rejected)
    }

    /// Stores a new workload for the controller to create.
    pub async fn submit(
        &self,
        kind: WorkloadKind,
        principal: &Principal,
        value: serde_json::Value,
    ) -> Result<Accepted, AppError> {
        let checked = self.check(kind, principal, &value).await?;
        let request = &checked.request;
        let name = job_name(
            request.name(),
            request.uses_name_as_prefix(),
            &name_suffix(),
        );
        // The request is checked; what the controller will look up when it renders is looked up
        // now, so a request this cluster cannot run is refused rather than stored.
        request
            .bind(&self.profile, checked.token_uid_gid)
            .map_err(AppError::Rejected)?;
        let user_id: Uuid = principal.user_id.parse().map_err(|_| AppError::Internal)?;
        let project = &checked.project;
        let demand = quota::demand(request);
        let new = NewWorkload {
            project_id: project.id,
            name: name.clone(),
            requested_name: request.name().to_owned(),
            cluster_id: self.cluster.id.clone(),
            kind,
            spec: checked.value.clone(),
            created_by: user_id,
            job_ttl_seconds: request.job_ttl_seconds(),
            starts_paused: request.starts_paused(),
            demand: demand.total,
            // With no cluster configured, a workload that should run says why it is not created.
            reason: (!self.cluster.is_configured() && !request.starts_paused())
                .then_some(crate::cluster::NO_CLUSTER),
        };
        let change = Change {
            actor: Some(user_id),
            action: tephra_core::model::history::HistoryAction::Submit,
            detail: serde_json::json!({ "name": name }),
        };
        let department = &checked.department;
        let nodes = self.cluster.largest_nodes();
        let (stored, standing) = self
            .db
            .workloads()
            .insert_admitted(
                &new,
                department.id,
                change,
                admission(
                    project,
                    department,
                    &demand,
                    nodes,
                    (!new.starts_paused).then_some(self.profile.max_waiting_per_project),
                ),
            )
            .await
            .map_err(|e| match e {
                DbError::Conflict(_) => AppError::Conflict(format!(
                    "a workload named {name:?} already exists in project {:?}; choose another \
                     name or set useGivenNameAsPrefix",
                    project.name
                )),
                // Admission found the project gone: deleted since it was looked up above.
                DbError::NotFound => AppError::field(
                    "projectId",
                    format!(
                        "project {:?} was deleted; nothing was submitted",
                        project.name
                    ),
                ),
                other => other.into(),
            })?
            .map_err(AppError::Rejected)?;
        log_standing(stored.id, &standing);
        self.changed(stored.id);
        tracing::info!(workload = %stored.id, %name, project = %project.name, "accepted a workload");
        Ok(Accepted {
            listing: self.db.workloads().listing(stored.id).await?,
            warnings: request.warnings().to_vec(),
        })
    }

    /// What the cluster would get for this request, as YAML: the Volcano Job first, then any
    /// PVCs and Services. The name is the requested one (a prefix gets a sample suffix).
    pub async fn preview(
        &self,
        kind: WorkloadKind,
        principal: &Principal,
        value: &serde_json::Value,
    ) -> Result<String, AppError> {
        let checked = self.check(kind, principal, value).await?;
        let request = &checked.request;
        let name = job_name(request.name(), request.uses_name_as_prefix(), "xxxxx");
        let owner = checked.owner("(assigned on submit)", name, creator_of(principal));
        let yaml = self.render(&checked, &owner)?.to_yaml().map_err(|e| {
            tracing::error!(error = %e, "cannot write a rendered Job as YAML");
            AppError::Internal
        })?;
        Ok(tephra_core::domain::render::with_warnings(
            request.warnings(),
            yaml,
        ))
    }
}
