//! A stored workload as the API and the dashboard show it (Run:ai's response shape).

use crate::db::workloads::WorkloadListing;
use app::model::workload::Workload;
use chrono::SecondsFormat;

pub fn workload_response(listing: &WorkloadListing) -> Workload {
    let w = &listing.workload;
    Workload {
        name: w.name.clone(),
        requested_name: w.requested_name.clone(),
        workload_id: w.id.to_string(),
        project_id: listing.project_number.to_string(),
        project_name: listing.project_name.clone(),
        department_id: listing.department_id.to_string(),
        cluster_id: w.cluster_id.clone(),
        kind: w.kind.as_str().to_owned(),
        created_by: listing.creator_name.clone(),
        created_at: w.created_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        updated_at: w.updated_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        desired_phase: w.desired_phase,
        actual_phase: w.actual_phase,
        phase_message: w.phase_reason.clone(),
        spec: w
            .spec
            .get("spec")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({})),
        gpus: crate::stored::requested_gpus(w),
        gpu_use: None,
        status: w.status.clone(),
        warnings: Vec::new(),
    }
}
