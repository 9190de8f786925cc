//! Each test starts on an empty cluster: the harness waits after a test until every pod in the
//! namespaces it made (its own and the project namespaces Tephra made for it) is gone, so the next
//! test finds all 32 GPUs free. A pod that does not go fails the test that left it. A test that
//! failed may not have run its own cleanup, so the harness deletes the namespaces it made.

use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, DeleteParams, ListParams};
use std::collections::BTreeSet;
use std::time::Duration;

/// Long enough for the namespace controller to remove a few dozen pods on a busy 2-core machine.
const SETTLE: Duration = Duration::from_secs(120);

/// The namespaces that exist now.
pub async fn namespaces(client: &kube::Client) -> Result<BTreeSet<String>, String> {
    let list = Api::<Namespace>::all(client.clone())
        .list(&ListParams::default())
        .await
        .map_err(|e| format!("cannot list namespaces: {e}"))?;
    Ok(list
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect())
}

/// Deletes every namespace made since `before` but the release namespace (the chart account's,
/// which later tests share): after a failed test, whose cleanup may have stopped half way (a
/// panic skips it), its project namespaces would otherwise keep their Jobs, and those Jobs'
/// pods the GPUs later tests need.
pub async fn remove_namespaces_since(client: &kube::Client, before: &BTreeSet<String>) {
    let Ok(now) = namespaces(client).await else {
        return;
    };
    let api = Api::<Namespace>::all(client.clone());
    for ns in now.difference(before) {
        if ns == tephra_tests::chart::RELEASE_NAMESPACE {
            continue;
        }
        if let Err(e) = api.delete(ns, &DeleteParams::default()).await {
            eprintln!("cannot delete {ns}, which the failed test made: {e}");
        }
    }
}

/// Waits until no pod is left in a namespace beyond `before` (the namespaces themselves may
/// take a few seconds more, holding nothing); after [`SETTLE`], names the pods left.
pub async fn settle(client: &kube::Client, before: &BTreeSet<String>) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + SETTLE;
    loop {
        let left: Vec<Pod> = Api::<Pod>::all(client.clone())
            .list(&ListParams::default())
            .await
            .map_err(|e| format!("cannot list pods: {e}"))?
            .items
            .into_iter()
            .filter(|p| {
                p.metadata
                    .namespace
                    .as_ref()
                    .is_some_and(|ns| !before.contains(ns))
            })
            .collect();
        if left.is_empty() {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            let pods: Vec<String> = left.iter().map(describe).collect();
            return Err(format!(
                "the test left pods that did not go within {SETTLE:?}: {}",
                pods.join(", ")
            ));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// namespace/name (phase, node, whether it is being deleted).
fn describe(p: &Pod) -> String {
    format!(
        "{}/{} ({}, node {}, {})",
        p.metadata.namespace.as_deref().unwrap_or("?"),
        p.metadata.name.as_deref().unwrap_or("?"),
        p.status
            .as_ref()
            .and_then(|s| s.phase.as_deref())
            .unwrap_or("?"),
        p.spec
            .as_ref()
            .and_then(|s| s.node_name.as_deref())
            .unwrap_or("none"),
        if p.metadata.deletion_timestamp.is_some() {
            "deleting"
        } else {
            "not deleted"
        }
    )
}

/// Kills the Tephra servers this process started that still run after their test, and names
/// them: one left behind would go on reconciling and make its Jobs again after the namespace went.
pub fn stop_stray_servers() -> Result<(), String> {
    let me = std::process::id();
    let strays: Vec<u32> = std::fs::read_dir("/proc")
        .map_err(|e| format!("cannot read /proc: {e}"))?
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // "pid (comm) state ppid ..."; comm has no ')' for the processes we look for.
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let parent = stat
                    .rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                    .and_then(|ppid| ppid.parse::<u32>().ok());
                stat.contains(" (tephra) ") && parent == Some(me)
            })
        })
        .collect();
    if strays.is_empty() {
        return Ok(());
    }
    for pid in &strays {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    Err(format!(
        "the test left Tephra servers running (pids {strays:?}); they were killed"
    ))
}

/// Every pod bound to a node that asks for GPUs, in any namespace: said when a test fails, so a
/// test that waited for GPUs names what held them.
pub async fn gpu_holders(client: &kube::Client) -> String {
    let pods = match Api::<Pod>::all(client.clone())
        .list(&ListParams::default())
        .await
    {
        Ok(list) => list.items,
        Err(e) => return format!("cannot list pods: {e}"),
    };
    let holders: Vec<String> = pods
        .iter()
        .filter(|p| p.spec.as_ref().is_some_and(|s| s.node_name.is_some()))
        .filter(|p| {
            p.spec.as_ref().is_some_and(|s| {
                s.containers.iter().any(|c| {
                    c.resources
                        .as_ref()
                        .and_then(|r| r.requests.as_ref())
                        .is_some_and(|r| r.contains_key("nvidia.com/gpu"))
                })
            })
        })
        .map(describe)
        .collect();
    if holders.is_empty() {
        "no bound pod asks for GPUs".to_owned()
    } else {
        format!("bound pods asking for GPUs: {}", holders.join(", "))
    }
}
