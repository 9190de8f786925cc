//! Run:ai's org-unit API: `/api/v1/org-unit/departments` and `/api/v1/org-unit/projects` (create,
//! list with `filterBy`/`sortBy`/paging, get, update, delete), and `/api/v1/node-pools`. Ids are
//! strings of integers, and a name works wherever an id does.

use super::error::{BadRequest, Conflict, Forbidden, NotFound, Unauthorized};
use super::listing::ListQuery;
use super::{Acting, ApiError, JsonBody, created};
use crate::http::AppState;
use crate::service::Services;
use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde::Serialize;
use tephra_core::model::org::{Department, DepartmentRequest, Project, ProjectRequest};

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/org-unit/departments",
            get(list_departments).post(create_department),
        )
        .route(
            "/api/v1/org-unit/departments/{id}",
            get(get_department)
                .put(update_department)
                .delete(delete_department),
        )
        .route(
            "/api/v1/org-unit/projects",
            get(list_projects).post(create_project),
        )
        .route(
            "/api/v1/org-unit/projects/{id}",
            get(get_project).put(update_project).delete(delete_project),
        )
        .route("/api/v1/node-pools", get(list_node_pools))
}

/// The fields `filterBy` and `sortBy` may name.
const DEPARTMENT_FIELDS: &[&str] = &["id", "name", "description", "createdAt", "updatedAt"];
const PROJECT_FIELDS: &[&str] = &[
    "id",
    "name",
    "description",
    "parentId",
    "parentName",
    "requestedNamespace",
    "workloads",
    "createdAt",
    "updatedAt",
];

type Pairs = Query<Vec<(String, String)>>;

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DepartmentList {
    pub departments: Vec<Department>,
    /// How many matched the filters, before paging.
    pub total_records: usize,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectList {
    pub projects: Vec<Project>,
    /// How many matched the filters, before paging.
    pub total_records: usize,
}

/// The departments the principal may see.
#[utoipa::path(get, path = "/api/v1/org-unit/departments", tag = "org-unit",
    params(
        ("filterBy" = Option<Vec<String>>, Query, description = "field<op>value; op one of == != <= >= =@ !@ =^ =$"),
        ("sortBy" = Option<String>, Query), ("sortOrder" = Option<String>, Query, description = "asc or desc"),
        ("offset" = Option<usize>, Query), ("limit" = Option<usize>, Query),
    ),
    responses((status = 200, body = DepartmentList), BadRequest, Unauthorized))]
pub async fn list_departments(
    State(services): State<Services>,
    Acting(principal): Acting,
    Query(pairs): Pairs,
) -> Result<Json<DepartmentList>, ApiError> {
    let query = ListQuery::parse(&pairs, DEPARTMENT_FIELDS)?;
    let (departments, total_records) =
        query.apply(services.organisation().departments(&principal).await?);
    Ok(Json(DepartmentList {
        departments,
        total_records,
    }))
}

/// Creates a department (system administrators).
#[utoipa::path(post, path = "/api/v1/org-unit/departments", tag = "org-unit",
    request_body = DepartmentRequest,
    responses((status = 201, body = Department), BadRequest, Unauthorized, Forbidden, Conflict))]
pub async fn create_department(
    State(services): State<Services>,
    Acting(principal): Acting,
    JsonBody(request): JsonBody<DepartmentRequest>,
) -> Result<(StatusCode, Json<Department>), ApiError> {
    Ok(created(
        services
            .organisation()
            .create_department(&principal, request)
            .await?,
    ))
}

#[utoipa::path(get, path = "/api/v1/org-unit/departments/{id}", tag = "org-unit",
    params(("id" = String, Path, description = "The department's id or name")),
    responses((status = 200, body = Department), Unauthorized, Forbidden, NotFound))]
pub async fn get_department(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<Department>, ApiError> {
    Ok(Json(
        services.organisation().department(&principal, &id).await?,
    ))
}

/// Changes a department's description and resources (system administrators).
#[utoipa::path(put, path = "/api/v1/org-unit/departments/{id}", tag = "org-unit",
    params(("id" = String, Path, description = "The department's id or name")),
    request_body = DepartmentRequest,
    responses((status = 200, body = Department), BadRequest, Unauthorized, Forbidden, NotFound))]
pub async fn update_department(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<DepartmentRequest>,
) -> Result<Json<Department>, ApiError> {
    Ok(Json(
        services
            .organisation()
            .update_department(&principal, &id, request)
            .await?,
    ))
}

