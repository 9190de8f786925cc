//! When a page is interactive: `data-hydrated` on `<body>` once every island on it has been
//! hydrated, the lazy ones included (their chunk has to arrive first), and `data-hydrated-at`
//! with the time, in milliseconds since navigation started. The browser tests wait for the
//! attribute; the benchmark reads the time as the time to interactive. When the browser's code
//! fails instead, `data-hydration-failed` and a visible notice say so ([`failed`]).

#[cfg(feature = "hydrate")]
use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(feature = "hydrate")]
static EXPECTED: AtomicUsize = AtomicUsize::new(0);
#[cfg(feature = "hydrate")]
static HYDRATED: AtomicUsize = AtomicUsize::new(0);

/// Counts the page's islands; runs in `hydrate()`, before Leptos's island script hydrates them.
#[cfg(feature = "hydrate")]
pub fn expect_islands() {
    let islands = leptos::prelude::document()
        .query_selector_all("leptos-island")
        .map_or(0, |list| list.length() as usize);
    EXPECTED.store(islands, Ordering::SeqCst);
    if islands == 0 {
        mark();
    }
}

/// The first line of every island. Its body runs just before the island is hydrated (which is
/// synchronous), so a zero timeout runs once it is interactive.
pub fn island_ready() {
    #[cfg(feature = "hydrate")]
    leptos::prelude::set_timeout(
        || {
            if HYDRATED.fetch_add(1, Ordering::SeqCst) + 1 == EXPECTED.load(Ordering::SeqCst) {
                mark();
            }
        },
        std::time::Duration::ZERO,
    );
}

#[cfg(feature = "hydrate")]
fn mark() {
    let Some(body) = leptos::prelude::document().body() else {
        return;
    };
    let _ = body.set_attribute("data-hydrated", "true");
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        // Tenths of a millisecond, formatted as integers: float formatting would add its own
        // code to every page's bundle.
        let tenths = (performance.now() * 10.0).round() as u64;
        let _ = body.set_attribute(
            "data-hydrated-at",
            &format!("{}.{}", tenths / 10, tenths % 10),
        );
    }
}

/// Runs from the panic hook: the instance is about to abort, so nothing on the page will hydrate
/// or update any more. Marks `<body>` and shows the layout's notice; must not panic itself.
#[cfg(feature = "hydrate")]
pub fn failed() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(body) = document.body() {
        let _ = body.set_attribute("data-hydration-failed", "true");
    }
    if let Some(notice) = document.get_element_by_id("live-failed") {
        let _ = notice.remove_attribute("hidden");
    }
}
