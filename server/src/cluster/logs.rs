//! A workload's pod logs, read through the Kubernetes logs API (the kubelet serves them; the API
//! server relays), line by line so a follower sees each line as the container writes it.

use crate::domain::logs::{LogRequest, MAX_BYTES, Tail};
use futures::{AsyncBufReadExt, Stream, StreamExt};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, LogParams};

/// A pod of the Job named `job`, with its containers: its own in order, then its init
/// containers (a git clone runs in one). `None` when no such pod is in `namespace`, or it
/// belongs to another Job: a workload's reader sees that workload's pods only.
pub async fn pod_of_job(
    client: &kube::Client,
    namespace: &str,
    pod: &str,
    job: &str,
) -> Result<Option<Vec<String>>, kube::Error> {
    let Some(found) = Api::<Pod>::namespaced(client.clone(), namespace)
        .get_opt(pod)
        .await?
    else {
        return Ok(None);
    };
    // The Job's controller reference, not a label anyone creating a pod could copy.
    let owned = found.metadata.owner_references.iter().flatten().any(|r| {
        r.controller == Some(true)
            && r.kind == "Job"
            && r.api_version.starts_with("batch.volcano.sh/")
            && r.name == job
    });
    if !owned {
        return Ok(None);
    }
    let spec = found.spec.unwrap_or_default();
    Ok(Some(
        spec.containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .map(|c| c.name.clone())
            .collect(),
    ))
}

/// The lines `request` asks for, each without its line break; the stream ends when the
/// container's log does (at once without `follow`; when the container stops with it).
pub async fn lines(
    client: &kube::Client,
    namespace: &str,
    pod: &str,
    request: &LogRequest,
) -> Result<impl Stream<Item = std::io::Result<String>> + Send + use<>, kube::Error> {
    let params = LogParams {
        container: Some(request.container.clone()),
        follow: request.follow,
        // A follower's answer is open-ended by design; a one-off answer is bounded.
        limit_bytes: (!request.follow).then_some(MAX_BYTES),
        previous: request.previous,
        since_seconds: request.since_seconds,
        tail_lines: match request.tail {
            Tail::Lines(n) => Some(n),
            Tail::All => None,
        },
        timestamps: request.timestamps,
        ..LogParams::default()
    };
    let reader = Api::<Pod>::namespaced(client.clone(), namespace)
        .log_stream(pod, &params)
        .await?;
    Ok(reader.lines().boxed())
}
