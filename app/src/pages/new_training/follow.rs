//! The form in the browser. It keeps nothing of the request: the form on screen is the draft.
//! After a pause in typing, a change of a choice or a press of one of the form's buttons, it
//! posts the form as it stands (with the fields edited so far) and puts the server's drawing of
//! it in place ([`super::answer`]).
//!
//! While the user types, only what typing changes is put in place (messages, hints, the summary,
//! "will it fit now?", the preview: every `data-live` element), so nothing being typed is
//! touched. A choice or a button can change the form's shape; then the whole region is put in
//! place, unless more was typed meanwhile (the answer to that draws it), and the focus and the
//! caret stay where they were.

use leptos::prelude::*;

/// Follows the form drawn before it on the page: the page's only island.
#[island(lazy)]
pub fn FormFollow() -> impl IntoView {
    crate::components::hydrated::island_ready();
    #[cfg(feature = "hydrate")]
    browser::follow();
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::super::body::{FORM_ID, REGION_ID, SUMMARY_ID};
    use crate::api::{FormAnswer, TrainingForm};
    use crate::components::toast::use_toasts;
    use crate::draft::posted::{OP, SUBMIT, TOUCHED};
    use crate::error::AppError;
    use leptos::prelude::*;
    use leptos::server_fn::ServerFn;
    use std::cell::{Cell, RefCell};
    use std::collections::BTreeSet;
    use std::rc::Rc;
    use std::time::Duration;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{
        DomParser, Element, FormData, HtmlElement, HtmlFormElement, HtmlInputElement, SupportedType,
    };

    /// How long typing pauses before the form is posted.
    const PAUSE: Duration = Duration::from_millis(150);

    /// What of the server's drawing is put in place.
    #[derive(Clone, Copy, PartialEq)]
    enum Put {
        /// What typing changes.
        Typed,
        /// The whole region.
        Whole,
    }

    #[derive(Default)]
    struct State {
        /// The posted names of the fields edited so far.
        touched: RefCell<BTreeSet<String>>,
        /// Forms posted so far: only the answer to the latest is put in place.
        asked: Cell<u64>,
        /// Keystrokes so far.
        typed: Cell<u64>,
        /// Pauses not yet over and forms not yet answered.
        busy: Cell<u32>,
    }

    impl State {
        /// Counts work under way; while there is some, `<body>` says so (`data-form-busy`), so a
        /// test acts on the form only once it is drawn as it stands.
        fn working(&self, more: bool) {
            let busy = if more {
                self.busy.get() + 1
            } else {
                self.busy.get().saturating_sub(1)
            };
            self.busy.set(busy);
            if let Some(body) = document().body() {
                let _ = match busy {
                    0 => body.remove_attribute("data-form-busy"),
                    _ => body.set_attribute("data-form-busy", ""),
                };
            }
        }
    }

    pub(super) fn follow() {
        let state = Rc::new(State::default());
        let typing = state.clone();
        let inputs = window_event_listener(leptos::ev::input, move |e| {
            let Some(field) = text_field(e.target()) else {
                return;
            };
            typing.touched.borrow_mut().insert(field.name());
            let mine = typing.typed.get() + 1;
            typing.typed.set(mine);
            typing.working(true);
            let state = typing.clone();
            set_timeout(
                move || {
                    if state.typed.get() == mine {
                        leptos::task::spawn_local(ask(state, None, Put::Typed, false));
                    } else {
                        state.working(false);
                    }
                },
                PAUSE,
            );
        });
        let choosing = state.clone();
        let changes = window_event_listener(leptos::ev::change, move |e| {
            let Some(field) = in_form(e.target()) else {
                return;
            };
            // Text is posted as it is typed; a quiet choice waits for a button.
            if text_field(e.target()).is_some() || field.has_attribute("data-quiet") {
                return;
            }
            if let Some(name) = field.get_attribute("name") {
                choosing.touched.borrow_mut().insert(name);
            }
            let checked = field
                .dyn_ref::<HtmlInputElement>()
                .is_some_and(HtmlInputElement::checked);
            let op = field
                .get_attribute("data-op")
                .map(|op| format!("{op} {}", if checked { "on" } else { "off" }));
            choosing.working(true);
            leptos::task::spawn_local(ask(choosing.clone(), op, Put::Whole, false));
        });
        let submits = window_event_listener(leptos::ev::submit, move |e| {
            let is_form = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .is_some_and(|t| t.id() == FORM_ID);
            if !is_form {
                return;
            }
            e.prevent_default();
            let op_name = format!("draft[{OP}]");
            let op = e
                .submitter()
                .filter(|b| b.get_attribute("name").as_deref() == Some(op_name.as_str()))
                .and_then(|b| b.get_attribute("value"));
            let submit = op.is_none();
            if submit && let Some(button) = e.submitter() {
                // A second press while the first is under way would submit twice.
                let _ = button.set_attribute("disabled", "");
                button.set_text_content(Some("Submitting…"));
            }
            state.working(true);
            leptos::task::spawn_local(ask(state.clone(), op, Put::Whole, submit));
        });
        on_cleanup(move || {
            inputs.remove();
            changes.remove();
            submits.remove();
        });
    }

    /// The element an event happened on, if it is a field of the form.
    fn in_form(target: Option<web_sys::EventTarget>) -> Option<Element> {
        let field = target?.dyn_into::<Element>().ok()?;
        field.closest(&format!("#{FORM_ID}")).ok()??;
        Some(field)
    }

    /// The field, if it is a text input of the form.
    fn text_field(target: Option<web_sys::EventTarget>) -> Option<HtmlInputElement> {
        let field = in_form(target)?.dyn_into::<HtmlInputElement>().ok()?;
        (field.type_() == "text").then_some(field)
    }

    /// Posts the form and puts the answer in place, or goes to the training it submitted; the
    /// caller has counted it as work under way.
    async fn ask(state: Rc<State>, op: Option<String>, put: Put, submit: bool) {
        answer(&state, op, put, submit).await;
        state.working(false);
    }

    async fn answer(state: &State, op: Option<String>, put: Put, submit: bool) {
        let mine = state.asked.get() + 1;
        state.asked.set(mine);
        let typed = state.typed.get();
        let answer = post(state, op, submit).await;
        if state.asked.get() != mine {
            // A newer answer is on its way.
            return;
        }
        match answer {
            Ok(FormAnswer::Submitted(training)) => {
                use_toasts().success_on_next_page(&format!("submitted {}", training.name));
                crate::components::navigate::to(&format!("/trainings/{}", training.workload_id));
            }
            Ok(FormAnswer::Form(html)) => {
                let typed_since = state.typed.get() != typed;
                if let Err(error) = put_in_place(&html, put, typed_since, submit) {
                    leptos::logging::warn!("cannot show the form: {error:?}");
                }
            }
            Err(error) => {
                use_toasts().error(format!("the form could not be checked: {error}"));
                if let Some(button) = document().get_element_by_id("training-submit") {
                    let _ = button.remove_attribute("disabled");
                    button.set_text_content(Some("Submit training"));
                }
            }
        }
    }

    async fn post(state: &State, op: Option<String>, submit: bool) -> Result<FormAnswer, AppError> {
        let js = |e: JsValue| AppError::Transport(format!("{e:?}"));
        let form: HtmlFormElement = document()
            .get_element_by_id(FORM_ID)
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| AppError::Transport("no form on the page".to_owned()))?;
        let fields = FormData::new_with_form(&form).map_err(js)?;
        let touched = state.touched.borrow().iter().cloned().collect::<Vec<_>>();
        let mut extra = vec![(TOUCHED, touched.join("\n"))];
        extra.extend(op.map(|op| (OP, op)));
        if submit {
            extra.push((SUBMIT, "on".to_owned()));
        }
        for (name, value) in extra {
            fields
                .append_with_str(&format!("draft[{name}]"), &value)
                .map_err(js)?;
        }
        let text = crate::components::post::post(TrainingForm::PATH, fields).await?;
        serde_json::from_str(&text).map_err(|e| AppError::Transport(e.to_string()))
    }

    /// Every field and button of the region, in order: when two drawings have the same, only
    /// what they say differs. Hidden inputs carry state, not shape.
    fn shape(region: &Element) -> String {
        let Ok(all) = region.query_selector_all("input:not([type=hidden]), select, button") else {
            return String::new();
        };
        let mut shape = String::new();
        for i in 0..all.length() {
            if let Some(e) = all.get(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let value = match e.tag_name().as_str() {
                    "BUTTON" => e.get_attribute("value"),
                    _ => None,
                };
                shape.push_str(&format!(
                    "{} {} {:?} {:?}\n",
                    e.tag_name(),
                    e.id(),
                    e.get_attribute("name"),
                    value
                ));
            }
        }
        shape
    }

    fn put_in_place(html: &str, put: Put, typed_since: bool, submit: bool) -> Result<(), JsValue> {
        let drawn = DomParser::new()?.parse_from_string(html, SupportedType::TextHtml)?;
        let fresh = drawn
            .get_element_by_id(REGION_ID)
            .ok_or("the answer has no form")?;
        let shown = document()
            .get_element_by_id(REGION_ID)
            .ok_or("no form on screen")?;
        if put == Put::Typed && shape(&fresh) == shape(&shown) {
            return put_live(&fresh);
        }
        if typed_since {
            // The answer to what was typed meanwhile draws it.
            return Ok(());
        }
        let focus = document().active_element();
        let caret = focus
            .as_ref()
            .and_then(|f| f.dyn_ref::<HtmlInputElement>())
            .and_then(|i| Some((i.selection_start().ok()??, i.selection_end().ok()??)));
        shown.replace_with_with_node_1(&document().import_node_with_deep(&fresh, true)?)?;
        if let Some(id) = focus.map(|f| f.id()).filter(|id| !id.is_empty())
            && let Some(again) = document().get_element_by_id(&id)
        {
            if let Some(element) = again.dyn_ref::<HtmlElement>() {
                element.focus()?;
            }
            if let (Some(input), Some((start, end))) = (again.dyn_ref::<HtmlInputElement>(), caret)
            {
                let _ = input.set_selection_range(start, end);
            }
        }
        if submit
            && let Some(summary) = document().get_element_by_id(SUMMARY_ID)
            && summary.class_name() != "hidden"
            && let Ok(summary) = summary.dyn_into::<HtmlElement>()
        {
            summary.focus()?;
        }
        Ok(())
    }

    /// Puts in place what typing changes, and each field's `aria-invalid`; never a field's value.
    /// A live part keeps its element and takes the new content and class, and only when they
    /// changed: a screen reader announces a live region that changes, not one put in its place.
    fn put_live(fresh: &Element) -> Result<(), JsValue> {
        let live = fresh.query_selector_all("[data-live]")?;
        for i in 0..live.length() {
            let Some(part) = live.get(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            if let Some(old) = document().get_element_by_id(&part.id()) {
                if old.inner_html() != part.inner_html() {
                    old.set_inner_html(&part.inner_html());
                }
                if old.class_name() != part.class_name() {
                    old.set_class_name(&part.class_name());
                }
            }
        }
        let fields = fresh.query_selector_all("input[aria-invalid]")?;
        for i in 0..fields.length() {
            let Some(field) = fields.get(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            if let (Some(old), Some(invalid)) = (
                document().get_element_by_id(&field.id()),
                field.get_attribute("aria-invalid"),
            ) {
                old.set_attribute("aria-invalid", &invalid)?;
            }
        }
        Ok(())
    }
}
