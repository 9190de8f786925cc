//! Server functions: the UI's reads and writes. Each one resolves the acting principal, calls the
//! backend and returns its answer; nothing else happens here. Endpoints are named explicitly so
//! their URLs (`/api/fn/<name>`) stay stable across builds.

use crate::error::AppError;
use crate::model::{
    overview::Overview, principal::Principal, project::ProjectSummary, system::SystemInfo,
    training::summary::TrainingSummary,
};
use leptos::prelude::*;

#[server(prefix = "/api/fn", endpoint = "get_me")]
pub async fn get_me() -> Result<Principal, AppError> {
    let (_, principal) = crate::backend::acting().await?;
    Ok(principal)
}

#[server(prefix = "/api/fn", endpoint = "get_overview")]
pub async fn get_overview() -> Result<Overview, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.overview(&principal).await
}

#[server(prefix = "/api/fn", endpoint = "list_trainings")]
pub async fn list_trainings() -> Result<Vec<TrainingSummary>, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.list_trainings(&principal).await
}

#[server(prefix = "/api/fn", endpoint = "list_projects")]
pub async fn list_projects() -> Result<Vec<ProjectSummary>, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.list_projects(&principal).await
}

#[server(prefix = "/api/fn", endpoint = "get_system_info")]
pub async fn get_system_info() -> Result<SystemInfo, AppError> {
    let (backend, principal) = crate::backend::acting().await?;
    backend.system_info(&principal).await
}
