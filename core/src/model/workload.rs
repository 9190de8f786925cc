//! A workload as the API returns it and the event stream pushes it: the Run:ai response fields
//! (seed 003) plus what the cluster reports live (Volcano Job, PodGroup, tasks, pods, events).

use crate::model::phase::Phase;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::model::live::*;

/// A workload in the Run:ai response shape (`GET /api/v1/workloads/trainings/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// The name the Volcano Job has: the requested name, plus a suffix with useGivenNameAsPrefix.
    pub name: String,
    pub requested_name: String,
    pub workload_id: String,
    /// The project's id: a string of an integer, as in Run:ai.
    pub project_id: String,
    pub project_name: String,
    /// The project's department.
    #[serde(default)]
    pub department_id: String,
    pub cluster_id: String,
    /// Which collection it belongs to: `training`, `distributed` or `generic`.
    pub kind: crate::model::kind::WorkloadKind,
    pub created_by: String,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339: the last change of the phase or the status.
    pub updated_at: String,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    /// Why the workload is in its actual phase, in plain words.
    pub phase_message: Option<String>,
    /// The request's spec, as submitted.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub spec: serde_json::Value,
    /// GPUs of all pods together, as the request asks for them (whole devices and portions;
    /// a share of memory or a MIG slice holds a device). Computed by the server from the typed
    /// request, so every kind counts alike.
    #[serde(default)]
    pub gpus: f64,
    /// Its GPUs' mean utilisation now, percent, when Prometheus has it (the dashboard's list
    /// fills it in; other answers leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_use: Option<f64>,
    /// How long it has waited to run in all, seconds: every time it was being created, pending
    /// for the scheduler or resuming, the current wait included (Run:ai's name).
    #[serde(default)]
    pub total_pending_time_seconds: u64,
    /// While it waits to start: its place in the order the scheduler considers waiting gangs.
    /// Lists and the detail fill it in; the pages render it on the server, so the browser never
    /// decodes it.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub queue_position: Option<crate::model::queue::QueuePosition>,
    /// While it waits: how many waiting workloads are considered before it for its nodes.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<u32>,
    /// While it waits: when it can start (`crate::domain::eta`). Only reads of one workload fill
    /// it in.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub start_estimate: Option<crate::model::eta::StartEstimate>,
    pub status: LiveStatus,
    /// Fields the request set that have no effect, on the answer to a submit (Run:ai accepts
    /// them too; Tephra says so instead of ignoring them silently).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::model::validation::FieldError>,
}

/// What the event stream sends when a workload changes (`event: workload`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadEvent {
    pub workload_id: String,
    pub project_id: String,
    pub name: String,
    pub kind: crate::model::kind::WorkloadKind,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    pub phase_message: Option<String>,
    /// RFC 3339.
    pub updated_at: String,
    /// Set once the workload and everything it created are gone.
    pub deleted: bool,
    /// On a stream filtered to one workload, the full status; on the others, the summary
    /// ([`LiveStatus::summary`]: no `pods`, no `events`), so a thousand-pod job does not send
    /// its pod list to every open list page on every change.
    pub status: LiveStatus,
}

impl WorkloadEvent {
    /// The event with its status cut down to the summary.
    pub fn summary(&self) -> WorkloadEvent {
        WorkloadEvent {
            workload_id: self.workload_id.clone(),
            project_id: self.project_id.clone(),
            name: self.name.clone(),
            kind: self.kind,
            desired_phase: self.desired_phase,
            actual_phase: self.actual_phase,
            phase_message: self.phase_message.clone(),
            updated_at: self.updated_at.clone(),
            deleted: self.deleted,
            status: self.status.summary(),
        }
    }
}

/// One entry of a workload's history: an action someone took or a phase change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// RFC 3339.
    pub at: String,
    pub action: crate::model::history::HistoryAction,
    /// Who acted; none for Tephra itself (phase changes the cluster reported).
    pub actor: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub detail: serde_json::Value,
}

