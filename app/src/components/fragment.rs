//! Part of a page, read again from the server: the browser fetches a page with the user's own
//! session, parses it without running anything in it, and puts one element of it in place of
//! the element with the same id on screen. What the server renders for a navigation is what the
//! page shows, and the browser carries no code to draw it.

use leptos::prelude::document;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{DomParser, Response, SupportedType};

/// Reads the page at `url` and puts its element `id` in place of the one on screen.
pub async fn replace_from(url: &str, id: &str) -> Result<(), JsValue> {
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
    // Signed out meanwhile, or an error page: the page has nothing to take.
    let fresh = page
        .get_element_by_id(id)
        .ok_or_else(|| format!("the page read again has no #{id}"))?;
    let shown = document()
        .get_element_by_id(id)
        .ok_or_else(|| format!("no #{id} on screen"))?;
    shown.replace_with_with_node_1(&document().import_node_with_deep(&fresh, true)?)?;
    Ok(())
}
