//! Property tests: valid requests always render to a consistent gang-scheduled Job, and any input
//! at all yields a Job or field-path errors, never a panic.

mod common;

use common::strategies::{distributed, generic, training};
use common::{placement, profile};
use proptest::prelude::*;
use serde_json::{Value, json};
use tephra_core::domain::request::{Request, WorkloadKind};

fn check_consistent(value: &Value) -> Result<(), TestCaseError> {
    let kind = WorkloadKind::detect(value);
    let request = Request::parse(value, kind)
        .map_err(|e| TestCaseError::fail(format!("{e:#?}\n{value:#}")))?;
    let rendered = request
        .render(&request.owner(&placement(None)), &profile())
        .map_err(|e| TestCaseError::fail(format!("{e:#?}")))?;
    let job = serde_json::to_value(&rendered.job).unwrap();
    let spec = &job["spec"];
    prop_assert_eq!(&spec["schedulerName"], "volcano");
    let tasks = spec["tasks"].as_array().unwrap();
    let replicas: i64 = tasks.iter().map(|t| t["replicas"].as_i64().unwrap()).sum();
    let min_available = spec["minAvailable"].as_i64().unwrap();
    prop_assert!(
        min_available >= 1 && min_available <= replicas,
        "minAvailable {} of {} pods",
        min_available,
        replicas
    );
    for task in tasks {
        prop_assert_eq!(&task["template"]["spec"]["schedulerName"], "volcano");
        let task_min = task["minAvailable"].as_i64().unwrap();
        prop_assert!(task_min <= task["replicas"].as_i64().unwrap());
    }
    match &request {
        Request::Training(t) => {
            let t = t.request();
            let parallelism = t.spec.parallelism.unwrap_or(1);
            // Every completion is a pod; `parallelism` of them start together.
            prop_assert_eq!(replicas, parallelism.max(t.spec.completions.unwrap_or(0)));
            prop_assert_eq!(min_available, parallelism);
            if let Some(completions) = t.spec.completions {
                prop_assert_eq!(spec["minSuccess"].as_i64(), Some(completions));
            }
        }
        Request::Generic(g) => {
            let g = g.request();
            let expected: i64 = g
                .spec
                .replica_specs
                .iter()
                .map(|r| r.replicas.unwrap_or(1))
                .sum();
            prop_assert_eq!(replicas, expected);
            prop_assert_eq!(
                min_available,
                expected,
                "a generic job is gang-scheduled as a whole"
            );
            prop_assert_eq!(rendered.starts_paused, g.spec.starts_paused());
        }
        Request::Distributed(d) => {
            let d = d.request();
            prop_assert_eq!(replicas, d.spec.num_workers + 1);
            // minReplicas counts workers, as in Run:ai; the gang adds the master.
            prop_assert_eq!(
                min_available,
                d.spec.min_replicas.map_or(replicas, |workers| workers + 1)
            );
            prop_assert_eq!(&tasks[0]["policies"][0]["action"], "CompleteJob");
        }
    }
    Ok(())
}

/// Any JSON, biased towards the request's own field names so the parser goes deep.
fn any_json() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "name",
        "projectId",
        "spec",
        "image",
        "command",
        "args",
        "compute",
        "gpuDevicesRequest",
        "gpuRequestType",
        "gpuPortionRequest",
        "cpuCoreRequest",
        "cpuMemoryRequest",
        "tolerations",
        "operator",
        "value",
        "effect",
        "seconds",
        "storage",
        "pvc",
        "nfs",
        "path",
        "mountPath",
        "distributedFramework",
        "numWorkers",
        "master",
        "security",
        "runAsUid",
        "ports",
        "container",
        "environmentVariables",
        "secret",
        "labels",
        "bogus",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
        prop::sample::select(vec![
            "portion",
            "Exists",
            "NoExecute",
            "PyTorch",
            "MPI",
            "1Gi",
            "/mnt",
            "500m"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(keys.clone(), inner, 0..6).prop_map(|m| Value::Object(
                m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn valid_trainings_render_consistently(value in training()) {
        check_consistent(&value)?;
    }

    #[test]
    fn valid_distributed_trainings_render_consistently(value in distributed()) {
        check_consistent(&value)?;
    }

    #[test]
    fn valid_generic_jobs_render_consistently(value in generic()) {
        check_consistent(&value)?;
    }

    #[test]
    fn any_input_yields_a_job_or_field_errors(value in any_json(), as_request in any::<bool>()) {
        let value = if as_request { json!({ "name": "x", "projectId": 1, "spec": value }) } else { value };
        for kind in [WorkloadKind::Training, WorkloadKind::Distributed, WorkloadKind::Generic] {
            match Request::parse(&value, kind) {
                Err(errors) => {
                    prop_assert!(!errors.is_empty());
                    for e in &errors {
                        prop_assert!(!e.path.is_empty() && !e.message.is_empty(), "{:?}", e);
                    }
                }
                Ok(request) => {
                    if let Err(errors) = request.render(&request.owner(&placement(None)), &profile()) {
                        prop_assert!(errors.iter().all(|e| !e.path.is_empty()));
                    }
                }
            }
        }
    }
}
