//! `/api/v1/authorization`: the roles and the access rules that bind people, groups and
//! applications to them, in Run:ai's shapes.

use super::error::{BadRequest, Conflict, Forbidden, NotFound, Unauthorized};
use super::{Acting, ApiError, JsonBody, QueryParams, created};
use crate::http::AppState;
use crate::service::Services;
use crate::service::access::{RuleQuery, roles};
use app::error::AppError;
use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use tephra_core::model::access::{AccessRuleList, AccessRuleView, NewAccessRule, RoleView};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/authorization/roles", get(list_roles))
        .route(
            "/api/v1/authorization/access-rules",
            get(list_rules).post(add_rule),
        )
        .route(
            "/api/v1/authorization/access-rules/{id}",
            get(get_rule).delete(remove_rule),
        )
}

fn rule_id(id: &str) -> Result<i64, ApiError> {
    id.parse()
        .map_err(|_| AppError::NotFound(format!("no access rule with the id {id:?}")).into())
}

/// The predefined roles.
#[utoipa::path(get, path = "/api/v1/authorization/roles", tag = "authorization",
    responses((status = 200, body = Vec<RoleView>), Unauthorized))]
pub async fn list_roles(Acting(_): Acting) -> Json<Vec<RoleView>> {
    Json(roles())
}

/// The access rules on scopes the caller may see.
#[utoipa::path(get, path = "/api/v1/authorization/access-rules", tag = "authorization",
    params(RuleQuery),
    responses((status = 200, body = AccessRuleList), BadRequest, Unauthorized))]
pub async fn list_rules(
    State(services): State<Services>,
    Acting(principal): Acting,
    QueryParams(query): QueryParams<RuleQuery>,
) -> Result<Json<AccessRuleList>, ApiError> {
    Ok(Json(
        services.access().list_rules(&principal, &query).await?,
    ))
}

#[utoipa::path(get, path = "/api/v1/authorization/access-rules/{id}", tag = "authorization",
    params(("id" = String, Path, description = "The access rule's id")),
    responses((status = 200, body = AccessRuleView), Unauthorized, NotFound))]
pub async fn get_rule(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<AccessRuleView>, ApiError> {
    Ok(Json(
        services
            .access()
            .get_rule(&principal, rule_id(&id)?)
            .await?,
    ))
}

/// Gives a subject a role on a scope. Needs `project-members:manage` there (`system:manage` on
/// the system), and the role may be no wider than the caller's own there.
#[utoipa::path(post, path = "/api/v1/authorization/access-rules", tag = "authorization",
    request_body = NewAccessRule,
    responses((status = 201, body = AccessRuleView), BadRequest, Unauthorized, Forbidden, Conflict))]
pub async fn add_rule(
    State(services): State<Services>,
    Acting(principal): Acting,
    JsonBody(new): JsonBody<NewAccessRule>,
) -> Result<(StatusCode, Json<AccessRuleView>), ApiError> {
    Ok(created(services.access().add_rule(&principal, &new).await?))
}

/// Removes an access rule.
#[utoipa::path(delete, path = "/api/v1/authorization/access-rules/{id}", tag = "authorization",
    params(("id" = String, Path, description = "The access rule's id")),
    responses((status = 204, description = "Removed"), Unauthorized, Forbidden, NotFound))]
pub async fn remove_rule(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    services
        .access()
        .remove_rule(&principal, rule_id(&id)?)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
