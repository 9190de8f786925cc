//! Prometheus metrics, served at `/metrics` in the text exposition format (OpenMetrics): what the
//! HTTP server answers and how fast, what the controller does, and, read when scraped, the
//! workloads by phase and project, whether the cluster answers, the event-stream clients and the
//! database pool. One `Metrics` per server (tests run several in one process), shared by `Arc`.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Metric, Registry};
use std::sync::Arc;
use std::time::Instant;

/// The content type of what [`Metrics::encode`] writes.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    /// The route's pattern (`/api/v1/workloads/trainings/{id}`), never the path itself, so the
    /// series stay few; `unmatched` for static files and unknown paths.
    route: String,
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WorkloadLabels {
    project: String,
    phase: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolLabels {
    state: String,
}

/// How a reconcile of one workload ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reconciled {
    Ok,
    /// Retried with backoff (the cluster did not answer, a conflict, a missing secret).
    Retried,
    /// Retrying alone will not fix it (a taken name, a request that no longer renders).
    Permanent,
}

impl Reconciled {
    fn as_str(self) -> &'static str {
        match self {
            Reconciled::Ok => "ok",
            Reconciled::Retried => "error",
            Reconciled::Permanent => "permanent_error",
        }
    }
}

/// What is read when scraped rather than counted as it happens.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Live workloads (not deleted): project name, actual phase, how many.
    pub workloads: Vec<(String, String, i64)>,
    /// `None` without a cluster configured.
    pub cluster_reachable: Option<bool>,
    /// Open connections, idle ones among them, and the most the pool opens.
    pub pool: (u32, u32, u32),
    /// Whether this replica reconciles (holds the leader Lease, or is the only one).
    pub leading: bool,
}

/// Registers a metric and hands back the handle that updates it (handles share their value).
struct Register<'a>(&'a mut Registry);

impl Register<'_> {
    fn metric<M: Metric + Clone>(&mut self, name: &str, help: &str, metric: M) -> M {
        self.0.register(name, help, metric.clone());
        metric
    }
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Family<RouteLabels, Histogram>,
    reconciles: Family<OutcomeLabels, Counter>,
    reconcile_seconds: Histogram,
    workloads: Family<WorkloadLabels, Gauge>,
    cluster_reachable: Gauge,
    cluster_configured: Gauge,
    sse_clients: Gauge,
    pool: Family<PoolLabels, Gauge>,
    leader: Gauge,
    /// Scrapes set the scrape-time gauges one at a time.
    scrape: tokio::sync::Mutex<()>,
}

impl Metrics {
    pub fn new() -> Arc<Metrics> {
        let mut registry = Registry::with_prefix("tephra");
        let mut add = Register(&mut registry);
        // 1 ms to about 16 s.
        let seconds = || Histogram::new(exponential_buckets(0.001, 2.0, 15));
        Arc::new(Metrics {
            requests: add.metric(
                "http_requests",
                "HTTP requests answered, by method, route and status",
                Family::default(),
            ),
            request_seconds: add.metric(
                "http_request_duration_seconds",
                "How long requests took to answer (for event streams: until the stream opened)",
                Family::new_with_constructor(seconds),
            ),
            reconciles: add.metric(
                "reconcile_runs",
                "Reconciles of one workload, by outcome (ok, error, permanent_error)",
                Family::default(),
            ),
            reconcile_seconds: add.metric(
                "reconcile_duration_seconds",
                "How long reconciling one workload took",
                seconds(),
            ),
            workloads: add.metric(
                "workloads",
                "Live workloads by project and actual phase",
                Family::default(),
            ),
            cluster_reachable: add.metric(
                "cluster_reachable",
                "1 when the Kubernetes API server answers and every cluster task runs",
                Gauge::default(),
            ),
            cluster_configured: add.metric(
                "cluster_configured",
                "1 when Tephra has a cluster to manage",
                Gauge::default(),
            ),
            sse_clients: add.metric(
                "sse_clients",
                "Open event streams (dashboard pages and API clients following workloads)",
                Gauge::default(),
            ),
            pool: add.metric(
                "db_pool_connections",
                "Database connections by state (in_use, idle, max)",
                Family::default(),
            ),
            leader: add.metric(
                "reconciler_leader",
                "1 when this replica reconciles (it holds the leader Lease, or runs alone)",
                Gauge::default(),
            ),
            registry,
            scrape: tokio::sync::Mutex::new(()),
        })
    }

