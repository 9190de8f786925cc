//! The testbed's numbers: time to ready with the binaries already built, memory of every
//! component at idle and with 200 running pods, and the size of what the build caches. Cold build
//! time is printed by `testbed/build` itself. Run with `scripts/bench`.

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use serde_json::json;
use std::time::{Duration, Instant};
use tephra_tests::process::rss_mib;
use tephra_tests::testbed::{Testbed, job_resource};

#[derive(serde::Deserialize)]
struct State {
    components: Vec<Component>,
}

#[derive(serde::Deserialize)]
struct Component {
    name: String,
    pid: u32,
}

fn memory(testbed: &Testbed) -> anyhow::Result<Vec<(String, f64)>> {
    let state: State =
        serde_json::from_str(&std::fs::read_to_string(testbed.dir.join("testbed.json"))?)?;
    Ok(state
        .components
        .iter()
        .map(|c| (c.name.clone(), rss_mib(c.pid)))
        .collect())
}

fn du(path: &std::path::Path) -> String {
    std::process::Command::new("du")
        .arg("-sh")
        .arg(path)
        .output()
        .ok()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .next()
                .unwrap_or("?")
                .to_owned()
        })
        .unwrap_or_else(|| "?".into())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    let testbed = Testbed::start()?;
    let ready = started.elapsed();
    println!("## Testbed (4 nodes x 8 GPUs, binaries already built)\n");
    println!("| measure | value |\n|---|---|");
    println!(
        "| `testbed/run up` to ready | {:.1} s |",
        ready.as_secs_f64()
    );

    tokio::time::sleep(Duration::from_secs(5)).await;
    let idle = memory(&testbed)?;

    let client = testbed.client().await?;
    let ns = testbed.namespace(&client, "bench").await?;
    let jobs: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &job_resource());
    let job: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": { "name": "many" },
        "spec": {
            "schedulerName": "volcano", "queue": "default", "minAvailable": 200,
            "tasks": [{ "name": "worker", "replicas": 200, "template": { "spec": {
                "schedulerName": "volcano", "restartPolicy": "Never",
                "containers": [{ "name": "worker", "image": "busybox",
                    "resources": { "requests": { "cpu": "100m", "memory": "64Mi" } } }]
            } } }]
        }
    }))?;
    let submitted = Instant::now();
    jobs.create(&PostParams::default(), &job).await?;
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    loop {
        let running = pods
            .list(&ListParams::default())
            .await?
            .items
            .iter()
            .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
            .count();
        if running == 200 {
            break;
        }
        anyhow::ensure!(
            submitted.elapsed() < Duration::from_secs(300),
            "only {running} of 200 pods running"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    println!(
        "| a 200-pod gang from submit to all Running | {:.1} s |",
        submitted.elapsed().as_secs_f64()
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    let busy = memory(&testbed)?;

    println!("\n| component | RSS idle | RSS with 200 running pods |\n|---|---|---|");
    let (mut idle_total, mut busy_total) = (0.0, 0.0);
    for ((name, idle), (_, busy)) in idle.iter().zip(&busy) {
        println!("| {name} | {idle:.0} MiB | {busy:.0} MiB |");
        idle_total += idle;
        busy_total += busy;
    }
    println!("| **total** | {idle_total:.0} MiB | {busy_total:.0} MiB |");

    let home = std::env::var("HOME").unwrap_or_default();
    let cache = std::env::var("TEPHRA_CACHE").unwrap_or_else(|_| format!("{home}/.cache/tephra"));
    println!("\n| cache | size |\n|---|---|");
    println!(
        "| built binaries (`{cache}/testbed`) | {} |",
        du(std::path::Path::new(&format!("{cache}/testbed")))
    );
    println!(
        "| Go module cache (`~/go/pkg/mod`) | {} |",
        du(std::path::Path::new(&format!("{home}/go/pkg/mod")))
    );
    println!(
        "| Go build cache (`~/.cache/go-build`) | {} |",
        du(std::path::Path::new(&format!("{home}/.cache/go-build")))
    );
    Ok(())
}
