//! `/api/v1/apps` (applications for scripts) and `POST /api/v1/token` (an application's
//! credentials for a short-lived access token), in Run:ai's shapes.

use super::error::{BadRequest, Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized};
use super::{Acting, ApiError, JsonBody, created};
use crate::auth::bearer::{Credentials, IssuedToken};
use crate::http::AppState;
use crate::http::limits::Class;
use crate::service::Services;
use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use tephra_core::model::access::{
    ApplicationView, CreatedApplication, NewAppSecret, NewApplication,
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/apps", get(list_apps).post(create_app))
        .route("/api/v1/apps/{id}", get(get_app).delete(revoke_app))
        .route("/api/v1/apps/{id}/secret", post(rotate_secret))
        .route("/api/v1/token", post(token))
}

/// The caller's applications (everyone's for a system administrator).
#[utoipa::path(get, path = "/api/v1/apps", tag = "applications",
    responses((status = 200, body = Vec<ApplicationView>), Unauthorized))]
pub async fn list_apps(
    State(services): State<Services>,
    Acting(principal): Acting,
) -> Result<Json<Vec<ApplicationView>>, ApiError> {
    Ok(Json(services.access().list_apps(&principal).await?))
}

/// Creates an application; the answer is the only time its `clientSecret` is shown.
#[utoipa::path(post, path = "/api/v1/apps", tag = "applications", request_body = NewApplication,
    responses((status = 201, body = CreatedApplication), BadRequest, Unauthorized, Forbidden, Conflict))]
pub async fn create_app(
    State(services): State<Services>,
    Acting(principal): Acting,
    JsonBody(new): JsonBody<NewApplication>,
) -> Result<(StatusCode, Json<CreatedApplication>), ApiError> {
    Ok(created(
        services.access().create_app(&principal, &new).await?,
    ))
}

#[utoipa::path(get, path = "/api/v1/apps/{id}", tag = "applications",
    params(("id" = String, Path, description = "The application's id or name")),
    responses((status = 200, body = ApplicationView), Unauthorized, NotFound))]
pub async fn get_app(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<ApplicationView>, ApiError> {
    Ok(Json(services.access().get_app(&principal, &id).await?))
}

/// Revokes an application: its tokens stop working at once.
#[utoipa::path(delete, path = "/api/v1/apps/{id}", tag = "applications",
    params(("id" = String, Path, description = "The application's id or name")),
    responses((status = 200, body = ApplicationView), Unauthorized, NotFound, Conflict))]
pub async fn revoke_app(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<ApplicationView>, ApiError> {
    Ok(Json(services.access().revoke_app(&principal, &id).await?))
}

/// Gives an application a new secret, shown only in this answer; the old secret and every token
/// it gave stop working at once. The body (`expiresAt`) may be left out.
#[utoipa::path(post, path = "/api/v1/apps/{id}/secret", tag = "applications",
    params(("id" = String, Path, description = "The application's id or name")),
    request_body(content = Option<NewAppSecret>),
    responses((status = 200, body = CreatedApplication), BadRequest, Unauthorized, NotFound, Conflict))]
pub async fn rotate_secret(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<CreatedApplication>, ApiError> {
    let new: NewAppSecret = if body.iter().all(u8::is_ascii_whitespace) {
        NewAppSecret::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("the body is not valid: {e}")))?
    };
    Ok(Json(
        services
            .access()
            .rotate_app_secret(&principal, &id, &new)
            .await?,
    ))
}

/// An access token for an application: `{"grantType": "client_credentials", "clientId",
/// "clientSecret"}`, or `{"grantType": "app_token", "AppId", "AppSecret"}` as Run:ai's SDK sends
/// (`appID`/`appSecret` too). Use it as `Authorization: Bearer <accessToken>`.
#[utoipa::path(post, path = "/api/v1/token", tag = "applications",
    request_body(content = serde_json::Value, description = "grantType and the application's credentials"),
    responses((status = 200, body = IssuedToken), BadRequest, Unauthorized, TooManyRequests))]
pub async fn token(
    State(state): State<AppState>,
    parts: axum::http::request::Parts,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<IssuedToken>, ApiError> {
    let credentials = Credentials::parse(&body)?;
    // Per client id too: a guesser of one application's secret gains nothing from more addresses.
    state
        .limits
        .admit_principal(Class::Token, &credentials.client_id, &parts)?;
    Ok(Json(state.services.auth().issue_token(&credentials).await?))
}