/// Deletes a department without projects (system administrators).
#[utoipa::path(delete, path = "/api/v1/org-unit/departments/{id}", tag = "org-unit",
    params(("id" = String, Path, description = "The department's id or name")),
    responses((status = 204), Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn delete_department(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    services
        .organisation()
        .delete_department(&principal, &id)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The projects the principal may see.
#[utoipa::path(get, path = "/api/v1/org-unit/projects", tag = "org-unit",
    params(
        ("filterBy" = Option<Vec<String>>, Query, description = "field<op>value; op one of == != <= >= =@ !@ =^ =$"),
        ("sortBy" = Option<String>, Query), ("sortOrder" = Option<String>, Query, description = "asc or desc"),
        ("offset" = Option<usize>, Query), ("limit" = Option<usize>, Query),
    ),
    responses((status = 200, body = ProjectList), BadRequest, Unauthorized))]
pub async fn list_projects(
    State(services): State<Services>,
    Acting(principal): Acting,
    Query(pairs): Pairs,
) -> Result<Json<ProjectList>, ApiError> {
    let query = ListQuery::parse(&pairs, PROJECT_FIELDS)?;
    let (projects, total_records) =
        query.apply(services.organisation().org_projects(&principal).await?);
    Ok(Json(ProjectList {
        projects,
        total_records,
    }))
}

/// Creates a project in a department (its administrators, or system administrators).
#[utoipa::path(post, path = "/api/v1/org-unit/projects", tag = "org-unit",
    request_body = ProjectRequest,
    responses((status = 201, body = Project), BadRequest, Unauthorized, Forbidden, Conflict))]
pub async fn create_project(
    State(services): State<Services>,
    Acting(principal): Acting,
    JsonBody(request): JsonBody<ProjectRequest>,
) -> Result<(StatusCode, Json<Project>), ApiError> {
    Ok(created(
        services
            .organisation()
            .create_project(&principal, request)
            .await?,
    ))
}

#[utoipa::path(get, path = "/api/v1/org-unit/projects/{id}", tag = "org-unit",
    params(("id" = String, Path, description = "The project's id or name")),
    responses((status = 200, body = Project), Unauthorized, Forbidden, NotFound))]
pub async fn get_project(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<Project>, ApiError> {
    Ok(Json(
        services.organisation().org_project(&principal, &id).await?,
    ))
}

/// Replaces a project's description, resources, default node pools and scheduling rules: what
/// the body leaves out is cleared.
#[utoipa::path(put, path = "/api/v1/org-unit/projects/{id}", tag = "org-unit",
    params(("id" = String, Path, description = "The project's id or name")),
    request_body = ProjectRequest,
    responses((status = 200, body = Project), BadRequest, Unauthorized, Forbidden, NotFound))]
pub async fn update_project(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<ProjectRequest>,
) -> Result<Json<Project>, ApiError> {
    Ok(Json(
        services
            .organisation()
            .update_project(&principal, &id, request)
            .await?,
    ))
}

/// Deletes a project without live workloads.
#[utoipa::path(delete, path = "/api/v1/org-unit/projects/{id}", tag = "org-unit",
    params(("id" = String, Path, description = "The project's id or name")),
    responses((status = 204), Unauthorized, Forbidden, NotFound, Conflict))]
pub async fn delete_project(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    services
        .organisation()
        .delete_project(&principal, &id)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A node pool: the nodes sharing a value of the pool label (`default` for nodes without it).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodePool {
    pub id: String,
    pub name: String,
    pub nodes: usize,
    /// Allocatable on its schedulable nodes together.
    pub gpus: f64,
    pub cpu_millis: i64,
    pub memory_mib: i64,
    /// Its largest node, resource by resource.
    pub largest_node_gpus: f64,
    /// GPUs of Tephra's pods bound to its nodes that have not finished (other pods are not
    /// counted).
    pub allocated_gpus: f64,
}

/// The cluster's node pools and their capacity, from the Node objects.
#[utoipa::path(get, path = "/api/v1/node-pools", tag = "org-unit",
    responses((status = 200, body = [NodePool]), Unauthorized))]
pub async fn list_node_pools(
    State(services): State<Services>,
    Acting(_): Acting,
) -> Json<Vec<NodePool>> {
    let pools = services.organisation().node_pools();
    Json(
        pools
            .into_iter()
            .map(|(p, allocated_gpus)| NodePool {
                id: p.name.clone(),
                name: p.name,
                nodes: p.nodes,
                gpus: p.capacity.gpus,
                cpu_millis: p.capacity.cpu_millis,
                memory_mib: p.capacity.memory_mib,
                largest_node_gpus: p.largest.gpus,
                allocated_gpus,
            })
            .collect(),
    )
}
