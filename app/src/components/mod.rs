//! Reusable pieces of the pages.

pub mod error_panel;
pub mod layout;
pub mod phase_badge;
pub mod relative_time;
