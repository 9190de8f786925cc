//! The checked requests of live generic workloads, parsed once per stored request. Every
//! derivation of a generic job asks whether one of its finish rules holds, and that needs the
//! request; parsing and validating the stored JSON each time would cost a full check per watch
//! event. A request changes only by an edit, so the parse is kept until the stored spec differs.

use super::finish_rules::generic_request;
use crate::db::workloads::StoredWorkload;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::training::checked::Generic;
use uuid::Uuid;

/// A stored spec and what it parsed to (`None`: it no longer parses).
type Parsed = (serde_json::Value, Option<Arc<Generic>>);

#[derive(Default)]
pub struct ParsedGenerics(Mutex<HashMap<Uuid, Parsed>>);

impl ParsedGenerics {
    /// The row's generic request, parsed only when its spec is not the one parsed last.
    pub fn of(&self, row: &StoredWorkload) -> Option<Arc<Generic>> {
        if row.kind != WorkloadKind::Generic {
            return None;
        }
        let mut parsed = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((spec, request)) = parsed.get(&row.id)
            && *spec == row.spec
        {
            return request.clone();
        }
        let request = generic_request(row).map(Arc::new);
        parsed.insert(row.id, (row.spec.clone(), request.clone()));
        request
    }

    /// Drops a workload that finished or is gone: its rules are not asked about again.
    pub fn forget(&self, id: Uuid) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use serde_json::json;
    use tephra_core::model::phase::Phase;

    fn row(kind: WorkloadKind, spec: serde_json::Value) -> StoredWorkload {
        StoredWorkload {
            id: Uuid::nil(),
            project_id: Uuid::nil(),
            name: "g".into(),
            requested_name: "g".into(),
            cluster_id: "c".into(),
            kind,
            spec,
            desired_phase: Phase::Running,
            actual_phase: Phase::Running,
            phase_reason: None,
            status: Default::default(),
            created_by: Uuid::nil(),
            created_at: Utc::now(),
            updated_at: Utc::now(),
            deleted_at: None,
            finished_at: None,
            job_ttl_seconds: None,
            gpus: None,
            pending_seconds: 0.0,
            pending_since: None,
            running_since: None,
        }
    }

    fn generic(image: &str) -> serde_json::Value {
        json!({ "name": "g", "projectId": "default", "spec": { "replicaSpecs": [
            { "type": "worker", "replicas": 1, "spec": { "image": image } }
        ] } })
    }

    #[test]
    fn a_request_is_parsed_again_only_when_its_spec_changed() {
        let parsed = ParsedGenerics::default();
        let first = parsed.of(&row(WorkloadKind::Generic, generic("a")));
        let again = parsed.of(&row(WorkloadKind::Generic, generic("a")));
        assert!(first.is_some(), "a generic request parses");
        assert!(Arc::ptr_eq(
            first.as_ref().unwrap(),
            again.as_ref().unwrap()
        ));
        let edited = parsed.of(&row(WorkloadKind::Generic, generic("b")));
        assert!(!Arc::ptr_eq(
            first.as_ref().unwrap(),
            edited.as_ref().unwrap()
        ));
        parsed.forget(Uuid::nil());
        assert_eq!(parsed.len(), 0);
    }

    #[test]
    fn other_kinds_are_not_parsed_or_kept() {
        let parsed = ParsedGenerics::default();
        assert!(
            parsed
                .of(&row(WorkloadKind::Training, generic("a")))
                .is_none()
        );
        assert_eq!(parsed.len(), 0);
    }
}