/// The filters, order and page of a workload list (`GET /api/v1/workloads/trainings` and the
/// dashboard's list, whose URL carries the same parameters).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "openapi", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkloadQuery {
    /// Only this project (its id or name).
    pub project_id: Option<String>,
    /// Only this actual phase (Creating, Pending, Initializing, Running, Stopping, Stopped,
    /// Resuming, Completed, Failed, Deleting, Unknown).
    pub phase: Option<String>,
    /// Only workloads created by this user (email or name).
    pub created_by: Option<String>,
    /// Only names containing this text (ignoring case).
    pub name: Option<String>,
    /// name, createdAt (default), updatedAt or actualPhase.
    pub sort_by: Option<String>,
    /// asc or desc (default).
    pub sort_order: Option<String>,
    /// How many to skip (default 0).
    pub offset: Option<i64>,
    /// Page size, 1 to 500 (default 50).
    pub limit: Option<i64>,
    /// The `nextCursor` of the page before, with the same filters and order: the next page, as
    /// quick at any depth as the first (an `offset` costs the rows it skips).
    pub after: Option<String>,
}

/// What a row of the dashboard's list shows of a workload: the page carries this, not the whole
/// workload with its spec, pods and events, because every byte is also shipped for hydration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadRow {
    pub workload_id: String,
    pub name: String,
    pub kind: crate::model::kind::WorkloadKind,
    pub project_name: String,
    pub created_by: String,
    /// RFC 3339.
    pub created_at: String,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    pub phase_message: Option<String>,
    /// Pods running, and pods in all, over every task.
    pub running: u32,
    pub pods: u32,
    pub gpus: f64,
    /// Mean GPU utilisation when the page was loaded, percent.
    pub gpu_use: Option<f64>,
    /// Where it stood in its project's queue when the page was loaded ("3rd in vision"), while
    /// it waits.
    pub queue_place: Option<String>,
}

/// The part of a [`WorkloadEvent`] a row of the list shows. The list decodes the stream into this
/// rather than the whole event, so the list page's WebAssembly carries no decoder for pods,
/// events or the PodGroup (the list's stream sends none of them anyway).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowChange {
    pub workload_id: String,
    pub desired_phase: Phase,
    pub actual_phase: Phase,
    pub phase_message: Option<String>,
    pub deleted: bool,
    #[serde(default)]
    pub status: RowStatus,
}

impl RowChange {
    /// Pods running, and pods in all, over every task: a row's `running` and `pods`.
    pub fn pods(&self) -> (u32, u32) {
        self.status
            .tasks
            .values()
            .fold((0, 0), |(running, total), t| {
                (running + t.running, total + t.total())
            })
    }
}

/// The tasks of [`LiveStatus`], which is all a row counts.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RowStatus {
    #[serde(default)]
    pub tasks: BTreeMap<String, TaskCounts>,
}

/// Running pods and all pods over every task.
fn pod_totals(status: &LiveStatus) -> (u32, u32) {
    status.tasks.values().fold((0, 0), |(running, total), t| {
        (running + t.running, total + t.total())
    })
}

impl From<&Workload> for WorkloadRow {
    fn from(w: &Workload) -> Self {
        let (running, pods) = pod_totals(&w.status);
        WorkloadRow {
            workload_id: w.workload_id.clone(),
            name: w.name.clone(),
            kind: w.kind,
            project_name: w.project_name.clone(),
            created_by: w.created_by.clone(),
            created_at: w.created_at.clone(),
            desired_phase: w.desired_phase,
            actual_phase: w.actual_phase,
            phase_message: w.phase_message.clone(),
            running,
            pods,
            gpus: w.gpus,
            gpu_use: w.gpu_use,
            queue_place: w
                .queue_position
                .map(|position| position.place(&w.project_name)),
        }
    }
}

/// One page of a workload list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadPage {
    pub workloads: Vec<WorkloadRow>,
    /// How many match the filters in all.
    pub total: i64,
    /// The offset of the next page; absent on the last one.
    pub next: Option<i64>,
    pub offset: i64,
    pub limit: i64,
}

