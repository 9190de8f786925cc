//! Generators of valid training requests of every kind, shared by the property tests of the
//! translation and the schema test (which includes this file by path).

#![allow(dead_code)]

use proptest::prelude::*;
use serde_json::{Value, json};

pub fn compute() -> impl Strategy<Value = Value> {
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

pub fn toleration() -> impl Strategy<Value = Value> {
    prop_oneof![
        ("[a-z]{1,10}", prop::sample::select(vec!["NoSchedule", "PreferNoSchedule", "Any"]))
            .prop_map(|(key, effect)| json!({ "operator": "Exists", "key": key, "effect": effect })),
        ("[a-z]{1,10}", "[a-z0-9]{0,10}", 0i64..=3600)
            .prop_map(|(key, value, seconds)| json!({ "operator": "Equal", "key": key, "value": value, "effect": "NoExecute", "seconds": seconds })),
    ]
}

pub fn spec() -> impl Strategy<Value = Value> {
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

pub fn training() -> impl Strategy<Value = Value> {
    ("[a-z][a-z0-9-]{0,30}[a-z0-9]", spec(), 1i64..=16, any::<bool>()).prop_flat_map(|(name, spec, parallelism, prefix)| {
        // Completions may exceed parallelism (Run:ai: successful pods in total vs pods at a time).
        (0..=2 * parallelism).prop_map(move |completions| {
            let mut spec = spec.clone();
            spec["parallelism"] = json!(parallelism);
            if completions > 0 {
                spec["completions"] = json!(completions);
            }
            json!({ "name": name.clone(), "projectId": 1, "useGivenNameAsPrefix": prefix, "spec": spec })
        })
    })
}

pub fn distributed() -> impl Strategy<Value = Value> {
    (
        "[a-z][a-z0-9-]{0,30}[a-z0-9]",
        spec(),
        prop::sample::select(vec!["PyTorch", "MPI", "TF", "XGBoost"]),
        1i64..=64,
        proptest::option::of(spec()),
    )
        .prop_flat_map(|(name, spec, framework, workers, master)| {
            (proptest::option::of(1..=workers)).prop_map(move |min| {
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

pub fn generic() -> impl Strategy<Value = Value> {
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
                    let own = spec.as_object_mut().unwrap();
                    own.remove("autoDeletionTimeAfterCompletionSeconds");
                    // The replica type's restartPolicy says it in a generic job.
                    own.remove("restartPolicy");
                    let mut replica = json!({ "type": kind, "replicas": n, "spec": spec });
                    if let Some(limit) = limit {
                        replica["restartPolicy"] = json!({ "policy": "OnFailure", "limit": limit });
                    }
                    replica
                })
                .collect();
            let mut spec = json!({ "replicaSpecs": specs, "cleanUpPolicy": clean_up });
            if rules {
                spec["successRules"] = json!([{ types[0].clone(): [0] }]);
                let every: serde_json::Map<String, Value> =
                    types.iter().map(|t| (t.clone(), json!([0]))).collect();
                spec["failureRules"] = json!([every]);
            }
            match mode {
                1 => spec["runMode"] = json!({ "debug": { "enabled": true, "replicaSpecs": [{ "type": types[0], "command": "sleep 60" }] } }),
                2 => spec["runMode"] = json!({ "pause": { "enabled": true, "resumeSpecs": [{ "type": types[0], "args": "--resume" }] } }),
                _ => {}
            }
            json!({ "name": name, "projectId": 3, "spec": spec })
        })
}
