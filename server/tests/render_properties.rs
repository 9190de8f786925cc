//! Property tests: valid requests always render to a consistent gang-scheduled Job, and any input
//! at all yields a Job or field-path errors, never a panic.

use proptest::prelude::*;
use serde_json::{Value, json};
use server::domain::cluster::ClusterProfile;
use server::domain::labels::{Workload, job_name};
use server::domain::request::{Kind, Request};

fn workload(request: &Request, kind: Kind) -> Workload {
    Workload {
        id: "5a0c8a4e-8f0e-4a43-9d3c-3f9e1d7c2b11".into(),
        job_name: job_name(request.name(), request.uses_name_as_prefix(), "p0p0p"),
        requested_name: request.name().into(),
        project: "prop".into(),
        namespace: "tephra-prop".into(),
        queue: "tephra-prop".into(),
        created_by: "prop@test".into(),
        kind: kind.as_str().into(),
        token_uid_gid: Some((1000, 1000)),
    }
}

fn compute() -> impl Strategy<Value = Value> {
    let gpu = prop_oneof![
        Just(json!({})),
        (0i64..=8).prop_map(|n| json!({ "gpuDevicesRequest": n })),
        (1u32..=99, 1i64..=4).prop_map(|(p, n)| json!({
            "gpuRequestType": "portion", "gpuPortionRequest": f64::from(p) / 100.0, "gpuDevicesRequest": n
        })),
        (1u32..=80_000).prop_map(|mib| json!({ "gpuRequestType": "memory", "gpuMemoryRequest": format!("{mib}Mi") })),
        (1u32..=7, 1u32..=8).prop_map(|(g, m)| json!({ "gpuRequestType": "migProfile", "migProfile": format!("{g}g.{}gb", m * 5) })),
    ];
    (
        gpu,
        proptest::option::of((1u32..=64_000, 0u32..=64_000)),
        proptest::option::of((1u32..=512, 0u32..=512)),
        any::<bool>(),
    )
        .prop_map(|(mut c, cpu, mem, shm)| {
            if let Some((request, extra)) = cpu {
                c["cpuCoreRequest"] = json!(f64::from(request) / 1000.0);
                c["cpuCoreLimit"] = json!(f64::from(request + extra) / 1000.0);
            }
            if let Some((request, extra)) = mem {
                c["cpuMemoryRequest"] = json!(format!("{request}Mi"));
                c["cpuMemoryLimit"] = json!(format!("{}Mi", request + extra));
            }
            c["largeShmRequest"] = json!(shm);
            c
        })
}

fn toleration() -> impl Strategy<Value = Value> {
    prop_oneof![
        ("[a-z]{1,10}", prop::sample::select(vec!["NoSchedule", "PreferNoSchedule", "Any"]))
            .prop_map(|(key, effect)| json!({ "operator": "Exists", "key": key, "effect": effect })),
        ("[a-z]{1,10}", "[a-z0-9]{0,10}", 0i64..=3600)
            .prop_map(|(key, value, seconds)| json!({ "operator": "Equal", "key": key, "value": value, "effect": "NoExecute", "seconds": seconds })),
    ]
}

fn spec() -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,12}(:[a-z0-9.]{1,6})?",
        proptest::option::of("[a-z]{1,8}( --?[a-z]{1,6}){0,3}"),
        compute(),
        prop::collection::vec(toleration(), 0..3),
        prop::collection::btree_set("[A-Z][A-Z0-9_]{0,8}", 0..4),
        prop::collection::btree_set(1i64..=65535, 0..3),
        proptest::option::of(0i64..=10),
        any::<bool>(),
        prop::collection::vec("/[a-z]{1,8}", 0..3),
    )
        .prop_map(|(image, command, compute, tolerations, env, ports, backoff, preempt, nfs)| {
            let env: Vec<Value> = env.into_iter().map(|name| json!({ "name": name, "value": "x" })).collect();
            let ports: Vec<Value> = ports.into_iter().map(|p| json!({ "container": p, "serviceType": "ClusterIP" })).collect();
            let nfs: Vec<Value> = nfs
                .into_iter()
                .enumerate()
                .map(|(i, path)| json!({ "server": "nfs.example", "path": path, "mountPath": format!("/mnt/nfs{i}") }))
                .collect();
            let mut spec = json!({
                "image": image,
                "compute": compute,
                "tolerations": tolerations,
                "environmentVariables": env,
                "ports": ports,
                "terminateAfterPreemption": preempt,
                "storage": { "nfs": nfs },
            });
            if let Some(command) = command {
                spec["command"] = json!(command);
            }
            if let Some(backoff) = backoff {
                spec["backoffLimit"] = json!(backoff);
            }
            spec
        })
}

