//! `/api/v1/workloads/trainings` and `/api/v1/workloads/distributed`: submit, list, get, suspend,
//! resume and delete. Handlers write the row (and its history) and poke the reconciler; none of
//! them waits for the cluster.

use super::{Accepted, Acting, ApiError, ErrorBody, listing_by_id, workload_response};
use crate::access::require_member;
use crate::db::projects::Project;
use crate::db::workloads::{NewWorkload, SortKey, WorkloadFilter, WorkloadKind};
use crate::db::{Database, DbError};
use crate::domain::labels::job_name;
use crate::domain::request::{Kind, Placement, Request};
use crate::http::AppState;
use app::error::AppError;
use app::model::phase::Phase;
use app::model::principal::Principal;
use app::model::workload::Workload;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Most workloads one page returns.
pub const PAGE_MAX: i64 = 500;
const PAGE_DEFAULT: i64 = 50;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/workloads/trainings",
            post(submit_training).get(list_trainings),
        )
        .route(
            "/api/v1/workloads/trainings/{id}",
            get(get_training).delete(delete_training),
        )
        .route(
            "/api/v1/workloads/trainings/{id}/suspend",
            post(suspend_training),
        )
        .route(
            "/api/v1/workloads/trainings/{id}/resume",
            post(resume_training),
        )
        .route(
            "/api/v1/workloads/distributed",
            post(submit_distributed).get(list_distributed),
        )
        .route(
            "/api/v1/workloads/distributed/{id}",
            get(get_distributed).delete(delete_distributed),
        )
        .route(
            "/api/v1/workloads/distributed/{id}/suspend",
            post(suspend_distributed),
        )
        .route(
            "/api/v1/workloads/distributed/{id}/resume",
            post(resume_distributed),
        )
        .route(
            "/api/v1/workloads/{id}/history",
            get(super::projects::history),
        )
}

/// Query parameters of the lists.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only this project (its id or name).
    pub project_id: Option<String>,
    /// Only this actual phase (Creating, Pending, Initializing, Running, Stopping, Stopped,
    /// Resuming, Completed, Failed, Deleting, Unknown).
    pub phase: Option<String>,
    /// Only workloads created by this user (email or name).
    pub created_by: Option<String>,
    /// Only names containing this text (ignoring case).
    pub name: Option<String>,
    /// name, createdAt (default), updatedAt or actualPhase.
    pub sort_by: Option<String>,
    /// asc or desc (default).
    pub sort_order: Option<String>,
    /// How many to skip (default 0).
    pub offset: Option<i64>,
    /// Page size, 1 to 500 (default 50).
    pub limit: Option<i64>,
}

/// A page of trainings.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TrainingPage {
    pub trainings: Vec<Workload>,
    /// How many match the filters in all.
    pub total: i64,
    /// The offset of the next page; absent on the last one.
    pub next: Option<i64>,
}

/// A page of distributed trainings.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct DistributedPage {
    pub distributed: Vec<Workload>,
    pub total: i64,
    pub next: Option<i64>,
}

