//! Server functions of the organisation page's members: access rules (a role for a user, a
//! group or an application, on a project or the system), added and removed.

use super::codec::JsonAnswer;
use crate::error::AppError;
use leptos::prelude::*;
use tephra_core::model::access::AccessRuleView;

/// Gives `subject_id` (of `subject_type`: user, group or app) the role `role_id` on `scope`:
/// `system`, or a project's name.
#[server(prefix = "/api/fn", endpoint = "add_member", output = JsonAnswer)]
pub async fn add_member(
    subject_id: String,
    subject_type: String,
    role_id: i64,
    scope: String,
) -> Result<AccessRuleView, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    let (scope_type, scope_id) = match scope.as_str() {
        "system" => ("system".to_owned(), String::new()),
        project => ("project".to_owned(), project.to_owned()),
    };
    let rule = tephra_core::model::access::NewAccessRule {
        subject_id: subject_id.trim().to_owned(),
        subject_type,
        role_id,
        scope_id,
        scope_type,
        cluster_id: None,
    };
    backend.add_member(&principal, &rule).await
}

#[server(prefix = "/api/fn", endpoint = "remove_member", output = JsonAnswer)]
pub async fn remove_member(id: i64) -> Result<(), AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.remove_member(&principal, id).await
}
