//! The new-training form's own server functions. The form is drawn by the server: the page posts
//! it as it stands, URL-encoded with every field named `draft[...]` (see `draft::posted`), and
//! gets it drawn again, or submitted.

use super::Submitted;
use super::codec::JsonAnswer;
use crate::error::AppError;
use leptos::prelude::*;
use std::collections::BTreeMap;

/// What the page gets for the form it posted.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum FormAnswer {
    /// The form's region drawn again (markup made by the server, every text in it escaped).
    Form(String),
    /// The training the form submitted, to go to.
    Submitted(Submitted),
}

/// The form as it stands, with the button pressed if any: drawn again with the edit made, or
/// submitted when the submit button asked and it is valid.
#[server(prefix = "/api/fn", endpoint = "training_form", output = JsonAnswer)]
pub async fn training_form(draft: BTreeMap<String, String>) -> Result<FormAnswer, AppError> {
    crate::pages::new_training::answer::answer(draft).await
}

/// A button of the form pressed without JavaScript: back to the form, with the edit made.
#[server(prefix = "/api/fn", endpoint = "edit_training_form", output = JsonAnswer)]
pub async fn edit_training_form(draft: BTreeMap<String, String>) -> Result<(), AppError> {
    crate::backend::acting().await?;
    leptos_axum::redirect(&crate::pages::new_training::answer::edited(&draft));
    Ok(())
}

/// The form submitted without JavaScript. Always answers with a redirect: to the new training,
/// or back to the form with what was typed and the error.
#[server(prefix = "/api/fn", endpoint = "submit_training_form", output = JsonAnswer)]
pub async fn submit_training_form(draft: BTreeMap<String, String>) -> Result<(), AppError> {
    use crate::draft::Draft;
    let (backend, principal) = crate::backend::acting().await?;
    let draft = Draft::from_posted(&draft);
    match backend
        .submit_workload(&principal, draft.kind(), draft.to_request())
        .await
    {
        Ok(workload) => leptos_axum::redirect(&format!("/trainings/{}", workload.workload_id)),
        Err(error) => {
            let draft = serde_json::to_string(&draft).map_err(|_| AppError::Internal)?;
            let error = serde_json::to_string(&error).map_err(|_| AppError::Internal)?;
            let query = form_urlencoded(&[("draft", &draft), ("error", &error)]);
            leptos_axum::redirect(&format!("/trainings/new?{query}"));
        }
    }
    Ok(())
}

#[cfg(feature = "ssr")]
pub(crate) fn form_urlencoded(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", tephra_core::model::url::encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}