fn kind_of(kind: Kind) -> WorkloadKind {
    match kind {
        Kind::Distributed => WorkloadKind::Distributed,
        Kind::Training | Kind::Generic => WorkloadKind::Training,
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

async fn submit(
    kind: Kind,
    state: AppState,
    principal: Principal,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    let value: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("the body is not valid JSON: {e}"),
        )
    })?;
    let request = Request::parse(&value, kind).map_err(ApiError::invalid)?;
    let project = resolve_project(&state.db, &request.project_id(), "projectId").await?;
    require_member(&principal, &project)?;
    if let Some(cluster) = request.cluster_id()
        && cluster != state.cluster.id
    {
        return Err(ApiError::field(
            "clusterId",
            format!(
                "unknown cluster {cluster:?}; this Tephra runs workloads on cluster {:?}",
                state.cluster.id
            ),
        ));
    }
    let suffix = name_suffix();
    let name = job_name(request.name(), request.uses_name_as_prefix(), &suffix);
    let creator = principal
        .email
        .clone()
        .unwrap_or_else(|| principal.display_name.clone());
    // Render now, so what the reconciler will render later is known to work.
    let placement = Placement {
        workload_id: "00000000-0000-0000-0000-000000000000",
        project: &project.name,
        queue: Some(&project.queue),
        created_by: &creator,
        name_suffix: &suffix,
        token_uid_gid: None,
    };
    request
        .render(&request.workload(&placement), &state.profile)
        .map_err(ApiError::invalid)?;
    let user_id: Uuid = principal
        .user_id
        .parse()
        .map_err(|_| ApiError::from(AppError::Internal))?;
    let new = NewWorkload {
        project_id: project.id,
        name: name.clone(),
        requested_name: request.name().to_owned(),
        cluster_id: state.cluster.id.clone(),
        kind: kind_of(kind),
        spec: value,
        created_by: user_id,
    };
    let stored = state
        .db
        .workloads()
        .insert(&new)
        .await
        .map_err(|e| match e {
            DbError::Conflict(_) => ApiError::new(
                StatusCode::CONFLICT,
                format!(
                    "a workload named {name:?} already exists in project {:?}; choose another name \
                 or set useGivenNameAsPrefix",
                    project.name
                ),
            ),
            other => other.into(),
        })?;
    if !state.cluster.is_configured() {
        state
            .db
            .workloads()
            .set_status(
                stored.id,
                Phase::Creating,
                Some(crate::cluster::NO_CLUSTER),
                &Default::default(),
            )
            .await?;
    }
    record(
        &state.db,
        &principal,
        "workload.submit",
        stored.id,
        serde_json::json!({ "name": name }),
    )
    .await?;
    state.cluster.poke(stored.id);
    tracing::info!(workload = %stored.id, %name, project = %project.name, "accepted a workload");
    let listing = state.db.workloads().listing(stored.id).await?;
    Ok((StatusCode::ACCEPTED, Json(workload_response(&listing))))
}

async fn record(
    db: &Database,
    principal: &Principal,
    action: &str,
    id: Uuid,
    detail: serde_json::Value,
) -> Result<(), ApiError> {
    let actor = principal.user_id.parse().ok();
    db.audit()
        .record(actor, action, "workload", id, detail)
        .await?;
    Ok(())
}

/// The live workload of `kind` with this id, after checking the principal may see it.
async fn find(
    kind: Kind,
    state: &AppState,
    principal: &Principal,
    id: &str,
) -> Result<crate::db::workloads::WorkloadListing, ApiError> {
    let listing = listing_by_id(&state.db, id, noun(kind)).await?;
    if listing.workload.deleted_at.is_some() || listing.workload.kind != kind_of(kind) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no {} with the id {id:?}", noun(kind)),
        ));
    }
    let project = state.db.projects().get(listing.workload.project_id).await?;
    require_member(principal, &project)?;
    Ok(listing)
}

fn noun(kind: Kind) -> &'static str {
    match kind {
        Kind::Distributed => "distributed training",
        Kind::Training | Kind::Generic => "training",
    }
}

async fn fetch(
    kind: Kind,
    state: AppState,
    principal: Principal,
    id: String,
) -> Result<Json<Workload>, ApiError> {
    let listing = find(kind, &state, &principal, &id).await?;
    Ok(Json(workload_response(&listing)))
}

/// What a user asks for; each is allowed from some phases only (409 otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Suspend,
    Resume,
    Delete,
}

impl Action {
    fn verb(self) -> &'static str {
        match self {
            Action::Suspend => "suspend",
            Action::Resume => "resume",
            Action::Delete => "delete",
        }
    }

    /// The new desired phase, or why the action does not apply now.
    fn apply(self, desired: Phase, actual: Phase) -> Result<Phase, String> {
        match (self, desired) {
            (_, Phase::Deleting) => Err("it is being deleted".into()),
            (Action::Delete, _) => Ok(Phase::Deleting),
            (Action::Suspend, Phase::Stopped) => Err("it is already suspended".into()),
            (Action::Suspend, _) if actual.is_finished() => {
                Err(format!("it has finished ({actual})"))
            }
            (Action::Suspend, _) => Ok(Phase::Stopped),
            (Action::Resume, Phase::Stopped) => Ok(Phase::Running),
            (Action::Resume, _) => Err(format!("it is not suspended (it is {actual})")),
        }
    }
}