fn training() -> impl Strategy<Value = Value> {
    ("[a-z][a-z0-9-]{0,30}[a-z0-9]", spec(), 1i64..=16, any::<bool>()).prop_flat_map(|(name, spec, parallelism, prefix)| {
        (0..=parallelism).prop_map(move |completions| {
            let mut spec = spec.clone();
            spec["parallelism"] = json!(parallelism);
            if completions > 0 {
                spec["completions"] = json!(completions);
            }
            json!({ "name": name.clone(), "projectId": 1, "useGivenNameAsPrefix": prefix, "spec": spec })
        })
    })
}

fn distributed() -> impl Strategy<Value = Value> {
    (
        "[a-z][a-z0-9-]{0,30}[a-z0-9]",
        spec(),
        prop::sample::select(vec!["PyTorch", "MPI", "TF", "XGBoost"]),
        1i64..=64,
        proptest::option::of(spec()),
    )
        .prop_flat_map(|(name, spec, framework, workers, master)| {
            (proptest::option::of(1..=workers + 1)).prop_map(move |min| {
                let mut spec = spec.clone();
                spec["distributedFramework"] = json!(framework);
                spec["numWorkers"] = json!(workers);
                spec["command"] = json!("run");
                if let Some(min) = min {
                    spec["minReplicas"] = json!(min);
                }
                if let Some(mut master) = master.clone() {
                    master["command"] = json!("launch");
                    spec["master"] = master;
                }
                json!({ "name": name.clone(), "projectId": "p", "spec": spec })
            })
        })
}

fn check_consistent(value: &Value) -> Result<(), TestCaseError> {
    let kind = Kind::detect(value);
    let request = Request::parse(value, kind)
        .map_err(|e| TestCaseError::fail(format!("{e:#?}\n{value:#}")))?;
    let rendered = request
        .render(&workload(&request, kind), &ClusterProfile::default())
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
            prop_assert_eq!(replicas, t.spec.parallelism.unwrap_or(1));
            prop_assert_eq!(min_available, replicas);
            if let Some(completions) = t.spec.completions {
                prop_assert_eq!(spec["minSuccess"].as_i64(), Some(completions));
            }
        }
        Request::Generic(g) => {
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
            prop_assert_eq!(replicas, d.spec.num_workers + 1);
            prop_assert_eq!(min_available, d.spec.min_replicas.unwrap_or(replicas));
            prop_assert_eq!(&tasks[0]["policies"][0]["action"], "CompleteJob");
        }
    }
    Ok(())
}

fn generic() -> impl Strategy<Value = Value> {
    (
        "[a-z][a-z0-9-]{0,30}[a-z0-9]",
        prop::collection::btree_map("[a-z][a-z0-9]{0,7}", (spec(), 1i64..=16, proptest::option::of(0i64..=5)), 1..4),
        any::<bool>(),
        0u8..3,
        prop::sample::select(vec!["None", "Unfinished", "All"]),
    )
        .prop_map(|(name, replicas, rules, mode, clean_up)| {
            let types: Vec<String> = replicas.keys().cloned().collect();
            let specs: Vec<Value> = replicas
                .into_iter()
                .map(|(kind, (mut spec, n, limit))| {
                    spec.as_object_mut().unwrap().remove("autoDeletionTimeAfterCompletionSeconds");
                    let mut replica = json!({ "type": kind, "replicas": n, "spec": spec });
                    if let Some(limit) = limit {
                        replica["restartPolicy"] = json!({ "policy": "OnFailure", "limit": limit });
                    }
                    replica
                })
                .collect();
            let mut spec = json!({ "replicaSpecs": specs, "cleanUpPolicy": clean_up });
            if rules {
                spec["successRules"] = json!([{ "replicaTypes": [types[0]] }]);
                spec["failureRules"] = json!([{ "replicaTypes": types }]);
            }
            match mode {
                1 => spec["runMode"] = json!({ "debug": { "enabled": true, "replicaSpecs": [{ "type": types[0], "command": "sleep 60" }] } }),
                2 => spec["runMode"] = json!({ "pause": { "enabled": true, "resumeSpecs": [{ "type": types[0], "args": "--resume" }] } }),
                _ => {}
            }
            json!({ "name": name, "projectId": 3, "spec": spec })
        })
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
        for kind in [Kind::Training, Kind::Distributed, Kind::Generic] {
            match Request::parse(&value, kind) {
                Err(errors) => {
                    prop_assert!(!errors.is_empty());
                    for e in &errors {
                        prop_assert!(!e.path.is_empty() && !e.message.is_empty(), "{:?}", e);
                    }
                }
                Ok(request) => {
                    if let Err(errors) = request.render(&workload(&request, kind), &ClusterProfile::default()) {
                        prop_assert!(errors.iter().all(|e| !e.path.is_empty()));
                    }
                }
            }
        }
    }
}
