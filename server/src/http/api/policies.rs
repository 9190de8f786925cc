//! Run:ai's policy API: `GET`, `PUT` and `DELETE /api/v2/policy/trainings` (and `/distributed`),
//! one scope's `defaults` and `rules` and the effective policy there (the scopes around it
//! included), which the form reads.

use super::error::{BadRequest, Forbidden, NotFound, Unauthorized};
use super::{Acting, ApiError, JsonBody, QueryParams};
use crate::http::AppState;
use crate::service::Services;
use crate::service::organisation::{Organisation, ScopePolicy};
use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tephra_core::domain::authz::Scope;
use tephra_core::domain::policy::PolicyKind;
use tephra_core::model::principal::Principal;

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/api/v2/policy/{kind}",
        get(get_policy).put(put_policy).delete(delete_policy),
    )
}

/// Which scope: `system` (Run:ai's `tenant` and `cluster` mean the same), `department` with
/// `departmentId`, or `project` with `projectId`.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PolicyMeta {
    pub scope: String,
    #[serde(default)]
    pub department_id: Option<String>,
    #[serde(default)]
    pub project_id: Option<String>,
}

/// `PUT`'s body: the scope, and its `{defaults, rules}`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyRequest {
    pub meta: PolicyMeta,
    /// `{"defaults": {...}, "rules": {...}}`, both shaped like the request's `spec`.
    pub policy: Value,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PolicyAnswer {
    pub meta: PolicyMeta,
    /// This scope's own policy; `null` when it has none.
    pub policy: Option<Value>,
    /// This scope's and the outer scopes' together: defaults merged (inner over outer), each
    /// rule the narrowest.
    pub effective: Value,
}

fn kind_of(kind: &str) -> Result<PolicyKind, ApiError> {
    PolicyKind::parse(kind).map_err(|_| {
        ApiError::from(app::error::AppError::NotFound(format!(
            "no policies for {kind:?}: trainings or distributed"
        )))
    })
}

fn answer(meta: PolicyMeta, found: ScopePolicy) -> PolicyAnswer {
    let meta = match &found.scope {
        Scope::System => PolicyMeta {
            scope: "system".into(),
            department_id: None,
            project_id: None,
        },
        _ => meta,
    };
    PolicyAnswer {
        meta,
        policy: found.own,
        effective: found.effective,
    }
}

async fn scope_of(
    organisation: &Organisation,
    principal: &Principal,
    meta: &PolicyMeta,
) -> Result<Scope, ApiError> {
    Ok(organisation
        .policy_scope(
            principal,
            &meta.scope,
            meta.department_id.as_deref(),
            meta.project_id.as_deref(),
        )
        .await?)
}

/// One scope's policy and the effective policy there.
#[utoipa::path(get, path = "/api/v2/policy/{kind}", tag = "policies",
    params(("kind" = String, Path, description = "trainings or distributed"), PolicyMeta),
    responses((status = 200, body = PolicyAnswer), BadRequest, Unauthorized, Forbidden, NotFound))]
pub async fn get_policy(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(kind): Path<String>,
    QueryParams(meta): QueryParams<PolicyMeta>,
) -> Result<Json<PolicyAnswer>, ApiError> {
    let kind = kind_of(&kind)?;
    let scope = scope_of(services.organisation(), &principal, &meta).await?;
    let found = services
        .organisation()
        .policy(&principal, &scope, kind)
        .await?;
    Ok(Json(answer(meta, found)))
}

/// Sets a scope's policy. It may only narrow the scopes around it, and its defaults must keep
/// every rule; refusals name the field, the rule and the scope that set it.
#[utoipa::path(put, path = "/api/v2/policy/{kind}", tag = "policies",
    params(("kind" = String, Path, description = "trainings or distributed")),
    request_body = PolicyRequest,
    responses((status = 200, body = PolicyAnswer), BadRequest, Unauthorized, Forbidden, NotFound))]
pub async fn put_policy(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(kind): Path<String>,
    JsonBody(request): JsonBody<PolicyRequest>,
) -> Result<Json<PolicyAnswer>, ApiError> {
    let kind = kind_of(&kind)?;
    let scope = scope_of(services.organisation(), &principal, &request.meta).await?;
    let found = services
        .organisation()
        .set_policy(&principal, &scope, kind, &request.policy)
        .await?;
    Ok(Json(answer(request.meta, found)))
}

/// Removes a scope's policy; the system's goes back to Tephra's node protection.
#[utoipa::path(delete, path = "/api/v2/policy/{kind}", tag = "policies",
    params(("kind" = String, Path, description = "trainings or distributed"), PolicyMeta),
    responses((status = 204), BadRequest, Unauthorized, Forbidden, NotFound))]
pub async fn delete_policy(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(kind): Path<String>,
    QueryParams(meta): QueryParams<PolicyMeta>,
) -> Result<StatusCode, ApiError> {
    let kind = kind_of(&kind)?;
    let scope = scope_of(services.organisation(), &principal, &meta).await?;
    services
        .organisation()
        .delete_policy(&principal, &scope, kind)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
