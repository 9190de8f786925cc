//! The projects' idle GPU rule (Run:ai's `schedulingRules.trainingJobMaxIdleDurationSeconds`):
//! a running workload whose GPUs all stayed idle longer than its project allows is suspended,
//! as if someone had pressed Suspend, with the reason in its history and the audit trail. It can
//! be resumed as any suspended workload.
//!
//! A controller beside the workloads controller, not a use case: only the replica that leads applies it,
//! so two replicas never judge the same training, and it changes the workload through the same
//! guarded transition a person's Suspend takes.

use super::ClusterHandle;
use crate::db::workloads::{Change, WorkloadFilter, WorkloadListing};
use crate::db::{Database, DbError};
use crate::prometheus::Prometheus;
use std::time::Duration;
use tephra_core::domain::gpu_use::{Idleness, PodSeries, idle_reason, judge, utilisation_by_pod};
use tephra_core::model::phase::Phase;

/// How often the rule is applied: often enough that a training is suspended within a small
/// part of any threshold (the shortest is a minute).
pub const IDLE_CHECK_EVERY: Duration = Duration::from_secs(15);

/// Samples over the threshold's window: enough that a short busy spell shows.
const SAMPLES: u64 = 30;

/// The idle GPU rule's controller, holding only what it needs.
#[derive(Clone)]
pub struct IdleRule {
    db: Database,
    prometheus: Prometheus,
    cluster: ClusterHandle,
}

impl IdleRule {
    pub fn new(db: Database, prometheus: Prometheus, cluster: ClusterHandle) -> Self {
        IdleRule {
            db,
            prometheus,
            cluster,
        }
    }

    /// Applies the rule every [`IDLE_CHECK_EVERY`] while this replica leads, for as long as the
    /// process runs (supervised).
    pub async fn run(self) {
        self.cluster
            .every_while_leading(IDLE_CHECK_EVERY, "the idle GPU rule", || self.apply())
            .await
    }

    /// One pass over the projects with the rule; returns how many workloads it suspended.
    async fn apply(&self) -> Result<usize, DbError> {
        let prometheus = &self.prometheus;
        let mut suspended = 0;
        for project in self.db.projects().with_idle_rule().await? {
            let Some(seconds) = project
                .scheduling_rules
                .as_ref()
                .and_then(|r| r.training_job_max_idle_duration_seconds)
            else {
                continue;
            };
            let filter = WorkloadFilter {
                project_id: Some(project.id),
                actual_phase: Some(Phase::Running),
                ..WorkloadFilter::default()
            };
            for listing in self.db.workloads().list(&filter).await? {
                if listing.workload.desired_phase != Phase::Running {
                    continue;
                }
                let idle = idleness(prometheus, &project.namespace, &listing, seconds).await;
                match idle {
                    Idleness::Idle { seconds } => {
                        if self.suspend_idle(&listing, seconds).await? {
                            suspended += 1;
                        }
                    }
                    Idleness::Busy => {}
                    Idleness::Unknown(why) => {
                        tracing::debug!(workload = %listing.workload.id, why, "idle rule: not judged");
                    }
                }
            }
        }
        Ok(suspended)
    }

    /// Records the suspension if the workload is still meant to run (a person may have acted
    /// meanwhile: then theirs stands).
    async fn suspend_idle(&self, listing: &WorkloadListing, seconds: u64) -> Result<bool, DbError> {
        let w = &listing.workload;
        let reason = idle_reason(seconds);
        let change = Change {
            actor: None,
            action: tephra_core::model::history::HistoryAction::IdleSuspend,
            detail: serde_json::json!({
                "from": Phase::Running,
                "to": Phase::Stopped,
                "reason": reason,
                "rule": "schedulingRules.trainingJobMaxIdleDurationSeconds",
                "idleSeconds": seconds,
            }),
        };
        let won = self
            .db
            .workloads()
            .transition(w.id, Phase::Running, Phase::Stopped, change)
            .await?;
        if won.is_some() {
            self.cluster.poke(w.id);
            tracing::info!(workload = %w.id, project = %listing.project_name, idle_seconds = seconds, "suspended a workload whose GPUs were idle");
        }
        Ok(won.is_some())
    }
}

/// What the rule decides for one workload, from its GPU pods' utilisation over the window.
async fn idleness(
    prometheus: &Prometheus,
    namespace: &str,
    listing: &WorkloadListing,
    seconds: u64,
) -> Idleness {
    let gpu_pods: Vec<String> = listing
        .workload
        .status
        .pods
        .iter()
        .filter(|p| p.gpus > 0 && p.phase == "Running")
        .map(|p| p.name.clone())
        .collect();
    if gpu_pods.is_empty() {
        return Idleness::Unknown("no running pod holds a GPU".into());
    }
    let end = chrono::Utc::now().timestamp() as f64;
    let step = (seconds / SAMPLES).max(1) as f64;
    let query = utilisation_by_pod(namespace, &listing.workload.name);
    match prometheus
        .range(&query, end - seconds as f64, end, step)
        .await
    {
        Ok(found) => {
            let series: Vec<PodSeries> = found
                .into_iter()
                .map(|(labels, samples)| PodSeries {
                    pod: labels.get("pod").cloned().unwrap_or_default(),
                    samples,
                })
                .collect();
            judge(&gpu_pods, &series, end, seconds, step)
        }
        Err(e) => Idleness::Unknown(e.to_string()),
    }
}
