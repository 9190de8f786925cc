//! Going to another page from an island. Islands live outside the router (pages are rendered on
//! the server), so navigation is the browser's own: a full load of the next page.

/// Loads `href` in place of the current page. Does nothing on the server.
#[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
pub fn to(href: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let _ = window.location().set_href(href);
    }
}
