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
pub mod error;
pub mod model;
pub mod pages;

/// The browser entry point. Pages are rendered on the server; only their islands (the live
/// parts: the trainings table, a training's status, the form) are WebAssembly. Leptos's island
/// script calls this, then hydrates every island on the page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    components::hydrated::expect_islands();
    leptos::mount::hydrate_islands();
}
