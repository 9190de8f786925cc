//! Run:ai's list of every workload, whatever its kind: `GET /api/v1/workloads` (with Run:ai's
//! `filterBy`, `sortBy`, `sortOrder`, `offset`, `limit`, `search` and `deleted`) and
//! `GET /api/v1/workloads/{id}`, in Run:ai's `Workload` shape. Run:ai's SDK lists trainings
//! through these.

use super::error::{BadRequest, NotFound, Unauthorized};
use super::listing::ListQuery;
use super::{Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
use crate::service::workloads::{Workloads, workload_response};
use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use serde_json::Value;
use tephra_core::model::kind::WorkloadKind;
use tephra_core::model::phase::Phase;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::{Workload, WorkloadQuery};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/workloads", get(list_workloads))
        .route("/api/v1/workloads/{id}", get(get_workload))
}

/// The fields `filterBy` and `sortBy` may name.
const FIELDS: &[&str] = &[
    "id",
    "name",
    "type",
    "phase",
    "projectId",
    "projectName",
    "departmentId",
    "clusterId",
    "submittedBy",
    "createdAt",
    "updatedAt",
    "runningPods",
    "category",
    "priorityClassName",
    "distributedFramework",
];

/// A workload in Run:ai's `Workload` shape (the fields Tephra has).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunaiWorkload {
    pub id: String,
    pub name: String,
    /// `Training`, `Distributed` or `Generic` (a generic job).
    #[serde(rename = "type")]
    pub kind: String,
    pub phase: Phase,
    pub phase_message: Option<String>,
    pub project_id: String,
    pub project_name: String,
    pub department_id: String,
    pub cluster_id: String,
    pub submitted_by: String,
    /// RFC 3339.
    pub created_at: String,
    pub updated_at: String,
    pub running_pods: u32,
    pub images: Vec<String>,
    pub category: Option<String>,
    pub priority_class_name: Option<String>,
    pub distributed_framework: Option<String>,
}

