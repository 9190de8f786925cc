//! Reusable pieces of the pages.

pub mod error_panel;
pub mod form;
#[cfg(feature = "hydrate")]
pub mod fragment;
pub mod hydrated;
pub mod layout;
pub mod live;
pub mod loaded;
pub mod log_stream;
pub mod navigate;
pub mod phase_badge;
#[cfg(feature = "hydrate")]
pub mod post;
pub mod relative_time;
pub mod style;
pub mod table;
pub mod toast;
pub mod usage;
