//! `GET /api/v1/audit`: the audit trail, for system administrators.

use super::error::{BadRequest, Forbidden, Unauthorized};
use super::{Acting, ApiError, QueryParams};
use crate::http::AppState;
use crate::service::Services;
use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use tephra_core::model::access::{AuditPage, AuditQuery};

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/audit", get(list_audit))
}

/// Sign-ins, sign-outs, failed sign-ins, applications created and revoked, access rules added
/// and removed, and every submit, suspend, resume and delete; newest first.
#[utoipa::path(get, path = "/api/v1/audit", tag = "audit", params(AuditQuery),
    responses((status = 200, body = AuditPage), BadRequest, Unauthorized, Forbidden))]
pub async fn list_audit(
    State(services): State<Services>,
    Acting(principal): Acting,
    QueryParams(query): QueryParams<AuditQuery>,
) -> Result<Json<AuditPage>, ApiError> {
    Ok(Json(services.access().audit(&principal, &query).await?))
}
