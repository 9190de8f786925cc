//! Helpers shared by the integration tests (and, by path, the schema test and the benchmark).

#![allow(dead_code)]

pub mod strategies;

use serde_json::Value;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::render::Rendered;
use tephra_core::domain::request::{Placement, Request, WorkloadKind};
use tephra_core::model::validation::FieldError;

pub const WORKLOAD_ID: &str = "06d16c5d-4728-42fa-b573-3b11820d999f";

/// A request document from `core/tests/fixtures` (JSON or YAML).
pub fn fixture(name: &str) -> Value {
    // From `core/` and from `tests/` alike.
    let path = format!(
        "{}/../core/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if name.ends_with(".json") {
        serde_json::from_str(&text).unwrap()
    } else {
        serde_yaml::from_str(&text).unwrap()
    }
}

/// The default profile plus the seed's data volume and the seeds' priority class.
pub fn profile() -> ClusterProfile {
    let mut profile = ClusterProfile::default();
    profile.data_volumes.insert(
        "123e4567-e89b-12d3-a456-426614174000".into(),
        "shared-datasets".into(),
    );
    profile
        .priority_classes
        .insert("high-priority".into(), "high-priority".into());
    profile
}

pub fn placement(queue: Option<&str>) -> Placement<'_> {
    Placement {
        workload_id: WORKLOAD_ID,
        project: "ml",
        queue,
        created_by: "test@lab.com",
        name_suffix: "x7k2q",
        token_uid_gid: Some((1000, 100)),
    }
}

/// Parses (detecting the kind) and renders a request document.
pub fn try_render(value: &Value, queue: Option<&str>) -> Result<Rendered, Vec<FieldError>> {
    let request = Request::parse(value, WorkloadKind::detect(value))?;
    request.render(&request.owner(&placement(queue)), &profile())
}

pub fn render(value: &Value, queue: Option<&str>) -> Rendered {
    try_render(value, queue).unwrap_or_else(|e| panic!("{e:#?}"))
}

/// The rendered Job as JSON, for reading its fields by path.
pub fn job_json(rendered: &Rendered) -> Value {
    serde_json::to_value(&rendered.job).unwrap()
}
