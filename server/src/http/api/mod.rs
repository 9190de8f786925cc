//! The REST API under `/api/v1`, in the shape of the Run:ai Trainings API (seed 003): trainings and
//! distributed trainings, their live event stream, and projects. Every handler acts for the
//! authenticated principal ([`Acting`]) and checks project membership (`crate::authorize`).
//!
//! Handlers parse the request, call the services (`crate::service`, through `AppState::services`)
//! and shape the answer; errors become answers in [`error`].

pub mod applications;
pub mod audit;
pub mod authorization;
pub mod clusters;
pub use super::error;
pub mod events;
pub mod generic;
pub mod gpu_metrics;
pub mod kept_logs;
pub mod listing;
pub mod logs;
pub mod openapi;
pub mod org_units;
mod per_kind;
pub mod policies;
pub mod projects;
pub mod trainings;
pub mod workloads;

pub use error::{ApiError, ErrorBody, ErrorDetail};

use super::AppState;
use crate::http::limits::Class;
use axum::Json;
use axum::Router;
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use serde::Serialize;
use tephra_core::model::principal::Principal;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(trainings::router())
        .merge(generic::router())
        .merge(workloads::router())
        .merge(events::router())
        .merge(logs::router())
        .merge(kept_logs::router())
        .merge(gpu_metrics::router())
        .merge(projects::router())
        .merge(org_units::router())
        .merge(clusters::router())
        .merge(policies::router())
        .merge(authorization::router())
        .merge(applications::router())
        .merge(audit::router())
        .merge(openapi::router())
}

/// The body of 202 answers to suspend, resume and delete (seed 003).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Accepted {
    pub code: u16,
    pub message: String,
}

impl Accepted {
    pub fn response() -> (StatusCode, Json<Accepted>) {
        (
            StatusCode::ACCEPTED,
            Json(Accepted {
                code: 202,
                message: "Request has been accepted.".into(),
            }),
        )
    }
}

/// A 201 answer with what was created.
pub(super) fn created<T>(value: T) -> (StatusCode, Json<T>) {
    (StatusCode::CREATED, Json(value))
}

/// The principal a request acts for; rejects with 401 when nobody is signed in.
pub struct Acting(pub Principal);

impl FromRequestParts<AppState> for Acting {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let principal = state.services.auth().authenticate(parts).await?;
        // Writes count per principal as well as per address: one account spread over many
        // addresses is still one caller.
        let writes = [Method::POST, Method::PUT, Method::PATCH, Method::DELETE];
        if writes.contains(&parts.method) {
            let who = principal
                .application
                .clone()
                .unwrap_or_else(|| principal.user_id.clone());
            state.limits.admit_principal(Class::Write, &who, parts)?;
        }
        Ok(Acting(principal))
    }
}

/// The principal with what it proved itself with, for a response that lasts and asks again while
/// it runs (`crate::http::streams`).
pub struct ActingRenewably(pub Principal, pub crate::auth::Credential);

impl FromRequestParts<AppState> for ActingRenewably {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let (principal, credential) = state.services.auth().authenticate_renewably(parts).await?;
        Ok(ActingRenewably(principal, credential))
    }
}

/// A JSON body of `T`; a body that is not JSON or not a `T` gets 400 saying why (serde names
/// the field: "unknown field `x`", "missing field `name`").
pub struct JsonBody<T>(pub T);

impl<T: serde::de::DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(
        request: axum::extract::Request,
        state: &AppState,
    ) -> Result<Self, ApiError> {
        let body = axum::body::Bytes::from_request(request, state)
            .await
            .map_err(|e| ApiError::bad_request(e.body_text()))?;
        serde_json::from_slice(&body)
            .map(JsonBody)
            .map_err(|e| ApiError::bad_request(format!("the body is not valid: {e}")))
    }
}

/// Query parameters of `T`; unknown or malformed ones get 400 naming them.
pub struct QueryParams<T>(pub T);

impl<T: serde::de::DeserializeOwned> FromRequestParts<AppState> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| QueryParams(q.0))
            .map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))
    }
}
