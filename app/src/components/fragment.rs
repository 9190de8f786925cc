//! Parts of a page, read again from the server: the browser fetches the page with the user's
//! own session, parses it without running anything in it, and puts each named element of it in
//! place of the element with the same id on screen. What the server renders for a navigation is
//! what the page shows, and the browser carries no code to draw it.

use leptos::prelude::{document, set_timeout};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{DomParser, Response, SupportedType};

/// Most reads of the page in a row while changes keep arriving during each read.
const READS_WHILE_CHANGING: usize = 3;

/// Reads the page at `url` and puts each of its elements `ids` in place of the one on screen.
pub async fn replace_from(url: &str, ids: &[&str]) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let response: Response = JsFuture::from(window.fetch_with_str(url))
        .await?
        .dyn_into()?;
    if !response.ok() {
        return Err(format!("the page answered {}", response.status()).into());
    }
    let text = JsFuture::from(response.text()?)
        .await?
        .as_string()
        .unwrap_or_default();
    let page = DomParser::new()?.parse_from_string(&text, SupportedType::TextHtml)?;
    for id in ids {
        // Signed out meanwhile, or an error page: the page has nothing to take.
        let fresh = page
            .get_element_by_id(id)
            .ok_or_else(|| format!("the page read again has no #{id}"))?;
        let shown = document()
            .get_element_by_id(id)
            .ok_or_else(|| format!("no #{id} on screen"))?;
        shown.replace_with_with_node_1(&document().import_node_with_deep(&fresh, true)?)?;
    }
    Ok(())
}

/// Reads the page's own URL again for some of its parts when told of changes: `after` the first
/// change, so a burst of them costs one read, and again while changes arrive during a read (a
/// change that arrives during a read may be older than it, or newer).
#[derive(Clone)]
pub struct Rereader {
    ids: &'static [&'static str],
    after: Duration,
    changes: Rc<Cell<u64>>,
    pending: Rc<Cell<bool>>,
    /// Run after each read that put the parts in place.
    then: Rc<dyn Fn()>,
}

impl Rereader {
    pub fn new(ids: &'static [&'static str], after: Duration, then: impl Fn() + 'static) -> Self {
        Self {
            ids,
            after,
            changes: Rc::default(),
            pending: Rc::default(),
            then: Rc::new(then),
        }
    }

    /// A change the page showed in place: it needs no read, but one under way is repeated.
    pub fn noted(&self) {
        self.changes.set(self.changes.get() + 1);
    }

    /// A change only a read shows.
    pub fn changed(&self) {
        self.noted();
        if self.pending.replace(true) {
            return;
        }
        let me = self.clone();
        set_timeout(
            move || {
                me.pending.set(false);
                leptos::task::spawn_local(me.read_again());
            },
            self.after,
        );
    }

    async fn read_again(self) {
        for _ in 0..READS_WHILE_CHANGING {
            let before = self.changes.get();
            let read = async {
                let href = web_sys::window().ok_or("no window")?.location().href()?;
                replace_from(&href, self.ids).await
            };
            if let Err(error) = read.await {
                leptos::logging::warn!("cannot read the page again: {error:?}");
                return;
            }
            (self.then)();
            if self.changes.get() == before {
                return;
            }
        }
    }
}
