//! Reading a workload's pod logs for a principal who may read the workload.

use super::Workloads;
use crate::cluster::{NO_CLUSTER, logs};
use app::error::AppError;
use futures::Stream;
use tephra_core::domain::logs::{LogRequest, LogsQuery};
use tephra_core::model::principal::Principal;

impl Workloads {
    /// The checked request and its lines: `pod` must be one of the workload's pods now.
    pub async fn pod_logs(
        &self,
        principal: &Principal,
        workload_id: &str,
        pod: &str,
        query: LogsQuery,
    ) -> Result<
        (
            LogRequest,
            impl Stream<Item = std::io::Result<String>> + Send + use<>,
        ),
        AppError,
    > {
        // Checked before any call: the name becomes a segment of the API server's URL, where
        // an encoded `?` or `/` would turn the log read into a read of something else.
        tephra_core::model::validation::dns1123_subdomain(pod)
            .map_err(|why| AppError::field("pod", format!("is not a pod name: {why}")))?;
        let listing = self.watched(principal, workload_id).await?;
        let project = self.db.projects().get(listing.workload.project_id).await?;
        let client = self
            .cluster
            .client
            .as_ref()
            .ok_or_else(|| AppError::Unavailable(format!("no logs: {NO_CLUSTER}")))?;
        let job = &listing.workload.name;
        let containers = logs::pod_of_job(client, &project.namespace, pod, job)
            .await
            .map_err(unreadable)?
            .ok_or_else(|| {
                AppError::NotFound(format!(
                    "the workload {job:?} has no pod named {pod:?} now; its detail lists the pods it has"
                ))
            })?;
        let request = LogRequest::parse(query, &containers).map_err(AppError::Rejected)?;
        let lines = logs::lines(client, &project.namespace, pod, &request)
            .await
            .map_err(unreadable)?;
        Ok((request, lines))
    }
}

impl Workloads {
    /// The last lines of the workload's logs Tephra kept when it failed, for a principal who
    /// may read its logs.
    pub async fn kept_logs(
        &self,
        principal: &Principal,
        workload_id: &str,
    ) -> Result<Vec<tephra_core::model::kept::KeptLog>, AppError> {
        let listing = self.watched(principal, workload_id).await?;
        Ok(self.db.workloads().kept_logs(listing.workload.id).await?)
    }
}

/// What the API server said, for the reader: it refuses logs that do not exist yet (a container
/// still starting) or any more (no previous run) with 400.
fn unreadable(error: kube::Error) -> AppError {
    match error {
        kube::Error::Api(status) if status.code == 400 => {
            AppError::Conflict(format!("the logs cannot be read now: {}", status.message))
        }
        kube::Error::Api(status) if status.code == 404 => {
            AppError::NotFound(format!("the logs are gone: {}", status.message))
        }
        other => AppError::Unavailable(format!("the cluster did not give the logs: {other}")),
    }
}
