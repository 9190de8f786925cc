//! The error type that crosses the wire between server functions and the browser.
//!
//! Variants carry only what a user may see: internal details are logged on the server and never
//! serialized (the server maps its own errors into these in `server::backend`).

use crate::model::validation::FieldError;
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    /// Nobody is signed in, or the credentials are not valid; the text says which (missing,
    /// expired, revoked...), never which part of a secret was wrong.
    #[error("{0}")]
    Unauthorized(String),
    #[error("you are not allowed to do that: {0}")]
    Forbidden(String),
    #[error("{0} was not found")]
    NotFound(String),
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    /// A request with one or more invalid fields, each named by its JSON path.
    #[error("the request is invalid: {}", summary(.0))]
    Rejected(Vec<FieldError>),
    #[error("{0}")]
    Conflict(String),
    /// Something the server depends on is down; the text says what ("the database is
    /// unavailable: …"), so it carries no prefix of its own.
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error; the server log has the details")]
    Internal,
    /// The request never reached the handler (network, encoding): reported by the transport.
    #[error("request failed: {0}")]
    Transport(String),
}

impl AppError {
    /// The HTTP status a REST handler answers with for this error.
    pub fn status_code(&self) -> u16 {
        match self {
            AppError::Unauthorized(_) => 401,
            AppError::Forbidden(_) => 403,
            AppError::NotFound(_) => 404,
            AppError::Invalid { .. } | AppError::Rejected(_) => 400,
            AppError::Conflict(_) => 409,
            AppError::Unavailable(_) => 503,
            AppError::Internal | AppError::Transport(_) => 500,
        }
    }
}

fn summary(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl AppError {
    /// The field errors this error carries, if it is about fields.
    pub fn field_errors(&self) -> Vec<FieldError> {
        match self {
            AppError::Invalid { field, message } => vec![FieldError {
                path: field.clone(),
                message: message.clone(),
            }],
            AppError::Rejected(errors) => errors.clone(),
            _ => Vec::new(),
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        AppError::Transport(value.to_string())
    }
}
