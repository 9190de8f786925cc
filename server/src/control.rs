//! What a principal may do with workloads: submit, list, look at, preview, suspend, resume and
//! delete. The REST handlers and the dashboard's server functions both call these, so the two
//! can never disagree on a rule or a message. Each operation writes the row (and its history)
//! and pokes the reconciler; none waits for the cluster.

use crate::access;
use crate::cluster::ClusterHandle;
use crate::db::projects::Project;
use crate::db::workloads::{
    Change, NewWorkload, SortKey, WorkloadFilter, WorkloadKind, WorkloadListing,
};
use crate::db::{Database, DbError};
use crate::domain::authz::Permission;
use crate::domain::cluster::ClusterProfile;
use crate::domain::labels::{self, job_name};
use crate::domain::render::Rendered;
use crate::domain::request::{Kind, Request};
use crate::http::api::{ApiError, listing_by_id, workload_response};
use app::error::AppError;
use app::model::action::Action;
use app::model::phase::Phase;
use app::model::principal::Principal;
use app::model::validation::FieldError;
use app::model::workload::{HistoryEntry, Workload, WorkloadQuery};
use axum::http::StatusCode;
use chrono::SecondsFormat;
use std::sync::Arc;
use uuid::Uuid;

/// Most workloads one page returns.
pub const PAGE_MAX: i64 = 500;
pub const PAGE_DEFAULT: i64 = 50;

/// The database, the cluster and what requests are rendered against.
#[derive(Clone)]
pub struct Control {
    pub db: Database,
    pub cluster: ClusterHandle,
    /// What submitted requests are rendered against, to reject what would not render later.
    pub profile: Arc<ClusterProfile>,
    /// Most pods one workload may ask for at once (`--max-pods-per-workload`).
    pub max_pods: u64,
}

/// A page of a list.
pub struct Page {
    pub workloads: Vec<Workload>,
    pub total: i64,
    pub next: Option<i64>,
    pub offset: i64,
    pub limit: i64,
}

pub fn kind_of(kind: Kind) -> WorkloadKind {
    match kind {
        Kind::Distributed => WorkloadKind::Distributed,
        Kind::Training | Kind::Generic => WorkloadKind::Training,
    }
}

fn noun(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::Distributed) => "distributed training",
        Some(Kind::Training | Kind::Generic) => "training",
        None => "workload",
    }
}

