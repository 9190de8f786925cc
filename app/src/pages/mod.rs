//! One module per route.

pub mod admin;
pub mod home;
pub mod not_found;
pub mod projects;
pub mod trainings;