async fn act(
    kind: Kind,
    action: Action,
    state: AppState,
    principal: Principal,
    id: String,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    let listing = find(kind, &state, &principal, &id).await?;
    let w = &listing.workload;
    let desired = action
        .apply(w.desired_phase, w.actual_phase)
        .map_err(|why| {
            ApiError::new(
                StatusCode::CONFLICT,
                format!(
                    "cannot {} {} {:?}: {why}",
                    action.verb(),
                    noun(kind),
                    w.name
                ),
            )
        })?;
    state
        .db
        .workloads()
        .set_desired_phase(w.id, desired)
        .await?;
    record(
        &state.db,
        &principal,
        &format!("workload.{}", action.verb()),
        w.id,
        serde_json::json!({ "from": w.desired_phase, "to": desired }),
    )
    .await?;
    state.cluster.poke(w.id);
    tracing::info!(workload = %w.id, action = action.verb(), "accepted an action");
    Ok(Accepted::response())
}

async fn list(
    kind: Kind,
    state: &AppState,
    principal: &Principal,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<(Vec<Workload>, i64, Option<i64>), ApiError> {
    let Query(query) = query.map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("bad query: {}", e.body_text()),
        )
    })?;
    let mut filter = WorkloadFilter {
        kind: Some(kind_of(kind)),
        creator: query.created_by,
        name_contains: query.name.filter(|n| !n.is_empty()),
        ..WorkloadFilter::default()
    };
    if let Some(key) = &query.project_id {
        let project = resolve_project(&state.db, key, "projectId").await?;
        require_member(principal, &project)?;
        filter.project_id = Some(project.id);
    } else if !principal.dev_login {
        // Without a project filter a list covers every project; only members of all may ask.
        return Err(AppError::Forbidden("name a projectId to list its workloads".into()).into());
    }
    if let Some(phase) = &query.phase {
        filter.actual_phase = Some(phase.parse().map_err(
            |e: app::model::phase::UnknownPhase| {
                ApiError::field("phase", e.to_string().replace("unknown phase ", ""))
            },
        )?);
    }
    filter.sort = match query.sort_by.as_deref() {
        None | Some("createdAt") => SortKey::CreatedAt,
        Some("name") => SortKey::Name,
        Some("updatedAt") => SortKey::UpdatedAt,
        Some("actualPhase") => SortKey::ActualPhase,
        Some(other) => {
            return Err(ApiError::field(
                "sortBy",
                format!("{other:?} is not allowed: one of name, createdAt, updatedAt, actualPhase"),
            ));
        }
    };
    filter.ascending = match query.sort_order.as_deref() {
        None | Some("desc") => false,
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
    let total = state.db.workloads().count(&filter).await?;
    let page = state.db.workloads().list(&filter).await?;
    let end = offset + page.len() as i64;
    let next = (end < total).then_some(end);
    Ok((page.iter().map(workload_response).collect(), total, next))
}

/// Submit a training.
#[utoipa::path(post, path = "/api/v1/workloads/trainings", tag = "trainings",
    request_body(content = app::model::training::request::TrainingRequest, description = "A Run:ai training request"),
    responses((status = 202, description = "Accepted: stored, the cluster follows", body = Workload),
        (status = 400, description = "Bad submission request", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, description = "The name is taken in the project", body = ErrorBody),
        (status = 500, body = ErrorBody)))]
pub async fn submit_training(
    State(state): State<AppState>,
    Acting(p): Acting,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    submit(Kind::Training, state, p, body).await
}

/// Submit a distributed training (PyTorch, MPI, TF, XGBoost).
#[utoipa::path(post, path = "/api/v1/workloads/distributed", tag = "distributed",
    request_body(content = app::model::training::distributed::DistributedRequest, description = "A Run:ai distributed training request: the training's spec plus distributedFramework, numWorkers and master"),
    responses((status = 202, body = Workload), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 500, body = ErrorBody)))]
pub async fn submit_distributed(
    State(state): State<AppState>,
    Acting(p): Acting,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    submit(Kind::Distributed, state, p, body).await
}

