//! The server's side of the form in the browser: the posted form read back into a draft and how
//! it is shown, the button's edit made, then the region drawn again or the training submitted.

use super::body::{self, Around, FormBody, Shown};
use crate::api::{FormAnswer, form_urlencoded, submit_training};
use crate::components::form::check;
use crate::draft::Draft;
use crate::draft::op::Op;
use crate::draft::posted::{OP, PREVIEW, SERVED, SUBMIT, SUBMITTED, TOUCHED, VOLUME, path_of};
use crate::error::AppError;
use leptos::prelude::*;
use leptos::tachys::view::RenderHtml;
use std::collections::BTreeMap;
use tephra_core::model::validation::FieldError;

/// Reads the posted form: the draft with the pressed button's edit made, and how it is shown.
fn read(posted: &BTreeMap<String, String>) -> (Draft, Shown) {
    let mut draft = Draft::from_posted(posted);
    let mut shown = Shown {
        touched: posted
            .get(TOUCHED)
            .map(|names| {
                names
                    .lines()
                    .filter_map(path_of)
                    .map(|p| p.to_string())
                    .collect()
            })
            .unwrap_or_default(),
        submitted: posted.contains_key(SUBMITTED),
        preview: posted.contains_key(PREVIEW),
        volume: posted.get(VOLUME).cloned(),
    };
    match posted.get(OP).and_then(|op| Op::parse(op)) {
        Some(Op::Preview(open)) => shown.preview = open,
        Some(Op::AddVolume) => {
            if let Some(kind) = posted.get(VOLUME) {
                super::storage::add_volume(&mut draft, kind);
            }
        }
        Some(op) => op.apply(&mut draft),
        None => {}
    }
    (draft, shown)
}

/// The form posted from the page: drawn again, or submitted when its submit button asked and
/// the validator and the server take it.
pub async fn answer(posted: BTreeMap<String, String>) -> Result<FormAnswer, AppError> {
    // Nobody signed in is told so before anything is read.
    crate::backend::acting().await?;
    let (draft, mut shown) = read(&posted);
    let mut served: Vec<FieldError> = posted
        .get(SERVED)
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default();
    let mut problem = None;
    let around = Around::ask(draft.project()).await?;
    if posted.contains_key(SUBMIT) {
        shown.submitted = true;
        if check(&draft, &around.hints).is_empty() {
            match submit_training(draft.clone()).await {
                Ok(submitted) => return Ok(FormAnswer::Submitted(submitted)),
                // Who may do what, and a server that cannot answer, are the request's status.
                Err(
                    error @ (AppError::Unauthorized(_)
                    | AppError::Forbidden(_)
                    | AppError::Unavailable(_)
                    | AppError::Internal),
                ) => return Err(error),
                Err(error) => {
                    served = error.field_errors();
                    if served.is_empty() {
                        problem = Some(format!("The training was not submitted: {error}"));
                    }
                    // What the server said stands until its field is edited again.
                    shown.touched.clear();
                }
            }
        }
    }
    let body = body::body(draft, around, shown, served, problem, false).await?;
    let owner = Owner::new();
    let html = owner.with(|| view! { <FormBody body /> }.to_html());
    Ok(FormAnswer::Form(html))
}

/// The address of the form with the pressed button's edit made, for a browser without scripts.
pub fn edited(posted: &BTreeMap<String, String>) -> String {
    let (draft, shown) = read(posted);
    let draft = serde_json::to_string(&draft).unwrap_or_default();
    let mut pairs = vec![("draft", draft.as_str())];
    if shown.preview {
        pairs.push(("preview", "on"));
    }
    format!("/trainings/new?{}", form_urlencoded(&pairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draft::fields::spec;

    fn posted(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_pressed_button_edits_the_posted_draft() {
        let list = spec().key("tolerations");
        let add = Op::Add {
            list: list.clone(),
            row: serde_json::json!({"key": ""}),
        };
        let (draft, shown) = read(&posted(&[
            ("t:name", "job"),
            (OP, &add.code()),
            (TOUCHED, "draft[t:name]\ndraft[t:spec.image]\nnot a field"),
        ]));
        assert_eq!(draft.rows(&list), 1);
        assert_eq!(draft.name(), "job");
        let mut touched: Vec<_> = shown.touched.into_iter().collect();
        touched.sort();
        assert_eq!(touched, ["name", "spec.image"]);
        assert!(!shown.submitted && !shown.preview);
    }

    #[test]
    fn a_volume_is_added_from_the_kind_chosen_and_the_preview_follows_its_button() {
        let list = spec().key("storage").key("nfs");
        let (draft, _) = read(&posted(&[(OP, "volume"), (VOLUME, "nfs")]));
        assert_eq!(draft.rows(&list), 1);
        assert_eq!(draft.text(&list.index(0).key("server")), "");
        // Only the kinds the chooser offers.
        let (draft, _) = read(&posted(&[(OP, "volume"), (VOLUME, "tolerations")]));
        assert_eq!(draft, Draft::from_posted(&BTreeMap::new()));
        let (_, shown) = read(&posted(&[(OP, "preview on"), (SUBMITTED, "on")]));
        assert!(shown.preview && shown.submitted);
        let (_, shown) = read(&posted(&[(OP, "preview off"), (PREVIEW, "on")]));
        assert!(!shown.preview);
    }

    #[test]
    fn a_gpu_style_chosen_drops_the_fields_of_the_one_it_replaces() {
        use crate::draft::posted::{GPU_MODE, input_name};
        use crate::draft::{GpuMode, Kind};
        let compute = spec().key("compute");
        let portion = input_name(Kind::Number, &compute.key("gpuPortionRequest"));
        // The portion's field was still on screen when whole GPUs were chosen.
        let (draft, _) = read(&posted(&[(&portion, "0.5"), (GPU_MODE, "devices")]));
        assert_eq!(draft.gpu_mode(), GpuMode::Devices);
        assert_eq!(draft.get(&compute.key("gpuPortionRequest")), None);
    }

    #[test]
    fn without_scripts_the_form_comes_back_with_the_edit_made() {
        let to = edited(&posted(&[("t:name", "job"), (OP, "preview on")]));
        assert!(to.starts_with("/trainings/new?draft="), "{to}");
        assert!(to.ends_with("&preview=on"), "{to}");
    }
}
