//! Run:ai's list of every workload, whatever its kind: `GET /api/v1/workloads` (with Run:ai's
//! `filterBy`, `sortBy`, `sortOrder`, `offset`, `limit`, `search` and `deleted`) and
//! `GET /api/v1/workloads/{id}`, in Run:ai's `Workload` shape. Run:ai's SDK lists trainings
//! through these.

use super::error::{BadRequest, NotFound, Unauthorized};
use super::listing::ListQuery;
use super::{Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
use crate::service::workloads::Workloads;
use app::error::AppError;
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
    "totalPendingTimeSeconds",
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
    /// How long it has waited to run in all, seconds, the current wait included.
    pub total_pending_time_seconds: u64,
    /// While it waits to start: its place in its project's queue and among the waiting
    /// workloads that compete for its node pools (Tephra's addition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_position: Option<tephra_core::model::queue::QueuePosition>,
    /// While it waits: how many waiting workloads are considered before it for its nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ahead: Option<u32>,
    /// While it waits, on a read of one workload: when it can start, or what would make it start
    /// sooner (Tephra's addition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_estimate: Option<tephra_core::model::eta::StartEstimate>,
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
            kind: runai_type(w.kind).to_owned(),
            phase: w.actual_phase,
            phase_message: w.phase_message,
            running_pods: w.status.tasks.values().map(|t| t.running).sum(),
            total_pending_time_seconds: w.total_pending_time_seconds,
            queue_position: w.queue_position,
            ahead: w.ahead,
            start_estimate: w.start_estimate,
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

/// What Run:ai's list calls a kind.
fn runai_type(kind: WorkloadKind) -> &'static str {
    match kind {
        WorkloadKind::Training => "Training",
        WorkloadKind::Distributed => "Distributed",
        WorkloadKind::Generic => "Generic",
    }
}

/// The part of a Run:ai list query the database answers: its order when it is one the database
/// keeps (names and phases then sort by its collation), the kind, phase and project filters and
/// the name search. Every filter is applied here again, so what it cannot answer is still
/// right.
struct Pushed {
    kind: Option<WorkloadKind>,
    query: WorkloadQuery,
    /// The database gives the list in the query's order.
    ordered: bool,
    /// ...and applies every filter exactly, so it also skips to the page.
    exact: bool,
}

/// The filters the database applies exactly when it is given them.
const EXACT: &[(&str, &str)] = &[("type", "=="), ("phase", "=="), ("projectName", "==")];

/// `None` when a filter names a kind or phase that does not exist, so nothing matches.
fn push_down(query: &ListQuery, search: Option<String>) -> Option<Pushed> {
    let (field, descending) = query.sort();
    let sort_by = match field {
        None | Some("createdAt") => Some("createdAt"),
        Some("updatedAt") => Some("updatedAt"),
        Some("name") => Some("name"),
        Some("phase") => Some("actualPhase"),
        Some(_) => None,
    };
    let kind = match query.filter_value("type", "==") {
        Some(value) => Some(
            WorkloadKind::ALL
                .into_iter()
                .find(|kind| runai_type(*kind) == value)?,
        ),
        None => None,
    };
    let phase = match query.filter_value("phase", "==") {
        Some(value) => Some(value.parse::<Phase>().ok()?.as_str().to_owned()),
        None => None,
    };
    // A number matches a project name equal to it as a number here ("07" and "7"), not there.
    let project = query.filter_value("projectName", "==");
    let project_exact = project.is_none_or(|name| name.parse::<f64>().is_err());
    let project_id = project.filter(|_| project_exact).map(str::to_owned);
    Some(Pushed {
        kind,
        query: WorkloadQuery {
            name: search,
            phase,
            project_id,
            sort_by: sort_by.map(str::to_owned),
            // Newest first unless a sort is asked for, as Run:ai lists.
            sort_order: Some(
                if descending || field.is_none() {
                    "desc"
                } else {
                    "asc"
                }
                .to_owned(),
            ),
            ..WorkloadQuery::default()
        },
        ordered: sort_by.is_some(),
        exact: sort_by.is_some() && project_exact && query.only_filters(EXACT),
    })
}

/// One page of the database's answer to `pushed`, from `offset`, cut to the list shape and
/// filtered; a project the caller may not read (or that does not exist) has nothing to list.
async fn fetch(
    workloads: &Workloads,
    principal: &Principal,
    pushed: &Pushed,
    query: &ListQuery,
    offset: usize,
    limit: usize,
) -> Result<(Vec<RunaiWorkload>, Option<i64>), ApiError> {
    let page_query = WorkloadQuery {
        offset: Some(i64::try_from(offset).unwrap_or(i64::MAX)),
        limit: Some(i64::try_from(limit).unwrap_or(500)),
        ..pushed.query.clone()
    };
    match workloads
        .list_uncounted(pushed.kind, principal, &page_query)
        .await
    {
        Ok(page) => Ok((
            page.workloads
                .into_iter()
                .map(RunaiWorkload::from)
                .filter(|w| query.matches(w))
                .collect(),
            page.next,
        )),
        Err(AppError::Forbidden(_)) if pushed.query.project_id.is_some() => Ok((Vec::new(), None)),
        Err(AppError::Invalid { field, .. }) if field == "projectId" => Ok((Vec::new(), None)),
        Err(error) => Err(error.into()),
    }
}

/// The page the query asks for of the workloads the caller may read, and the offset of the next.
/// The database answers what it can ([`push_down`]) in pages of at most 500, each cut to its
/// list shape at once, so no spec outlives its page. When it answers everything the page is one
/// query (a deep offset skips index entries there); when it keeps the order the scan stops once
/// the page and one more match are found; otherwise every match is kept (without specs) and
/// sorted here.
async fn scan(
    workloads: &Workloads,
    principal: &Principal,
    query: &ListQuery,
    search: Option<String>,
) -> Result<(Vec<RunaiWorkload>, Option<usize>), ApiError> {
    let Some(pushed) = push_down(query, search) else {
        return Ok((Vec::new(), None));
    };
    let (skip, show) = query.window();
    // Where the database starts, and how many of its matches are skipped here.
    let (mut offset, skip_here) = if pushed.exact { (skip, 0) } else { (0, skip) };
    let enough = skip_here.saturating_add(show).saturating_add(1);
    let mut matched = Vec::new();
    loop {
        let batch = if pushed.exact {
            (enough - matched.len()).min(500)
        } else {
            500
        };
        let (found, next) = fetch(workloads, principal, &pushed, query, offset, batch).await?;
        matched.extend(found);
        match next {
            Some(_) if pushed.ordered && matched.len() >= enough => break,
            Some(next) => offset = usize::try_from(next).unwrap_or(usize::MAX),
            None => break,
        }
    }
    if pushed.ordered {
        let more = matched.len() > skip_here.saturating_add(show);
        let page: Vec<_> = matched.into_iter().skip(skip_here).take(show).collect();
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
    Ok(Json(services.workloads().response(&listing).await?.into()))
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
