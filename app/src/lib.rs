//! Tephra's user interface and the types the browser and the server share.
//!
//! This crate compiles twice: natively with `ssr` (linked into the server, which renders pages and
//! answers server functions) and to WebAssembly with `hydrate` (the browser bundle). It holds no SQL
//! and no Kubernetes code: server functions reach the backend through the [`backend::Backend`] port.

#![recursion_limit = "256"]

pub mod api;
pub mod app;
#[cfg(feature = "ssr")]
pub mod backend;
pub mod components;
pub mod csp;
pub mod draft;
pub mod error;
pub mod pages;

/// The browser entry point. Pages are rendered on the server; only their islands (the live
/// parts: the trainings table, a training's status, the form) are WebAssembly. Leptos's island
/// script calls this, then hydrates every island on the page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    // A panic aborts the whole WebAssembly instance; a lazy island whose chunk fails to load
    // panics too (wasm-split's loader). The server-rendered page stays; say that it stopped.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        components::hydrated::failed();
    }));
    components::hydrated::expect_islands();
    leptos::mount::hydrate_islands();
}
