//! One module per route.

pub mod admin;
pub mod applications;
pub mod audit;
pub mod gpu_use;
pub mod home;
pub mod new_training;
pub mod not_found;
pub mod organisation;
pub mod project;
pub mod projects;
pub mod training_detail;
pub mod trainings;
