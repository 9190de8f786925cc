//! Error answers: the one place an [`AppError`] becomes an HTTP status and a body, for the REST
//! API and for server functions alike.
//!
//! Bodies are `{code, message}` with the HTTP status as `code`; a 400 adds `details`, one entry
//! per offending field path, and a 409 about a workload's phase adds where it stands now.

use app::error::AppError;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tephra_core::model::phase::Phase;
use tephra_core::model::validation::FieldError;

/// One offending field of a rejected request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// JSON path, e.g. `spec.tolerations[0].value`.
    pub field: String,
    pub message: String,
}

/// The error answers routes document, each an `ErrorBody`: named once here so every route's
/// `responses(...)` lists them by name, with the same description everywhere.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 400,
    description = "The request is malformed or invalid; `details` names each field"
)]
pub struct BadRequest(pub ErrorBody);

#[derive(utoipa::IntoResponses)]
#[response(status = 401, description = "No valid session or bearer token")]
pub struct Unauthorized(pub ErrorBody);

#[derive(utoipa::IntoResponses)]
#[response(status = 403, description = "The principal lacks the permission the message names")]
pub struct Forbidden(pub ErrorBody);

#[derive(utoipa::IntoResponses)]
#[response(status = 404, description = "Nothing by that id that the principal may see")]
pub struct NotFound(pub ErrorBody);

#[derive(utoipa::IntoResponses)]
#[response(
    status = 409,
    description = "It conflicts with the current state, which the body describes"
)]
pub struct Conflict(pub ErrorBody);

#[derive(utoipa::IntoResponses)]
#[response(
    status = 429,
    description = "Too many requests or open streams; the message says which limit"
)]
pub struct TooManyRequests(pub ErrorBody);

#[derive(utoipa::IntoResponses)]
#[response(status = 500, description = "The server failed; the message says where")]
pub struct Failed(pub ErrorBody);

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
    pub desired_phase: Option<Phase>,
    /// On a 409 for an action: the workload's actual phase now.
    #[serde(rename = "actualPhase", skip_serializing_if = "Option::is_none")]
    pub actual_phase: Option<Phase>,
}

/// The HTTP status of an error.
pub fn status_of(error: &AppError) -> StatusCode {
    match error {
        AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
        AppError::Forbidden(_) => StatusCode::FORBIDDEN,
        AppError::NotFound(_) => StatusCode::NOT_FOUND,
        AppError::Invalid { .. } | AppError::Rejected(_) => StatusCode::BAD_REQUEST,
        AppError::Conflict(_) | AppError::WrongPhase { .. } => StatusCode::CONFLICT,
        AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        // On the server, a transport error only comes from decoding a server function's
        // arguments (wrong types, missing fields): the client's mistake.
        AppError::Transport(_) => StatusCode::BAD_REQUEST,
        AppError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// An error answer, and for a 429 when to try again (`Retry-After`, seconds).
#[derive(Debug)]
pub struct ApiError(ErrorBody, Option<u64>);

impl ApiError {
    /// What the answer says.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// 400 for a body or query the extractors could not read: no field to name beyond what
    /// the message says.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::status(StatusCode::BAD_REQUEST, message)
    }

    /// An answer of `status` saying `message`, for refusals made before any handler runs.
    pub fn status(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError(
            ErrorBody {
                code: status.as_u16(),
                message: message.into(),
                details: Vec::new(),
                desired_phase: None,
                actual_phase: None,
            },
            None,
        )
    }

    /// 429 saying `message`, to be tried again after `seconds`.
    pub fn too_many(message: impl Into<String>, seconds: u64) -> Self {
        let mut error = Self::status(StatusCode::TOO_MANY_REQUESTS, message);
        error.1 = Some(seconds);
        error
    }

    pub fn body(&self) -> &ErrorBody {
        &self.0
    }
}

fn details(errors: Vec<FieldError>) -> Vec<ErrorDetail> {
    errors
        .into_iter()
        .map(|e| ErrorDetail {
            field: e.path,
            message: e.message,
        })
        .collect()
}

impl From<AppError> for ApiError {
    fn from(error: AppError) -> Self {
        let code = status_of(&error).as_u16();
        // Clients that only print `message` still learn which field was wrong.
        let message = match &error {
            AppError::Invalid { .. } => format!("the request is invalid: {error}"),
            _ => error.to_string(),
        };
        let (desired_phase, actual_phase) = match &error {
            AppError::WrongPhase {
                desired, actual, ..
            } => (Some(*desired), Some(*actual)),
            _ => (None, None),
        };
        ApiError(
            ErrorBody {
                code,
                message,
                details: details(error.field_errors()),
                desired_phase,
                actual_phase,
            },
            None,
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(self.0)).into_response();
        if let Some(seconds) = self.1 {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_errors_become_details_and_the_message_lists_them() {
        let error = ApiError::from(AppError::Rejected(vec![FieldError {
            path: "spec.image".into(),
            message: "is required".into(),
        }]));
        let body = error.body();
        assert_eq!(body.code, 400);
        assert_eq!(body.details[0].field, "spec.image");
        assert!(body.message.contains("spec.image: is required"));
    }

    #[test]
    fn a_phase_conflict_says_where_the_workload_stands() {
        let error = ApiError::from(AppError::WrongPhase {
            message: "cannot resume training \"a\": it is running".into(),
            desired: Phase::Running,
            actual: Phase::Running,
        });
        assert_eq!(error.body().code, 409);
        assert_eq!(error.body().actual_phase, Some(Phase::Running));
    }

    #[test]
    fn a_body_the_extractor_could_not_read_is_a_plain_400() {
        let error = ApiError::bad_request("the body is not valid JSON: EOF");
        assert_eq!(error.body().code, 400);
        assert_eq!(error.body().message, "the body is not valid JSON: EOF");
        assert!(error.body().details.is_empty());
    }

    #[test]
    fn undecodable_server_function_arguments_are_bad_requests() {
        assert_eq!(
            status_of(&AppError::Transport("error deserializing".into())),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status_of(&AppError::Unavailable("the database is unavailable".into())),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            status_of(&AppError::Internal),
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
