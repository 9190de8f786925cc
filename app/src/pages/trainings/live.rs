//! What keeps the list current in the browser. The server renders the whole list (rows, sorting,
//! pages); this island follows the event stream and changes a row's phase, message and pod
//! count in place. When a training comes or goes, it reads the page again and puts the
//! server's fresh list in place of the old one, so the browser never renders a row itself and
//! the list page carries no view code for its table (the budget in
//! `tests/browser/page_weight.rs`). It also turns each row's time into its age and keeps it
//! current.

use leptos::prelude::*;

/// The element holding the list (table and pages, or the empty state), by id.
pub(super) const LIST_ID: &str = "trainings-live";

/// How long changes the page cannot apply in place (a new training, one that is gone) gather
/// before the list is read again: a busy cluster must not make it reload on every event.
#[cfg(feature = "hydrate")]
const RELOAD_AFTER: std::time::Duration = std::time::Duration::from_secs(1);
/// How often the ages shown are brought up to date.
#[cfg(feature = "hydrate")]
const AGE_EVERY: std::time::Duration = std::time::Duration::from_secs(15);

/// Follows the stream of the project the list shows (`data-project-id` on the list), for as
/// long as the page is shown. Renders nothing.
#[island]
pub(super) fn LiveList() -> impl IntoView {
    crate::components::hydrated::island_ready();
    #[cfg(feature = "hydrate")]
    browser::follow();
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::{AGE_EVERY, LIST_ID, RELOAD_AFTER};
    use crate::components::fragment::Rereader;
    use crate::components::live::{LiveMessage, subscribe};
    use crate::components::phase_badge::badge_class;
    use crate::components::relative_time::show_ages;
    use leptos::prelude::{document, set_interval};
    use tephra_core::model::url::query;
    use tephra_core::model::workload::RowChange;
    use wasm_bindgen::JsCast;
    use web_sys::Element;

    const LIST: &[&str] = &[LIST_ID];

    pub fn follow() {
        let Some(list) = document().get_element_by_id(LIST_ID) else {
            return;
        };
        let project = list.get_attribute("data-project-id");
        let url = format!(
            "/api/v1/workloads/events{}",
            query(&[("projectId", project.as_deref())])
        );
        let ages = || show_ages(LIST_ID);
        ages();
        set_interval(ages, AGE_EVERY);
        let list = Rereader::new(LIST, RELOAD_AFTER, ages);
        // Every connection opens with a resync, the first one too: the rows were read when the
        // page was rendered, and a change broadcast before this stream connected reaches no one.
        subscribe(url, move |message: LiveMessage<RowChange>| match message {
            LiveMessage::Workload(e) => match row_of(&e.workload_id) {
                Some(row) if !e.deleted => {
                    list.noted();
                    patch(&row, &e);
                }
                _ => list.changed(),
            },
            LiveMessage::Resync => list.changed(),
        });
    }

    /// The row of workload `id` on screen. Compared by attribute, never written into a selector.
    fn row_of(id: &str) -> Option<Element> {
        let rows = document()
            .query_selector_all(&format!("#{LIST_ID} tr[data-workload-id]"))
            .ok()?;
        (0..rows.length())
            .filter_map(|i| rows.item(i)?.dyn_into::<Element>().ok())
            .find(|row| row.get_attribute("data-workload-id").as_deref() == Some(id))
    }

    /// Shows `e` in `row` as the server renders it (`table.rs`, `TrainingRow`).
    fn patch(row: &Element, e: &RowChange) {
        let phase = e.actual_phase;
        let message = e.phase_message.as_deref().unwrap_or_default();
        let (running, pods) = e.pods();
        let _ = row.set_attribute("data-phase", phase.as_str());
        let part = |selector: &str| row.query_selector(selector).ok().flatten();
        if let Some(badge) = part("[data-live=badge]") {
            badge.set_class_name(&badge_class(phase));
            badge.set_text_content(Some(phase.as_str()));
        }
        if let Some(cell) = part("[data-testid=phase]") {
            let _ = cell.set_attribute("title", message);
        }
        if let Some(why) = part("[data-testid=why]") {
            why.set_text_content(Some(message));
        }
        if let Some(tasks) = part("[data-testid=tasks]") {
            tasks.set_text_content(Some(&format!("{running}/{pods}")));
        }
    }
}
