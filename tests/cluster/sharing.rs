//! GPU fractions on the testbed's vGPU cards (docs/MAPPING.md, "GPU sharing"): Run:ai's portion
//! becomes that share of a card's memory, and Volcano's deviceshare plugin places it on a card.

use crate::api::{TRAININGS, Tephra, id_of};
use anyhow::{Context, ensure};
use serde_json::json;
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

/// Two half-GPU trainings and the SDK README's whole-GPU portion run, each given a card with its
/// share of the memory; a memory request larger than any card waits with the scheduler's reason.
pub async fn gpu_portions_get_their_share_of_a_cards_memory(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let portion = |name: &str, p: f64| {
            json!({ "name": name, "projectId": "default", "spec": { "image": "busybox",
                "compute": { "gpuDevicesRequest": 1, "gpuRequestType": "portion",
                             "gpuPortionRequest": p } } })
        };
        let mut ids = Vec::new();
        for (name, p, mib) in [
            ("half-a", 0.5, 40960),
            ("half-b", 0.5, 40960),
            ("whole", 1.0, 81920),
        ] {
            let id = id_of(&t.submit(TRAININGS, &portion(name, p)).await?)?;
            ids.push((id, mib));
        }
        for (id, mib) in &ids {
            t.wait_phase(TRAININGS, id, "Running").await?;
            let pod = t.pods_of(id).await?.into_iter().next().context("a pod")?;
            let limits = pod
                .spec
                .as_ref()
                .and_then(|s| s.containers[0].resources.as_ref())
                .and_then(|r| r.limits.clone())
                .unwrap_or_default();
            ensure!(
                limits.get("volcano.sh/vgpu-memory").map(|q| q.0.clone()) == Some(mib.to_string()),
                "{limits:?}"
            );
            // What the scheduler gave it: one card's UUID with that much memory.
            let given = pod
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("volcano.sh/devices-to-allocate"))
                .cloned()
                .unwrap_or_default();
            ensure!(
                given.starts_with("GPU-") && given.contains(&format!(",NVIDIA,{mib},")),
                "the pod got a card with {mib} MiB: {given:?}"
            );
        }

        let too_big = json!({ "name": "too-big", "projectId": "default", "spec": {
            "image": "busybox", "compute": { "gpuDevicesRequest": 1, "gpuRequestType": "memory",
                                             "gpuMemoryRequest": "100Gi" } } });
        let id = id_of(&t.submit(TRAININGS, &too_big).await?)?;
        let waiting = t.wait_phase(TRAININGS, &id, "Pending").await?;
        ensure!(
            waiting["phaseMessage"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{waiting}"
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