    pub fn reconciled(&self, outcome: Reconciled, started: Instant) {
        let labels = OutcomeLabels {
            outcome: outcome.as_str().to_owned(),
        };
        self.reconciles.get_or_create(&labels).inc();
        self.reconcile_seconds
            .observe(started.elapsed().as_secs_f64());
    }

    /// Counts an open event stream until the guard is dropped (the client went away).
    pub fn stream_opened(self: &Arc<Self>) -> StreamGuard {
        self.sse_clients.inc();
        StreamGuard(Arc::clone(self))
    }

    /// Everything, with the scrape-time gauges set from `snapshot`.
    pub async fn encode(&self, snapshot: Snapshot) -> Result<String, std::fmt::Error> {
        let _one_at_a_time = self.scrape.lock().await;
        // A project or phase with no workloads left must not keep its last count.
        self.workloads.clear();
        for (project, phase, count) in snapshot.workloads {
            self.workloads
                .get_or_create(&WorkloadLabels { project, phase })
                .set(count);
        }
        let configured = snapshot.cluster_reachable.is_some();
        self.cluster_configured.set(i64::from(configured));
        self.cluster_reachable
            .set(i64::from(snapshot.cluster_reachable == Some(true)));
        self.leader.set(i64::from(snapshot.leading));
        let (size, idle, max) = snapshot.pool;
        for (state, value) in [
            ("in_use", size.saturating_sub(idle)),
            ("idle", idle),
            ("max", max),
        ] {
            self.pool
                .get_or_create(&PoolLabels {
                    state: state.to_owned(),
                })
                .set(i64::from(value));
        }
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

/// Decrements the event-stream gauge when the stream ends.
pub struct StreamGuard(Arc<Metrics>);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.0.sse_clients.dec();
    }
}

/// Middleware: counts and times every request by its route's pattern.
pub async fn track(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    metrics
        .request_seconds
        .get_or_create(&RouteLabels {
            method: method.clone(),
            route: route.clone(),
        })
        .observe(started.elapsed().as_secs_f64());
    metrics
        .requests
        .get_or_create(&RequestLabels {
            method,
            route,
            status,
        })
        .inc();
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn scrape_time_gauges_follow_the_snapshot_and_forget_what_is_gone() {
        let metrics = Metrics::new();
        let snapshot = Snapshot {
            workloads: vec![("vision".into(), "Running".into(), 3)],
            cluster_reachable: Some(true),
            pool: (4, 1, 10),
            leading: true,
        };
        let text = metrics.encode(snapshot).await.unwrap();
        assert!(
            text.contains("tephra_workloads{project=\"vision\",phase=\"Running\"} 3"),
            "{text}"
        );
        assert!(text.contains("tephra_cluster_reachable 1"), "{text}");
        assert!(text.contains("tephra_reconciler_leader 1"), "{text}");
        assert!(
            text.contains("tephra_db_pool_connections{state=\"in_use\"} 3"),
            "{text}"
        );
        let text = metrics.encode(Snapshot::default()).await.unwrap();
        assert!(!text.contains("project=\"vision\""), "{text}");
        assert!(text.contains("tephra_cluster_configured 0"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[tokio::test]
    async fn an_event_stream_counts_while_it_is_open() {
        let metrics = Metrics::new();
        let guard = metrics.stream_opened();
        let text = metrics.encode(Snapshot::default()).await.unwrap();
        assert!(text.contains("tephra_sse_clients 1"), "{text}");
        drop(guard);
        let text = metrics.encode(Snapshot::default()).await.unwrap();
        assert!(text.contains("tephra_sse_clients 0"), "{text}");
    }

    #[tokio::test]
    async fn reconciles_are_counted_by_outcome() {
        let metrics = Metrics::new();
        metrics.reconciled(Reconciled::Ok, Instant::now());
        metrics.reconciled(Reconciled::Retried, Instant::now());
        metrics.reconciled(Reconciled::Retried, Instant::now());
        let text = metrics.encode(Snapshot::default()).await.unwrap();
        assert!(
            text.contains("tephra_reconcile_runs_total{outcome=\"error\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("tephra_reconcile_duration_seconds_count 3"),
            "{text}"
        );
    }
}
