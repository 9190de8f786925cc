//! The error type that crosses the wire between server functions and the browser.
//!
//! Variants carry only what a user may see: internal details are logged on the server and never
//! serialized. The server's services return it too, and its HTTP layer maps it to status codes in
//! one place (`server::http::api::error`).

use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};
use tephra_core::model::phase::Phase;
use tephra_core::model::validation::FieldError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    /// Nobody is signed in, or the credentials are not valid; the text says which (missing,
    /// expired, revoked...), never which part of a secret was wrong.
    #[error("{0}")]
    Unauthorized(String),
    #[error("you are not allowed to do that: {0}")]
    Forbidden(String),
    /// The text names what was asked for, e.g. `no training with the id "x"`.
    #[error("{0}")]
    NotFound(String),
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    /// A request with one or more invalid fields, each named by its JSON path.
    #[error("the request is invalid: {}", summary(.0))]
    Rejected(Vec<FieldError>),
    #[error("{0}")]
    Conflict(String),
    /// An action the workload's phase does not allow (or another action won the race); says
    /// where the workload stands now.
    #[error("{message}")]
    WrongPhase {
        message: String,
        desired: Phase,
        actual: Phase,
    },
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
    /// One offending field, named by its JSON path.
    pub fn field(path: &str, message: impl Into<String>) -> Self {
        AppError::Invalid {
            field: path.to_owned(),
            message: message.into(),
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
    // Decoded from text, as the answers are (`crate::api::codec`).
    type Encoder = crate::api::codec::JsonText;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        AppError::Transport(value.to_string())
    }
}
