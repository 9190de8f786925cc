//! The REST API under `/api/v1`, in the shape of the Run:ai Trainings API (seed 003): trainings and
//! distributed trainings, their live event stream, and projects. Every handler acts for the
//! authenticated principal ([`Acting`]) and checks project membership (`crate::access`).
//!
//! Errors are `{code, message}` with the HTTP status as `code`; a 400 adds `details`, one entry per
//! offending field path. Internal errors are logged and answered with a generic message.

pub mod applications;
pub mod audit;
pub mod authorization;
pub mod events;
pub mod openapi;
pub mod projects;
pub mod trainings;

use super::AppState;
use crate::db::DbError;
use crate::db::workloads::WorkloadListing;
use app::error::AppError;
use app::model::principal::Principal;
use app::model::validation::FieldError;
use app::model::workload::Workload;
use axum::Json;
use axum::Router;
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use chrono::SecondsFormat;
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(trainings::router())
        .merge(events::router())
        .merge(projects::router())
        .merge(authorization::router())
        .merge(applications::router())
        .merge(audit::router())
        .merge(openapi::router())
}

/// One offending field of a rejected request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// JSON path, e.g. `spec.tolerations[0].value`.
    pub field: String,
    pub message: String,
}

/// The body of every error answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The HTTP status.
    pub code: u16,
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<ErrorDetail>,
    /// On a 409 for an action: the workload's desired phase now (e.g. after another action won).
    #[serde(rename = "desiredPhase", skip_serializing_if = "Option::is_none")]
    pub desired_phase: Option<app::model::phase::Phase>,
    /// On a 409 for an action: the workload's actual phase now.
    #[serde(rename = "actualPhase", skip_serializing_if = "Option::is_none")]
    pub actual_phase: Option<app::model::phase::Phase>,
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

/// An error answer.
#[derive(Debug)]
pub struct ApiError(ErrorBody);

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError(ErrorBody {
            code: status.as_u16(),
            message: message.into(),
            details: Vec::new(),
            desired_phase: None,
            actual_phase: None,
        })
    }

    /// Adds the workload's current phases, so the loser of a race learns where it stands.
    pub fn with_phases(
        mut self,
        desired: app::model::phase::Phase,
        actual: app::model::phase::Phase,
    ) -> Self {
        self.0.desired_phase = Some(desired);
        self.0.actual_phase = Some(actual);
        self
    }

    /// 400 naming one field.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Self::invalid(vec![FieldError {
            path: field.into(),
            message: message.into(),
        }])
    }

    /// 400 listing every offending field; the message repeats them for clients that only
    /// print `message`.
    pub fn invalid(errors: Vec<FieldError>) -> Self {
        let summary = errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        ApiError(ErrorBody {
            code: 400,
            message: format!("the request is invalid: {summary}"),
            details: errors
                .into_iter()
                .map(|e| ErrorDetail {
                    field: e.path,
                    message: e.message,
                })
                .collect(),
            desired_phase: None,
            actual_phase: None,
        })
    }

    pub fn body(&self) -> &ErrorBody {
        &self.0
    }
}

impl From<AppError> for ApiError {
    fn from(e: AppError) -> Self {
        match e {
            AppError::Invalid { field, message } => ApiError::field(&field, message),
            other => {
                let status = StatusCode::from_u16(other.status_code())
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                ApiError::new(status, other.to_string())
            }
        }
    }
}

impl From<DbError> for ApiError {
    fn from(e: DbError) -> Self {
        AppError::from(e).into()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self.0)).into_response()
    }
}

/// The principal a request acts for; rejects with 401 when nobody is signed in.
pub struct Acting(pub Principal);

impl FromRequestParts<AppState> for Acting {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Ok(Acting(state.backend.authenticate(parts).await?))
    }
}

/// The workload with this id (deleted or not) and the names shown beside it; 404 naming `noun`
/// when the id is malformed or unknown.
pub async fn listing_by_id(
    db: &crate::db::Database,
    id: &str,
    noun: &str,
) -> Result<WorkloadListing, ApiError> {
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no {noun} with the id {id:?}"),
        )
    };
    let uuid: uuid::Uuid = id.parse().map_err(|_| not_found())?;
    match db.workloads().listing(uuid).await {
        Ok(listing) => Ok(listing),
        Err(DbError::NotFound) => Err(not_found()),
        Err(e) => Err(e.into()),
    }
}

/// A stored workload in the Run:ai response shape.
pub fn workload_response(listing: &WorkloadListing) -> Workload {
    let w = &listing.workload;
    Workload {
        name: w.name.clone(),
        requested_name: w.requested_name.clone(),
        workload_id: w.id.to_string(),
        project_id: w.project_id.to_string(),
        project_name: listing.project_name.clone(),
        cluster_id: w.cluster_id.clone(),
        kind: w.kind.as_str().to_owned(),
        created_by: listing.creator_name.clone(),
        created_at: w.created_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        updated_at: w.updated_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        desired_phase: w.desired_phase,
        actual_phase: w.actual_phase,
        phase_message: w.phase_reason.clone(),
        spec: w
            .spec
            .get("spec")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({})),
        status: w.status.clone(),
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
            .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.body_text()))?;
        serde_json::from_slice(&body).map(JsonBody).map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("the body is not valid: {e}"),
            )
        })
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
            .map_err(|e| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    format!("bad query: {}", e.body_text()),
                )
            })
    }
}