/// Everything the detail page shows about one workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadDetail {
    pub workload: Workload,
    pub history: Vec<HistoryEntry>,
    /// What it waited for before it ran, and how long in all, per cause: rendered with the page
    /// on the server and never read in the browser, so its islands do not carry the code to
    /// read it (page weight).
    #[serde(default, skip_deserializing)]
    pub waits: Vec<crate::model::waits::Wait>,
    /// While it waits to start: its place and what is ahead of it. Rendered on the server, as
    /// `waits` is.
    #[serde(default, skip_deserializing)]
    pub queue: Option<crate::model::queue::QueueStanding>,
    /// While it runs under a time limit: when it will be stopped ("stops in 1 h 12 min (its time
    /// limit of 2 h)"), as of the page's loading. Rendered on the server, as `waits` is.
    #[serde(default, skip_deserializing)]
    pub time_limit: Option<String>,
    /// The last lines of its logs Tephra kept when it failed, with their hints: rendered on the
    /// server, as `waits` is.
    #[serde(default, skip_deserializing)]
    pub kept_logs: Vec<crate::model::kept::KeptLog>,
    /// The Volcano Job (and any PVCs and Services) as Tephra creates them, as YAML.
    pub rendered_yaml: Result<String, String>,
    /// Its project's and department's GPUs in use against their quota and limit, when the page
    /// was loaded: what a pending training waits on besides the scheduler.
    pub standing: Option<crate::model::usage::Standing>,
}

impl Workload {
    /// The request as it was submitted (`{name, projectId, spec}`), for cloning it.
    pub fn request(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.requested_name,
            "projectId": self.project_id,
            "spec": self.spec,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_its_counts_from_the_part_of_the_event_it_decodes() {
        let event = WorkloadEvent {
            workload_id: "w1".into(),
            project_id: "p".into(),
            name: "n".into(),
            kind: crate::model::kind::WorkloadKind::Training,
            desired_phase: Phase::Running,
            actual_phase: Phase::Running,
            phase_message: Some("all pods run".into()),
            updated_at: "2026-11-23T00:00:00Z".into(),
            deleted: false,
            status: LiveStatus {
                tasks: BTreeMap::from([
                    (
                        "master".into(),
                        TaskCounts {
                            running: 1,
                            ..Default::default()
                        },
                    ),
                    (
                        "worker".into(),
                        TaskCounts {
                            running: 1,
                            pending: 2,
                            ..Default::default()
                        },
                    ),
                ]),
                ..Default::default()
            },
        };
        let change: RowChange =
            serde_json::from_str(&serde_json::to_string(&event).unwrap()).unwrap();
        assert_eq!(change.pods(), (2, 4));
        assert_eq!(change.actual_phase, Phase::Running);
        assert_eq!(change.phase_message.as_deref(), Some("all pods run"));
    }

    #[test]
    fn the_summary_keeps_the_counts_and_drops_what_grows_with_the_pods() {
        let pod = PodInfo {
            name: "p-0".into(),
            task: "train".into(),
            node: None,
            phase: "Pending".into(),
            restarts: 0,
            created_at: None,
            gpus: 0,
            containers: vec!["train".into()],
            kubelet: Default::default(),
        };
        let status = LiveStatus {
            job_phase: Some("Pending".into()),
            tasks: BTreeMap::from([(
                "train".into(),
                TaskCounts {
                    pending: 1000,
                    ..Default::default()
                },
            )]),
            pods: vec![pod; 1000],
            drift: Some("edited".into()),
            ..Default::default()
        };
        let summary = status.summary();
        assert!(summary.pods.is_empty() && summary.events.is_empty());
        assert_eq!(summary.tasks, status.tasks, "the list's pod counts stay");
        assert_eq!(summary.drift, status.drift);
        assert_eq!(summary.job_phase, status.job_phase);
    }
}
