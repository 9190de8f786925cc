//! Every Job Tephra renders is valid for the real Volcano Job CRD: the seed fixtures, and requests
//! of every kind generated at random.

use super::JOB;
use proptest::prelude::*;
use serde_json::Value;
use server::domain::cluster::ClusterProfile;
use server::domain::labels::{Workload, job_name};
use server::domain::request::{Kind, Request};

#[path = "../../server/tests/common/strategies.rs"]
mod strategies;

fn profile() -> ClusterProfile {
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

fn rendered_job(value: &Value) -> Value {
    let kind = Kind::detect(value);
    let request = Request::parse(value, kind).unwrap_or_else(|e| panic!("{e:#?}"));
    let workload = Workload {
        id: "06d16c5d-4728-42fa-b573-3b11820d999f".into(),
        job_name: job_name(request.name(), request.uses_name_as_prefix(), "abcde"),
        requested_name: request.name().into(),
        project: "ml".into(),
        namespace: "tephra-ml".into(),
        queue: "tephra-ml".into(),
        created_by: "schema@test".into(),
        kind: kind.as_str().into(),
        token_uid_gid: Some((1000, 100)),
    };
    let rendered = request
        .render(&workload, &profile())
        .unwrap_or_else(|e| panic!("{e:#?}"));
    serde_json::to_value(&rendered.job).unwrap()
}

fn assert_valid(name: &str, job: &Value) {
    let errors = JOB.validate(job);
    assert!(
        errors.is_empty(),
        "{name}: the rendered Job does not match Volcano's CRD:\n{}",
        errors
            .iter()
            .map(|e| format!("  {}: {}", e.path, e.message))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_fixture_renders_to_a_valid_job() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../server/tests/fixtures");
    let requests = [
        "seed-003-consistent.json",
        "seed-000-pytorch.json",
        "seed-001-mpi.json",
        "seed-002-torchrun.json",
        "generic-ps-worker.json",
    ];
    for name in requests {
        let value: Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{name}")).unwrap())
                .unwrap();
        assert_valid(name, &rendered_job(&value));
    }
}

#[test]
fn the_schema_check_catches_a_render_mistake() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../server/tests/fixtures");
    let value: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{dir}/seed-002-torchrun.json")).unwrap(),
    )
    .unwrap();
    let mut job = rendered_job(&value);
    // What a typo in the translation would produce: a misspelt field and a fractional CPU number.
    job["spec"]["minAvaliable"] = 3.into();
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] =
        0.5.into();
    let paths: Vec<String> = JOB.validate(&job).into_iter().map(|e| e.path).collect();
    assert!(paths.iter().any(|p| p == ".spec.minAvaliable"), "{paths:?}");
    assert!(paths.iter().any(|p| p.ends_with("limits.cpu")), "{paths:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_trainings_render_valid_jobs(value in strategies::training()) {
        let errors = JOB.validate(&rendered_job(&value));
        prop_assert!(errors.is_empty(), "{:?}", errors);
    }

    #[test]
    fn generated_distributed_trainings_render_valid_jobs(value in strategies::distributed()) {
        let errors = JOB.validate(&rendered_job(&value));
        prop_assert!(errors.is_empty(), "{:?}", errors);
    }

    #[test]
    fn generated_generic_jobs_render_valid_jobs(value in strategies::generic()) {
        let errors = JOB.validate(&rendered_job(&value));
        prop_assert!(errors.is_empty(), "{:?}", errors);
    }
}
