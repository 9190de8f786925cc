//! Tephra's core: what a training request is and how it is checked ([`model`]), and what it
//! becomes in the cluster and who may do what ([`domain`]). Pure: no I/O, no clock, no
//! randomness, no leptos, no HTTP, no SQL and no Kubernetes client, so `cargo test -p
//! tephra-core` runs the rules without building the rest.
//!
//! The browser build (through `app`) takes [`model`] alone (`default-features = false`); the
//! server takes both.

#[cfg(feature = "domain")]
pub mod domain;
pub mod model;
