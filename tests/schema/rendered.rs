//! Every Job Tephra renders is valid for the real Volcano Job CRD: the seed fixtures, and requests
//! of every kind generated at random.

use super::JOB;
use proptest::prelude::*;
use serde_json::Value;

#[path = "../../core/tests/common/mod.rs"]
mod common;

use common::{fixture, render, strategies};

fn rendered_job(value: &Value) -> Value {
    serde_json::to_value(&render(value, None).job).unwrap()
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
    let requests = [
        "seed-003-consistent.json",
        "seed-000-pytorch.json",
        "seed-001-mpi.json",
        "seed-002-torchrun.json",
        "generic-ps-worker.json",
    ];
    for name in requests {
        assert_valid(name, &rendered_job(&fixture(name)));
    }
}

#[test]
fn the_schema_check_catches_a_render_mistake() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures");
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
