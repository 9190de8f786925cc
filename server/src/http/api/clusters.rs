//! Run:ai's clusters API: `GET /api/v1/clusters` and `GET /api/v1/clusters/{uuid}`. Tephra
//! manages one cluster; scripts read its `uuid` and send it back as `clusterId`.

use super::error::{NotFound, Unauthorized};
use super::{Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
use crate::service::observe::ClusterInfo;
use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/clusters", get(list_clusters))
        .route("/api/v1/clusters/{uuid}", get(get_cluster))
}

/// Run:ai's tenant; Tephra has one.
const TENANT_ID: i32 = 1;

/// A cluster in Run:ai's `DisplayedCluster` shape.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DisplayedCluster {
    pub uuid: String,
    pub tenant_id: i32,
    pub name: String,
    /// RFC 3339: when this Tephra first started with its database.
    pub created_at: String,
    /// Tephra's version.
    pub version: String,
    pub domain: Option<String>,
    pub status: ClusterStatus,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ClusterStatus {
    /// `Connected`, `Disconnected` (the API server does not answer), `ServiceIssues` (a
    /// background task is down) or `WaitingToConnect` (no cluster configured).
    pub state: &'static str,
}

impl From<ClusterInfo> for DisplayedCluster {
    fn from(c: ClusterInfo) -> Self {
        DisplayedCluster {
            uuid: c.id,
            tenant_id: TENANT_ID,
            name: c.name,
            created_at: c.created_at,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            domain: None,
            status: ClusterStatus {
                state: c.state.as_str(),
            },
        }
    }
}

/// The clusters this Tephra manages: one.
#[utoipa::path(get, path = "/api/v1/clusters", tag = "clusters",
    responses((status = 200, body = [DisplayedCluster]), Unauthorized))]
pub async fn list_clusters(
    State(services): State<Services>,
    Acting(_): Acting,
) -> Result<Json<Vec<DisplayedCluster>>, ApiError> {
    let cluster = services.observe().cluster_info().await?;
    Ok(Json(vec![cluster.into()]))
}

/// One cluster by its uuid.
#[utoipa::path(get, path = "/api/v1/clusters/{uuid}", tag = "clusters",
    params(("uuid" = String, Path, description = "The cluster's uuid")),
    responses((status = 200, body = DisplayedCluster), Unauthorized, NotFound))]
pub async fn get_cluster(
    State(services): State<Services>,
    Acting(_): Acting,
    Path(uuid): Path<String>,
) -> Result<Json<DisplayedCluster>, ApiError> {
    let cluster = services.observe().cluster_info().await?;
    if !cluster.id.eq_ignore_ascii_case(&uuid) {
        return Err(app::error::AppError::NotFound(format!(
            "no cluster has the uuid {uuid:?}; this Tephra manages {:?}",
            cluster.id
        ))
        .into());
    }
    Ok(Json(cluster.into()))
}
