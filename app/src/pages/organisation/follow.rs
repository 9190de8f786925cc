//! The organisation page in the browser: its forms ([`super::form::ServerForm`]) are posted in
//! place, the answer is shown in the form's slot, and after a change the tables and the choices
//! that follow them are read again from the server as HTML.

/// Follows the page's forms, from the page's one island ([`super::policy::PolicyEditor`]).
pub(super) fn follow() {
    #[cfg(feature = "hydrate")]
    browser::follow();
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::super::form::{DONE, REFUSAL, REFUSAL_LIST};
    use super::super::members::{MEMBER_SCOPE_ID, MEMBERS_ID};
    use super::super::policy::POLICY_SCOPE_ID;
    use super::super::units::{DEPARTMENTS_ID, PROJECT_DEPARTMENT_ID, PROJECTS_ID};
    use crate::components::fragment::Rereader;
    use crate::error::AppError;
    use leptos::prelude::*;
    use std::time::Duration;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, FormData, HtmlFormElement, HtmlSelectElement};

    /// The choices that follow what is stored.
    const CHOICES: [&str; 3] = [PROJECT_DEPARTMENT_ID, MEMBER_SCOPE_ID, POLICY_SCOPE_ID];
    /// What a save can change on the page.
    const PARTS: &[&str] = &[
        DEPARTMENTS_ID,
        PROJECTS_ID,
        MEMBERS_ID,
        CHOICES[0],
        CHOICES[1],
        CHOICES[2],
    ];

    pub(super) fn follow() {
        let chosen = StoredValue::new_local([const { String::new() }; 3]);
        let parts = Rereader::new(PARTS, Duration::ZERO, move || {
            chosen.with_value(keep_choices);
        });
        // On the window, as the tables' own forms are put in place again with every read.
        let submits = window_event_listener(leptos::ev::submit, move |e| {
            let Some(form) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlFormElement>().ok())
            else {
                return;
            };
            let (Some(slot), Some(done)) = (
                form.get_attribute("data-outcome"),
                form.get_attribute("data-done"),
            ) else {
                return;
            };
            e.prevent_default();
            let parts = parts.clone();
            leptos::task::spawn_local(async move {
                let button = form.query_selector("button[type=submit]").ok().flatten();
                set_busy(button.as_ref(), true);
                let answer = post(&form).await;
                set_busy(button.as_ref(), false);
                if answer.is_ok() {
                    chosen.set_value(
                        CHOICES.map(|id| select(id).map(|s| s.value()).unwrap_or_default()),
                    );
                    parts.changed();
                }
                show(&slot, &done, answer);
            });
        });
        on_cleanup(move || submits.remove());
    }

    fn select(id: &str) -> Option<HtmlSelectElement> {
        document().get_element_by_id(id)?.dyn_into().ok()
    }

    /// The choices read again keep what the user chose in them while they still offer it; one
    /// that no longer does shows its first and tells its listeners (the policy editor).
    fn keep_choices(chosen: &[String; 3]) {
        for (id, value) in CHOICES.iter().zip(chosen) {
            let Some(select) = select(id) else { continue };
            select.set_value(value);
            if select.value() != *value {
                // The first choice, as a page loaded afresh would show.
                select.set_selected_index(0);
                let init = web_sys::EventInit::new();
                init.set_bubbles(true);
                if let Ok(change) = web_sys::Event::new_with_event_init_dict("change", &init) {
                    let _ = select.dispatch_event(&change);
                }
            }
        }
    }

    /// A second press while the first is under way would post the form twice.
    fn set_busy(button: Option<&Element>, busy: bool) {
        if let Some(button) = button {
            let _ = if busy {
                button.set_attribute("disabled", "")
            } else {
                button.remove_attribute("disabled")
            };
        }
    }

    /// Posts the form as the browser would, asking for the server function's own answer
    /// rather than a redirect to the page.
    async fn post(form: &HtmlFormElement) -> Result<(), AppError> {
        let fields =
            FormData::new_with_form(form).map_err(|e| AppError::Transport(format!("{e:?}")))?;
        crate::components::post::post(&form.action(), fields)
            .await
            .map(drop)
    }

    /// Puts the answer in the slot `id`: `done`, or the refusal with each field it names.
    fn show(id: &str, done: &str, answer: Result<(), AppError>) {
        let Some(slot) = document().get_element_by_id(id) else {
            return;
        };
        slot.set_text_content(None);
        let shown = match answer {
            Ok(()) => element("p", Some(DONE), Some(done)).inspect(|p| {
                let _ = p.set_attribute("role", "status");
            }),
            Err(error) => refusal(&error),
        };
        if let Some(shown) = shown {
            let _ = slot.append_child(&shown);
        }
    }

    fn refusal(error: &AppError) -> Option<Element> {
        let alert = element("div", Some(REFUSAL), None)?;
        alert.set_attribute("role", "alert").ok()?;
        alert.set_attribute("data-testid", "refusal").ok()?;
        let fields = error.field_errors();
        if fields.is_empty() {
            let text = element("p", None, Some(&error.to_string()))?;
            alert.append_child(&text).ok()?;
            return Some(alert);
        }
        let list = element("ul", Some(REFUSAL_LIST), None)?;
        for field in fields {
            let item = element("li", None, None)?;
            let path = element("code", None, Some(&field.path))?;
            item.append_child(&path).ok()?;
            item.append_with_str_1(&format!(": {}", field.message))
                .ok()?;
            list.append_child(&item).ok()?;
        }
        alert.append_child(&list).ok()?;
        Some(alert)
    }

    /// An element with text set as text, never parsed as markup.
    fn element(tag: &str, class: Option<&str>, text: Option<&str>) -> Option<Element> {
        let element = document().create_element(tag).ok()?;
        if let Some(class) = class {
            element.set_class_name(class);
        }
        element.set_text_content(text);
        Some(element)
    }
}
