//! What every workload kind's routes share: list, get, suspend, resume and delete, written once
//! here and stamped out per kind by [`workload_reads!`] and [`action_handlers!`], because the
//! OpenAPI document needs one annotated handler per path.

use super::{Accepted, ApiError};
use crate::service::Services;
use crate::service::workloads::Page;
use axum::Json;
use axum::body::Bytes;
use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use axum::http::StatusCode;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::action::Action;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::{Workload, WorkloadQuery};

/// The body as JSON, or the 400 that says it is not.
pub(super) fn json_body(body: &Bytes) -> Result<serde_json::Value, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body is not valid JSON: {e}")))
}

pub(super) async fn submit(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    body: Bytes,
) -> Result<(StatusCode, Json<Workload>), ApiError> {
    let value = json_body(&body)?;
    let accepted = services.workloads().submit(kind, &principal, value).await?;
    Ok((StatusCode::ACCEPTED, Json(accepted.response())))
}

pub(super) async fn fetch(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    id: String,
) -> Result<Json<Workload>, ApiError> {
    let listing = services
        .workloads()
        .find(Some(kind), &principal, &id)
        .await?;
    Ok(Json(services.workloads().response(&listing).await?))
}

pub(super) async fn act(
    kind: WorkloadKind,
    action: Action,
    services: Services,
    principal: Principal,
    id: String,
) -> Result<(StatusCode, Json<Accepted>), ApiError> {
    services
        .workloads()
        .act(Some(kind), action, &principal, &id)
        .await?;
    Ok(Accepted::response())
}

pub(super) async fn list(
    kind: WorkloadKind,
    services: Services,
    principal: Principal,
    query: Result<Query<WorkloadQuery>, QueryRejection>,
) -> Result<Page, ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))?;
    Ok(services
        .workloads()
        .list(Some(kind), &principal, &query)
        .await?)
}

/// A kind's page type (the list under the kind's own field name, as Run:ai names it) and its
/// list, get and delete handlers.
macro_rules! workload_reads {
    ($($list:ident, $get:ident, $delete:ident, $page:ident, $field:ident, $kind:expr,
       $path:literal, $item_path:literal, $tag:literal,
       $page_doc:literal, $list_doc:literal, $get_doc:literal, $delete_doc:literal;)*) => {$(
        #[doc = $page_doc]
        #[derive(Debug, serde::Serialize, utoipa::ToSchema)]
        pub struct $page {
            pub $field: Vec<tephra_core::model::workload::Workload>,
            /// How many match the filters in all.
            pub total: i64,
            /// The offset of the next page; absent on the last one (and when paging by
            /// `after`).
            pub next: Option<i64>,
            /// Send it as `after` for the next page: as quick at any depth as the first.
            /// Absent on the last one.
            #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
            pub next_cursor: Option<String>,
        }

        #[doc = $list_doc]
        #[utoipa::path(get, path = $path, tag = $tag,
            params(tephra_core::model::workload::WorkloadQuery),
            responses((status = 200, body = $page), $crate::http::api::error::BadRequest,
                $crate::http::api::error::Unauthorized, $crate::http::api::error::Forbidden))]
        pub async fn $list(
            axum::extract::State(services): axum::extract::State<$crate::service::Services>,
            $crate::http::api::Acting(p): $crate::http::api::Acting,
            query: Result<
                axum::extract::Query<tephra_core::model::workload::WorkloadQuery>,
                axum::extract::rejection::QueryRejection,
            >,
        ) -> Result<axum::Json<$page>, $crate::http::api::ApiError> {
            let page = $crate::http::api::per_kind::list($kind, services, p, query).await?;
            Ok(axum::Json($page {
                $field: page.workloads,
                total: page.total,
                next: page.next,
                next_cursor: page.next_cursor,
            }))
        }

        #[doc = $get_doc]
        #[utoipa::path(get, path = $item_path, tag = $tag,
            params(("id" = String, Path, description = "The workloadId")),
            responses((status = 200, body = tephra_core::model::workload::Workload),
                $crate::http::api::error::Unauthorized, $crate::http::api::error::Forbidden,
                $crate::http::api::error::NotFound))]
        pub async fn $get(
            axum::extract::State(services): axum::extract::State<$crate::service::Services>,
            $crate::http::api::Acting(p): $crate::http::api::Acting,
            axum::extract::Path(id): axum::extract::Path<String>,
        ) -> Result<axum::Json<tephra_core::model::workload::Workload>, $crate::http::api::ApiError> {
            $crate::http::api::per_kind::fetch($kind, services, p, id).await
        }

        $crate::http::api::per_kind::action_handlers! {
            $delete, $kind, tephra_core::model::action::Action::Delete, delete, $item_path, $tag,
                $delete_doc;
        }
    )*};
}

/// One handler per (kind, action): suspend, resume or delete a workload of that kind.
macro_rules! action_handlers {
    ($($name:ident, $kind:expr, $action:expr, $method:ident, $path:literal, $tag:literal,
       $doc:literal;)*) => {$(
        #[doc = $doc]
        #[utoipa::path($method, path = $path, tag = $tag,
            params(("id" = String, Path, description = "The workloadId")),
            responses((status = 202, body = $crate::http::api::Accepted),
                $crate::http::api::error::Unauthorized, $crate::http::api::error::Forbidden,
                $crate::http::api::error::NotFound,
                (status = 409, description = "Not allowed in the current phase",
                    body = $crate::http::api::ErrorBody)))]
        pub async fn $name(
            axum::extract::State(services): axum::extract::State<$crate::service::Services>,
            $crate::http::api::Acting(p): $crate::http::api::Acting,
            axum::extract::Path(id): axum::extract::Path<String>,
        ) -> Result<
            (axum::http::StatusCode, axum::Json<$crate::http::api::Accepted>),
            $crate::http::api::ApiError,
        > {
            $crate::http::api::per_kind::act($kind, $action, services, p, id).await
        }
    )*};
}

pub(super) use {action_handlers, workload_reads};
