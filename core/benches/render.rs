//! Renders per second: parse + validate + translate, for the seed 003 request and for a 64-worker
//! PyTorch request. Prints figures; asserts nothing. Run with `cargo bench -p tephra-core --bench render`.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{fixture, placement, profile};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::request::{Request, WorkloadKind};

fn measure(label: &str, value: &Value, profile: &ClusterProfile) {
    let kind = WorkloadKind::detect(value);
    let once = || {
        let request = Request::parse(value, kind).expect("valid request");
        request
            .render(&request.owner(&placement(None)), profile)
            .expect("renders")
    };
    let rendered = once();
    let yaml = serde_yaml::to_string(&rendered.job).unwrap();
    // Warm up, then time individual renders for percentiles and a batch for throughput.
    for _ in 0..200 {
        black_box(once());
    }
    let mut samples: Vec<Duration> = (0..2000)
        .map(|_| {
            let start = Instant::now();
            black_box(once());
            start.elapsed()
        })
        .collect();
    samples.sort();
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    let batch = 5000;
    let start = Instant::now();
    for _ in 0..batch {
        black_box(once());
    }
    let per_second = f64::from(batch) / start.elapsed().as_secs_f64();
    let to_yaml_start = Instant::now();
    for _ in 0..200 {
        black_box(serde_yaml::to_string(&rendered.job).unwrap());
    }
    let yaml_time = to_yaml_start.elapsed() / 200;
    println!(
        "| {label} | {per_second:.0} | {:.1} µs | {:.1} µs | {:.1} µs | {:.1} KiB |",
        p(0.5).as_secs_f64() * 1e6,
        p(0.99).as_secs_f64() * 1e6,
        yaml_time.as_secs_f64() * 1e6,
        yaml.len() as f64 / 1024.0
    );
}

fn main() {
    let seed = fixture("seed-003-consistent.json");
    let profile = profile();
    let pytorch = json!({
        "name": "ddp-64", "projectId": 1,
        "spec": {
            "distributedFramework": "PyTorch", "numWorkers": 64,
            "image": "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
            "command": "torchrun", "args": "--nnodes=65 --nproc_per_node=8 train.py",
            "compute": { "gpuDevicesRequest": 8, "cpuCoreRequest": 32, "cpuMemoryRequest": "256Gi", "largeShmRequest": true },
            "tolerations": [{ "key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule" }],
            "storage": { "nfs": [{ "server": "nfs.example", "path": "/datasets", "mountPath": "/data", "readOnly": true }] }
        }
    });
    println!("| request | renders/s | p50 | p99 | Job to YAML | Job YAML size |");
    println!("|---|---|---|---|---|---|");
    measure("seed 003 (every field)", &seed, &profile);
    measure("PyTorch, 64 workers", &pytorch, &profile);
}