/// List trainings.
#[utoipa::path(get, path = "/api/v1/workloads/trainings", tag = "trainings", params(ListQuery),
    responses((status = 200, body = TrainingPage), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn list_trainings(
    State(state): State<AppState>,
    Acting(p): Acting,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<TrainingPage>, ApiError> {
    let (trainings, total, next) = list(Kind::Training, &state, &p, query).await?;
    Ok(Json(TrainingPage {
        trainings,
        total,
        next,
    }))
}

/// List distributed trainings.
#[utoipa::path(get, path = "/api/v1/workloads/distributed", tag = "distributed", params(ListQuery),
    responses((status = 200, body = DistributedPage), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn list_distributed(
    State(state): State<AppState>,
    Acting(p): Acting,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<DistributedPage>, ApiError> {
    let (distributed, total, next) = list(Kind::Distributed, &state, &p, query).await?;
    Ok(Json(DistributedPage {
        distributed,
        total,
        next,
    }))
}

/// A training with its live status.
#[utoipa::path(get, path = "/api/v1/workloads/trainings/{id}", tag = "trainings",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = Workload), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn get_training(
    State(state): State<AppState>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<Json<Workload>, ApiError> {
    fetch(Kind::Training, state, p, id).await
}

/// A distributed training with its live status.
#[utoipa::path(get, path = "/api/v1/workloads/distributed/{id}", tag = "distributed",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = Workload), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn get_distributed(
    State(state): State<AppState>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<Json<Workload>, ApiError> {
    fetch(Kind::Distributed, state, p, id).await
}

macro_rules! action_handlers {
    ($($name:ident, $kind:expr, $action:expr, $path:literal, $tag:literal, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[utoipa::path(post, path = $path, tag = $tag,
            params(("id" = String, Path, description = "The workloadId")),
            responses((status = 202, body = Accepted), (status = 401, body = ErrorBody),
                (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
                (status = 409, description = "Not allowed in the current phase", body = ErrorBody)))]
        pub async fn $name(
            State(state): State<AppState>,
            Acting(p): Acting,
            Path(id): Path<String>,
        ) -> Result<(StatusCode, Json<Accepted>), ApiError> {
            act($kind, $action, state, p, id).await
        }
    )*};
}

action_handlers! {
    suspend_training, Kind::Training, Action::Suspend, "/api/v1/workloads/trainings/{id}/suspend", "trainings",
        "Suspend a training: its Job and pods are deleted; storage and services stay.";
    resume_training, Kind::Training, Action::Resume, "/api/v1/workloads/trainings/{id}/resume", "trainings",
        "Resume a suspended training: its Job is created again from the stored request.";
    suspend_distributed, Kind::Distributed, Action::Suspend, "/api/v1/workloads/distributed/{id}/suspend", "distributed",
        "Suspend a distributed training.";
    resume_distributed, Kind::Distributed, Action::Resume, "/api/v1/workloads/distributed/{id}/resume", "distributed",
        "Resume a suspended distributed training.";
}

/// Delete a training: the Job, its pods, PVCs and Services go; the row stays as history.
#[utoipa::path(delete, path = "/api/v1/workloads/trainings/{id}", tag = "trainings",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 202, body = Accepted), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn delete_training(
    State(state): State<AppState>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    act(Kind::Training, Action::Delete, state, p, id).await
}

/// Delete a distributed training.
#[utoipa::path(delete, path = "/api/v1/workloads/distributed/{id}", tag = "distributed",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 202, body = Accepted), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn delete_distributed(
    State(state): State<AppState>,
    Acting(p): Acting,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    act(Kind::Distributed, Action::Delete, state, p, id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_is_only_for_suspended_workloads() {
        assert_eq!(
            Action::Resume.apply(Phase::Stopped, Phase::Stopped),
            Ok(Phase::Running)
        );
        let why = Action::Resume
            .apply(Phase::Running, Phase::Running)
            .unwrap_err();
        assert!(why.contains("not suspended"), "{why}");
    }

    #[test]
    fn finished_or_suspended_workloads_cannot_be_suspended() {
        assert!(
            Action::Suspend
                .apply(Phase::Running, Phase::Completed)
                .is_err()
        );
        assert!(
            Action::Suspend
                .apply(Phase::Stopped, Phase::Stopping)
                .is_err()
        );
        assert_eq!(
            Action::Suspend.apply(Phase::Running, Phase::Pending),
            Ok(Phase::Stopped)
        );
    }

    #[test]
    fn anything_but_a_deletion_can_be_deleted() {
        assert_eq!(
            Action::Delete.apply(Phase::Stopped, Phase::Stopped),
            Ok(Phase::Deleting)
        );
        assert!(
            Action::Delete
                .apply(Phase::Deleting, Phase::Running)
                .is_err()
        );
    }
}