/// Finds a project by id (UUID) or name; the error names the request field.
pub async fn resolve_project(db: &Database, key: &str, field: &str) -> Result<Project, ApiError> {
    let found = match key.parse::<Uuid>() {
        Ok(id) => db.projects().get(id).await,
        Err(_) => db.projects().by_name(key).await,
    };
    match found {
        Ok(project) => Ok(project),
        Err(DbError::NotFound) => Err(ApiError::field(
            field,
            format!(
                "no project has the id or name {key:?}; GET /api/v1/org-unit/projects lists them"
            ),
        )),
        Err(e) => Err(e.into()),
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

fn creator_of(principal: &Principal) -> String {
    principal
        .email
        .clone()
        .unwrap_or_else(|| principal.display_name.clone())
}

/// A request checked against its project and this cluster, ready to store or render.
struct Checked {
    request: Request,
    project: Project,
    /// The principal's uid and gid from the provider's token, for `fromIdpToken`.
    token_uid_gid: Option<(i64, i64)>,
}

impl Control {
    /// Parses and validates `value` as a request of `kind`, and checks the principal may run it
    /// in the project it names on this cluster.
    async fn check(
        &self,
        kind: Kind,
        principal: &Principal,
        value: &serde_json::Value,
    ) -> Result<Checked, ApiError> {
        let request = Request::parse(value, kind).map_err(ApiError::invalid)?;
        request
            .within_pod_limit(self.max_pods)
            .map_err(|e| ApiError::invalid(vec![e]))?;
        let project = resolve_project(&self.db, &request.project_id(), "projectId").await?;
        access::require(principal, Permission::ManageWorkloads, &project)?;
        if let Some(cluster) = request.cluster_id()
            && cluster != self.cluster.id
        {
            return Err(ApiError::field(
                "clusterId",
                format!(
                    "unknown cluster {cluster:?}; this Tephra runs workloads on cluster {:?}",
                    self.cluster.id
                ),
            ));
        }
        Ok(Checked {
            request,
            project,
            token_uid_gid: principal
                .uid
                .zip(principal.gid)
                .map(|(u, g)| (i64::from(u), i64::from(g))),
        })
    }

    fn render(
        &self,
        checked: &Checked,
        workload_id: &str,
        job_name: String,
        created_by: String,
    ) -> Result<Rendered, Vec<FieldError>> {
        let workload = labels::Workload {
            id: workload_id.to_owned(),
            job_name,
            requested_name: checked.request.name().to_owned(),
            project: checked.project.name.clone(),
            namespace: checked.project.namespace.clone(),
            queue: checked.project.queue.clone(),
            created_by,
            kind: checked.request.kind().as_str().to_owned(),
            token_uid_gid: checked.token_uid_gid,
        };
        checked.request.render(&workload, &self.profile)
    }

    /// Stores a new workload for the reconciler to create.
    pub async fn submit(
        &self,
        kind: Kind,
        principal: &Principal,
        value: serde_json::Value,
    ) -> Result<WorkloadListing, ApiError> {
        let checked = self.check(kind, principal, &value).await?;
        let request = &checked.request;
        let suffix = name_suffix();
        let name = job_name(request.name(), request.uses_name_as_prefix(), &suffix);
        // Render now, so what the reconciler will render later is known to work.
        self.render(
            &checked,
            "00000000-0000-0000-0000-000000000000",
            name.clone(),
            creator_of(principal),
        )
        .map_err(ApiError::invalid)?;
        let user_id: Uuid = principal
            .user_id
            .parse()
            .map_err(|_| ApiError::from(AppError::Internal))?;
        let project = &checked.project;
        let new = NewWorkload {
            project_id: project.id,
            name: name.clone(),
            requested_name: request.name().to_owned(),
            cluster_id: self.cluster.id.clone(),
            kind: kind_of(kind),
            spec: value,
            created_by: user_id,
            job_ttl_seconds: request.job_ttl_seconds(),
        };
        let change = Change {
            actor: Some(user_id),
            action: "workload.submit",
            detail: serde_json::json!({ "name": name }),
        };
        let stored = self
            .db
            .workloads()
            .insert(&new, change)
            .await
            .map_err(|e| match e {
                DbError::Conflict(_) => ApiError::new(
                    StatusCode::CONFLICT,
                    format!(
                        "a workload named {name:?} already exists in project {:?}; choose \
                         another name or set useGivenNameAsPrefix",
                        project.name
                    ),
                ),
                other => other.into(),
            })?;
        if !self.cluster.is_configured() {
            self.db
                .workloads()
                .record_status(
                    stored.id,
                    Phase::Running,
                    Phase::Creating,
                    Phase::Creating,
                    Some(crate::cluster::NO_CLUSTER),
                    &Default::default(),
                )
                .await?;
        }
        self.cluster.poke(stored.id);
        tracing::info!(workload = %stored.id, %name, project = %project.name, "accepted a workload");
        Ok(self.db.workloads().listing(stored.id).await?)
    }

    /// What the cluster would get for this request, as YAML: the Volcano Job first, then any
    /// PVCs and Services. The name is the requested one (a prefix gets a sample suffix).
    pub async fn preview(
        &self,
        kind: Kind,
        principal: &Principal,
        value: &serde_json::Value,
    ) -> Result<String, ApiError> {
        let checked = self.check(kind, principal, value).await?;
        let request = &checked.request;
        let name = job_name(request.name(), request.uses_name_as_prefix(), "xxxxx");
        let rendered = self
            .render(
                &checked,
                "(assigned on submit)",
                name,
                creator_of(principal),
            )
            .map_err(ApiError::invalid)?;
        rendered.to_yaml().map_err(|e| {
            tracing::error!(error = %e, "cannot write a rendered Job as YAML");
            AppError::Internal.into()
        })
    }

    /// The rendered objects of a stored workload, as the reconciler creates them.
    pub async fn rendered_yaml(&self, listing: &WorkloadListing) -> Result<String, String> {
        let w = &listing.workload;
        let kind = match w.kind {
            WorkloadKind::Distributed => Kind::Distributed,
            WorkloadKind::Training => Kind::detect(&w.spec),
        };
        let request = Request::parse(&w.spec, kind).map_err(|errors| {
            let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
            format!("the stored request no longer renders: {}", list.join("; "))
        })?;
        let project = self
            .db
            .projects()
            .get(w.project_id)
            .await
            .map_err(|e| e.to_string())?;
        let creator = self
            .db
            .users()
            .get(w.created_by)
            .await
            .map_err(|e| e.to_string())?;
        let checked = Checked {
            request,
            project,
            token_uid_gid: creator.uid.zip(creator.gid),
        };
        let rendered = self
            .render(
                &checked,
                &w.id.to_string(),
                w.name.clone(),
                listing.creator_name.clone(),
            )
            .map_err(|errors| {
                let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
                format!("the stored request no longer renders: {}", list.join("; "))
            })?;
        rendered.to_yaml().map_err(|e| e.to_string())
    }

    /// The live workload with this id (of `kind`, when given), after checking the principal may
    /// see it.
    pub async fn find(
        &self,
        kind: Option<Kind>,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadListing, ApiError> {
        self.find_for(kind, principal, id, Permission::ReadWorkloads)
            .await
    }

    /// [`Self::find`], checking `permission` in the workload's project.
    async fn find_for(
        &self,
        kind: Option<Kind>,
        principal: &Principal,
        id: &str,
        permission: Permission,
    ) -> Result<WorkloadListing, ApiError> {
        let listing = listing_by_id(&self.db, id, noun(kind)).await?;
        let wrong_kind = kind.is_some_and(|k| listing.workload.kind != kind_of(k));
        if listing.workload.deleted_at.is_some() || wrong_kind {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!("no {} with the id {id:?}", noun(kind)),
            ));
        }
        let project = self.db.projects().get(listing.workload.project_id).await?;
        access::require(principal, permission, &project)?;
        Ok(listing)
    }

    /// Records the new desired phase `action` leads to; 409 when the phase does not allow it.
    pub async fn act(
        &self,
        kind: Option<Kind>,
        action: Action,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadListing, ApiError> {
        let listing = self
            .find_for(kind, principal, id, Permission::ManageWorkloads)
            .await?;
        let w = &listing.workload;
        let refused = |desired: Phase, actual: Phase, why: String| {
            ApiError::new(
                StatusCode::CONFLICT,
                format!(
                    "cannot {} {} {:?}: {why}",
                    action.verb(),
                    noun(kind.or(Some(Kind::Training))),
                    w.name
                ),
            )
            .with_phases(desired, actual)
        };
        let desired = action
            .apply(w.desired_phase, w.actual_phase)
            .map_err(|why| refused(w.desired_phase, w.actual_phase, why))?;
        let change = Change {
            actor: principal.user_id.parse().ok(),
            action: &format!("workload.{}", action.verb()),
            detail: serde_json::json!({ "from": w.desired_phase, "to": desired }),
        };
        let won = self
            .db
            .workloads()
            .transition(w.id, w.desired_phase, desired, change)
            .await?;
        if won.is_none() {
            // Another action changed the workload between our read and our write; it won.
            let now = self.db.workloads().get(w.id).await?;
            let why = if now.deleted_at.is_some() {
                "it has been deleted".to_owned()
            } else {
                format!(
                    "another action came first: it is now {} (desired {})",
                    now.actual_phase, now.desired_phase
                )
            };
            return Err(refused(now.desired_phase, now.actual_phase, why));
        }
        self.cluster.poke(w.id);
        tracing::info!(workload = %w.id, action = action.verb(), "accepted an action");
        Ok(self.db.workloads().listing(w.id).await?)
    }

    /// One page of the workloads (of `kind`, when given) the principal may see.
    pub async fn list(
        &self,
        kind: Option<Kind>,
        principal: &Principal,
        query: &WorkloadQuery,
    ) -> Result<Page, ApiError> {
        let mut filter = WorkloadFilter {
            kind: kind.map(kind_of),
            creator: query.created_by.clone().filter(|c| !c.is_empty()),
            name_contains: query.name.clone().filter(|n| !n.is_empty()),
            ..WorkloadFilter::default()
        };
        if let Some(key) = query.project_id.as_deref().filter(|k| !k.is_empty()) {
            let project = resolve_project(&self.db, key, "projectId").await?;
            access::require(principal, Permission::ReadWorkloads, &project)?;
            filter.project_id = Some(project.id);
        } else {
            // Without a project filter a list covers every project the principal may read.
            filter.projects_among = self
                .projects_among(principal, Permission::ReadWorkloads)
                .await?;
        }
        if let Some(phase) = query.phase.as_deref().filter(|p| !p.is_empty()) {
            filter.actual_phase = Some(phase.parse().map_err(
                |e: app::model::phase::UnknownPhase| {
                    ApiError::field("phase", e.to_string().replace("unknown phase ", ""))
                },
            )?);
        }
        filter.sort = match query.sort_by.as_deref() {
            None | Some("" | "createdAt") => SortKey::CreatedAt,
            Some("name") => SortKey::Name,
            Some("updatedAt") => SortKey::UpdatedAt,
            Some("actualPhase") => SortKey::ActualPhase,
            Some(other) => {
                return Err(ApiError::field(
                    "sortBy",
                    format!(
                        "{other:?} is not allowed: one of name, createdAt, updatedAt, actualPhase"
                    ),
                ));
            }
        };
        filter.ascending = match query.sort_order.as_deref() {
            None | Some("" | "desc") => false,
            Some("asc") => true,
            Some(other) => {
                return Err(ApiError::field(
                    "sortOrder",
                    format!("{other:?} is not allowed: asc or desc"),
                ));
            }
        };
        let limit = query.limit.unwrap_or(PAGE_DEFAULT);
        if !(1..=PAGE_MAX).contains(&limit) {
            return Err(ApiError::field(
                "limit",
                format!("must be between 1 and {PAGE_MAX} (got {limit})"),
            ));
        }
        let offset = query.offset.unwrap_or(0);
        if offset < 0 {
            return Err(ApiError::field(
                "offset",
                format!("must be 0 or more (got {offset})"),
            ));
        }
        filter.limit = Some(limit);
        filter.offset = offset;
        let total = self.db.workloads().count(&filter).await?;
        let page = self.db.workloads().list(&filter).await?;
        let end = offset + page.len() as i64;
        Ok(Page {
            workloads: page.iter().map(workload_response).collect(),
            total,
            next: (end < total).then_some(end),
            offset,
            limit,
        })
    }

    /// The names of the projects where `principal` holds `permission`, or `None` for all of them.
    pub async fn projects_among(
        &self,
        principal: &Principal,
        permission: Permission,
    ) -> Result<Option<Vec<String>>, DbError> {
        let reach = access::reach(principal, permission);
        if reach.everything {
            return Ok(None);
        }
        let projects = self.db.projects().list().await?;
        Ok(Some(
            projects
                .into_iter()
                .filter(|p| reach.includes(&p.project.id.to_string(), None))
                .map(|p| p.project.name)
                .collect(),
        ))
    }

    /// Who submitted, suspended, resumed or deleted the workload, and every phase it went
    /// through, oldest first. Deleted workloads keep their history.
    pub async fn history(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<Vec<HistoryEntry>, ApiError> {
        let workload = listing_by_id(&self.db, id, "workload").await?.workload;
        let project = self.db.projects().get(workload.project_id).await?;
        access::require(principal, Permission::ReadWorkloads, &project)?;
        let users = self.db.users().list().await?;
        let events = self.db.audit().for_target("workload", workload.id).await?;
        Ok(events
            .into_iter()
            .map(|e| HistoryEntry {
                at: e.at.to_rfc3339_opts(SecondsFormat::Millis, true),
                action: e
                    .action
                    .strip_prefix("workload.")
                    .unwrap_or(&e.action)
                    .to_owned(),
                actor: e.actor_id.and_then(|actor| {
                    users
                        .iter()
                        .find(|u| u.id == actor)
                        .map(|u| u.email.clone().unwrap_or_else(|| u.display_name.clone()))
                }),
                detail: e.detail,
            })
            .collect())
    }
}
