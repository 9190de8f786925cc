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

/// An org unit's page type and its five handlers (list, create, get, update, delete), one set
/// per unit because the OpenAPI document needs one annotated handler per path.
macro_rules! org_unit_handlers {
    ($unit:ident, $request:ident, $list_type:ident, $field:ident, $fields:expr,
     $path:literal, $item_path:literal, $id_doc:literal,
     [$list:ident, $all:ident, $list_doc:literal],
     [$create:ident, $create_doc:literal],
     [$get:ident, $one:ident],
     [$update:ident, $update_doc:literal],
     [$delete:ident, $delete_doc:literal]) => {
        #[derive(Debug, Serialize, utoipa::ToSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $list_type {
            pub $field: Vec<$unit>,
            /// How many matched the filters, before paging.
            pub total_records: usize,
        }

        #[doc = $list_doc]
        #[utoipa::path(get, path = $path, tag = "org-unit",
            params(
                ("filterBy" = Option<Vec<String>>, Query, description = "field<op>value; op one of == != <= >= =@ !@ =^ =$"),
                ("sortBy" = Option<String>, Query), ("sortOrder" = Option<String>, Query, description = "asc or desc"),
                ("offset" = Option<usize>, Query), ("limit" = Option<usize>, Query),
            ),
            responses((status = 200, body = $list_type), BadRequest, Unauthorized))]
        pub async fn $list(
            State(services): State<Services>,
            Acting(principal): Acting,
            Query(pairs): Pairs,
        ) -> Result<Json<$list_type>, ApiError> {
            let query = ListQuery::parse(&pairs, $fields)?;
            let ($field, total_records) =
                query.apply(services.organisation().$all(&principal).await?);
            Ok(Json($list_type { $field, total_records }))
        }

        #[doc = $create_doc]
        #[utoipa::path(post, path = $path, tag = "org-unit", request_body = $request,
            responses((status = 201, body = $unit), BadRequest, Unauthorized, Forbidden, Conflict))]
        pub async fn $create(
            State(services): State<Services>,
            Acting(principal): Acting,
            JsonBody(request): JsonBody<$request>,
        ) -> Result<(StatusCode, Json<$unit>), ApiError> {
            Ok(created(services.organisation().$create(&principal, request).await?))
        }

        #[utoipa::path(get, path = $item_path, tag = "org-unit",
            params(("id" = String, Path, description = $id_doc)),
            responses((status = 200, body = $unit), Unauthorized, Forbidden, NotFound))]
        pub async fn $get(
            State(services): State<Services>,
            Acting(principal): Acting,
            Path(id): Path<String>,
        ) -> Result<Json<$unit>, ApiError> {
            Ok(Json(services.organisation().$one(&principal, &id).await?))
        }

        #[doc = $update_doc]
        #[utoipa::path(put, path = $item_path, tag = "org-unit",
            params(("id" = String, Path, description = $id_doc)), request_body = $request,
            responses((status = 200, body = $unit), BadRequest, Unauthorized, Forbidden, NotFound))]
        pub async fn $update(
            State(services): State<Services>,
            Acting(principal): Acting,
            Path(id): Path<String>,
            JsonBody(request): JsonBody<$request>,
        ) -> Result<Json<$unit>, ApiError> {
            Ok(Json(services.organisation().$update(&principal, &id, request).await?))
        }

        #[doc = $delete_doc]
        #[utoipa::path(delete, path = $item_path, tag = "org-unit",
            params(("id" = String, Path, description = $id_doc)),
            responses((status = 204), Unauthorized, Forbidden, NotFound, Conflict))]
        pub async fn $delete(
            State(services): State<Services>,
            Acting(principal): Acting,
            Path(id): Path<String>,
        ) -> Result<StatusCode, ApiError> {
            services.organisation().$delete(&principal, &id).await?;
            Ok(StatusCode::NO_CONTENT)
        }
    };
}

org_unit_handlers!(
    Department,
    DepartmentRequest,
    DepartmentList,
    departments,
    DEPARTMENT_FIELDS,
    "/api/v1/org-unit/departments",
    "/api/v1/org-unit/departments/{id}",
    "The department's id or name",
    [
        list_departments,
        departments,
        "The departments the principal may see."
    ],
    [
        create_department,
        "Creates a department (system administrators)."
    ],
    [get_department, department],
    [
        update_department,
        "Changes a department's description and resources (system administrators)."
    ],
    [
        delete_department,
        "Deletes a department without projects (system administrators)."
    ]
);

org_unit_handlers!(
    Project,
    ProjectRequest,
    ProjectList,
    projects,
    PROJECT_FIELDS,
    "/api/v1/org-unit/projects",
    "/api/v1/org-unit/projects/{id}",
    "The project's id or name",
    [
        list_projects,
        org_projects,
        "The projects the principal may see."
    ],
    [
        create_project,
        "Creates a project in a department (its administrators, or system administrators)."
    ],
    [get_project, org_project],
    [
        update_project,
        "Replaces a project's description, resources, default node pools and scheduling rules: what the body leaves out is cleared."
    ],
    [delete_project, "Deletes a project without live workloads."]
);

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