impl From<Workload> for RunaiWorkload {
    fn from(w: Workload) -> Self {
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let replicas = w.spec["replicaSpecs"].as_array().into_iter().flatten();
        let images = [&w.spec["image"], &w.spec["master"]["image"]]
            .into_iter()
            .chain(replicas.map(|r| &r["spec"]["image"]))
            .filter_map(text)
            .collect();
        RunaiWorkload {
            kind: match w.kind {
                WorkloadKind::Training => "Training",
                WorkloadKind::Distributed => "Distributed",
                WorkloadKind::Generic => "Generic",
            }
            .to_owned(),
            phase: w.actual_phase,
            phase_message: w.phase_message,
            running_pods: w.status.tasks.values().map(|t| t.running).sum(),
            images,
            category: text(&w.spec["category"]),
            priority_class_name: text(&w.spec["priorityClass"]),
            distributed_framework: text(&w.spec["distributedFramework"]),
            id: w.workload_id,
            name: w.name,
            project_id: w.project_id,
            project_name: w.project_name,
            department_id: w.department_id,
            cluster_id: w.cluster_id,
            submitted_by: w.created_by,
            created_at: w.created_at,
            updated_at: w.updated_at,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct WorkloadList {
    pub workloads: Vec<RunaiWorkload>,
    /// The offset of the next page, when there is one.
    pub next: Option<usize>,
}

/// The order the database can give the list in, when the query's sort is one it keeps in step
/// with (times; names and phases sort by collation there, by bytes here). `None` sorts here.
fn database_order(query: &ListQuery) -> Option<(&'static str, &'static str)> {
    let (field, descending) = query.sort();
    let direction = if descending { "desc" } else { "asc" };
    match field {
        None => Some(("createdAt", "desc")),
        Some("createdAt") => Some(("createdAt", direction)),
        Some("updatedAt") => Some(("updatedAt", direction)),
        _ => None,
    }
}

/// The page the query asks for of the workloads the caller may read, and the offset of the next.
/// The database pages through them in its order, 500 at a time, and each is cut down to its list
/// shape at once, so no spec outlives its page. Sorted by the database, the scan stops once the
/// page and one more match are found; otherwise every match is kept (without specs) and sorted.
async fn scan(
    workloads: &Workloads,
    principal: &Principal,
    query: &ListQuery,
    search: Option<String>,
) -> Result<(Vec<RunaiWorkload>, Option<usize>), ApiError> {
    let order = database_order(query);
    let (skip, show) = query.window();
    let enough = skip.saturating_add(show).saturating_add(1);
    let mut matched = Vec::new();
    let mut offset = 0;
    loop {
        let page_query = WorkloadQuery {
            name: search.clone(),
            sort_by: order.map(|(field, _)| field.to_owned()),
            sort_order: order.map(|(_, direction)| direction.to_owned()),
            offset: Some(offset),
            limit: Some(500),
            ..WorkloadQuery::default()
        };
        let page = workloads.list(None, principal, &page_query).await?;
        matched.extend(
            page.workloads
                .into_iter()
                .map(RunaiWorkload::from)
                .filter(|w| query.matches(w)),
        );
        match page.next {
            Some(_) if order.is_some() && matched.len() >= enough => break,
            Some(next) => offset = next,
            None => break,
        }
    }
    if order.is_some() {
        let more = matched.len() > skip.saturating_add(show);
        let page: Vec<_> = matched.into_iter().skip(skip).take(show).collect();
        let next = (more && !page.is_empty()).then(|| skip + page.len());
        return Ok((page, next));
    }
    let (page, total) = query.apply(matched);
    let next = query.next(page.len(), total);
    Ok((page, next))
}

/// List workloads of every kind.
#[utoipa::path(get, path = "/api/v1/workloads", tag = "workloads",
    params(
        ("filterBy" = Option<Vec<String>>, Query, description = "field<op>value, op one of == != <= >= =@ !@ =^ =$"),
        ("sortBy" = Option<String>, Query), ("sortOrder" = Option<String>, Query, description = "asc or desc"),
        ("offset" = Option<usize>, Query), ("limit" = Option<usize>, Query, description = "1 to 500"),
        ("search" = Option<String>, Query, description = "Only names containing this text (ignoring case)"),
        ("deleted" = Option<bool>, Query, description = "true lists deleted workloads, which Tephra does not keep: none")),
    responses((status = 200, body = WorkloadList), BadRequest, Unauthorized))]
pub async fn list_workloads(
    State(services): State<Services>,
    Acting(principal): Acting,
    Query(mut pairs): Query<Vec<(String, String)>>,
) -> Result<Json<WorkloadList>, ApiError> {
    let deleted = take(&mut pairs, "deleted");
    let search = take(&mut pairs, "search").filter(|s| !s.is_empty());
    let query = ListQuery::parse(&pairs, FIELDS)?;
    let (workloads, next) = match deleted.as_deref() {
        None | Some("false") => scan(services.workloads(), &principal, &query, search).await?,
        Some("true") => (Vec::new(), None),
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "deleted: {other:?} is not true or false"
            )));
        }
    };
    Ok(Json(WorkloadList { workloads, next }))
}

/// A workload of any kind, by its id.
#[utoipa::path(get, path = "/api/v1/workloads/{id}", tag = "workloads",
    params(("id" = String, Path, description = "The workloadId")),
    responses((status = 200, body = RunaiWorkload), Unauthorized, NotFound))]
pub async fn get_workload(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
) -> Result<Json<RunaiWorkload>, ApiError> {
    let listing = services.workloads().find(None, &principal, &id).await?;
    Ok(Json(workload_response(&listing).into()))
}

/// Removes `key`'s last value from the query, for parameters the generic list does not know.
fn take(pairs: &mut Vec<(String, String)>, key: &str) -> Option<String> {
    let mut found = None;
    pairs.retain(|(k, v)| {
        if k == key {
            found = Some(v.clone());
            false
        } else {
            true
        }
    });
    found
}
