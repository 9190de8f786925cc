//! A stored workload as the API and the dashboard show it (Run:ai's response shape).

use crate::db::workloads::WorkloadListing;
use chrono::SecondsFormat;
use tephra_core::model::workload::Workload;

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
        kind: w.kind,
        created_by: listing.creator_name.clone(),
        created_at: w.created_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        updated_at: w.updated_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        desired_phase: w.desired_phase,
        actual_phase: w.actual_phase,
        phase_message: w.phase_reason.clone(),
        spec: shown_spec(&w.spec),
        gpus: w.gpus.unwrap_or_else(|| crate::rendered::requested_gpus(w)),
        gpu_use: None,
        total_pending_time_seconds: w.pending_time(chrono::Utc::now()).round() as u64,
        queue_position: None,
        ahead: None,
        start_estimate: None,
        status: w.status.clone(),
        warnings: Vec::new(),
    }
}

/// The request's spec as the API shows it. Run:ai's top-level `masterSpec` (and
/// `masterSpecSameAsWorker` beside it) is shown where Tephra keeps the master, `spec.master`, so
/// whoever reads a distributed training sees every pod spec it runs, the master's too.
fn shown_spec(request: &serde_json::Value) -> serde_json::Value {
    let mut spec = request
        .get("spec")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    if let Some(shown) = spec.as_object_mut() {
        for (top, inside) in [
            ("masterSpec", "master"),
            ("masterSpecSameAsWorker", "masterSpecSameAsWorker"),
        ] {
            if let Some(value) = request.get(top).filter(|v| !v.is_null()) {
                shown.entry(inside).or_insert_with(|| value.clone());
            }
        }
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::shown_spec;
    use serde_json::json;

    #[test]
    fn a_top_level_master_spec_is_shown_in_the_spec() {
        let request = json!({
            "name": "d", "projectId": "p", "masterSpecSameAsWorker": false,
            "spec": { "image": "w", "distributedFramework": "PyTorch", "numWorkers": 1 },
            "masterSpec": { "image": "m", "security": { "hostNetwork": true } }
        });
        assert_eq!(
            shown_spec(&request),
            json!({ "image": "w", "distributedFramework": "PyTorch", "numWorkers": 1,
                    "masterSpecSameAsWorker": false,
                    "master": { "image": "m", "security": { "hostNetwork": true } } })
        );
        let plain = json!({ "name": "t", "projectId": "p", "spec": { "image": "x" } });
        assert_eq!(shown_spec(&plain), json!({ "image": "x" }));
    }
}
