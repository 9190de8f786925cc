//! Run:ai's meaning of a request's fields, on the real scheduler.

use crate::api::{TRAININGS, Tephra, id_of};
use serde_json::json;
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

/// Run:ai's `completions` counts successful pods in total and `parallelism` the pods at a time:
/// three completions with a parallelism of one create three pods, the gang gate is one, and the
/// training completes when all three succeed.
pub async fn completions_beyond_parallelism_run_every_pod_and_complete_when_all_succeed(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let body = json!({ "name": "sweep", "projectId": "default",
            "spec": { "image": "busybox", "parallelism": 1, "completions": 3 } });
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        let running = t
            .wait_until(TRAININGS, &id, "three pods running", |b| {
                b["status"]["tasks"]["train"]["running"] == 3
            })
            .await?;
        assert_eq!(running["status"]["podGroup"]["minMember"], 1, "{running}");
        t.finish_pods(&id, None, "Succeeded").await?;
        t.wait_phase(TRAININGS, &id, "Completed").await?;
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
