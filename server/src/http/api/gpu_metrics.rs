//! `GET /api/v1/workloads/{id}/metrics`: a workload's GPU use in Run:ai's shape (`metricType`
//! repeated, `start`, `end`, `numberOfSamples`; an answer of `measurements`, each a type, its
//! labels and its values), from Prometheus's DCGM figures. One measurement per pod and type
//! (labels `{"pod": …}`), and one for the whole workload (labels `null`): the mean utilisation,
//! the total memory.

use super::error::{BadRequest, NotFound, Unauthorized};
use super::{Acting, ApiError};
use crate::http::AppState;
use crate::service::Services;
use crate::service::workloads::Span;
use app::error::AppError;
use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use tephra_core::model::gpu_use::PodGpuUse;
use tephra_core::model::validation::FieldError;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/workloads/{id}/metrics", get(workload_metrics))
}

const UTILISATION: &str = "GPU_UTILIZATION";
const MEMORY: &str = "GPU_MEMORY_USAGE_BYTES";
const DEFAULT_SAMPLES: u32 = 20;

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MetricsAnswer {
    pub measurements: Vec<Measurement>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Measurement {
    /// `GPU_UTILIZATION` (percent) or `GPU_MEMORY_USAGE_BYTES`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `{"pod": name}` for one pod; `null` for the whole workload.
    pub labels: Option<BTreeMap<String, String>>,
    pub values: Vec<Sample>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Sample {
    /// As Run:ai writes it: a number in a string.
    pub value: String,
    /// RFC 3339.
    pub timestamp: String,
}

/// What the query asks, checked: every error names the parameter.
#[derive(Debug, PartialEq)]
struct Asked {
    kinds: Vec<&'static str>,
    span: Span,
}

fn parse(pairs: &[(String, String)], now: DateTime<Utc>) -> Result<Asked, AppError> {
    let mut errors = Vec::new();
    let mut bad = |field: &str, message: String| {
        errors.push(FieldError {
            path: field.to_owned(),
            message,
        })
    };
    let mut kinds = Vec::new();
    let (mut start, mut end, mut samples) = (None, None, DEFAULT_SAMPLES);
    for (key, value) in pairs {
        let time = |value: &str| DateTime::parse_from_rfc3339(value).map(|t| t.with_timezone(&Utc));
        match key.as_str() {
            "metricType" => match value.as_str() {
                UTILISATION => kinds.push(UTILISATION),
                MEMORY => kinds.push(MEMORY),
                other => bad(
                    "metricType",
                    format!("{other:?} is not served: {UTILISATION} or {MEMORY}"),
                ),
            },
            "start" | "end" => match time(value) {
                Ok(t) if key == "start" => start = Some(t),
                Ok(t) => end = Some(t),
                Err(_) => bad(key, format!("{value:?} is not an RFC 3339 time")),
            },
            "numberOfSamples" => match value.parse::<u32>() {
                Ok(n) if (1..=1000).contains(&n) => samples = n,
                _ => bad(
                    "numberOfSamples",
                    format!("{value:?} is not allowed: 1 to 1000"),
                ),
            },
            other => bad(
                other,
                "unknown parameter: metricType, start, end, numberOfSamples".into(),
            ),
        }
    }
    // An unknown type already has its error; this one is for a query that named none.
    if !pairs.iter().any(|(key, _)| key == "metricType") {
        bad(
            "metricType",
            format!("name at least one: {UTILISATION}, {MEMORY}"),
        );
    }
    let end = end.unwrap_or(now);
    let start = start.unwrap_or(end - chrono::Duration::minutes(30));
    if start >= end {
        bad("start", "must be before end".into());
    }
    if !errors.is_empty() {
        return Err(AppError::Rejected(errors));
    }
    Ok(Asked {
        kinds,
        span: Span {
            start: start.timestamp() as f64,
            end: end.timestamp() as f64,
            samples: f64::from(samples),
        },
    })
}

fn samples(points: &[(i64, f64)], scale: f64) -> Vec<Sample> {
    points
        .iter()
        .filter_map(|(at, v)| {
            let at = DateTime::<Utc>::from_timestamp(*at, 0)?;
            Some(Sample {
                value: format!("{}", v * scale),
                timestamp: at.to_rfc3339_opts(SecondsFormat::Secs, true),
            })
        })
        .collect()
}

/// The pods' points folded per time: their mean (utilisation) or their sum (memory).
fn whole(pods: &[Vec<(i64, f64)>], mean: bool) -> Vec<(i64, f64)> {
    let mut at: BTreeMap<i64, (f64, u32)> = BTreeMap::new();
    for (t, v) in pods.iter().flatten() {
        let entry = at.entry(*t).or_default();
        entry.0 += v;
        entry.1 += 1;
    }
    at.into_iter()
        .map(|(t, (sum, n))| (t, if mean { sum / f64::from(n) } else { sum }))
        .collect()
}

/// Which of a pod's series a metric type reads.
type Pick = fn(&PodGpuUse) -> &Vec<(i64, f64)>;

fn measurements(kind: &'static str, pods: &[PodGpuUse]) -> Vec<Measurement> {
    let (pick, scale, mean): (Pick, f64, bool) = match kind {
        UTILISATION => (|p| &p.utilisation, 1.0, true),
        _ => (|p| &p.memory_mib, 1024.0 * 1024.0, false),
    };
    let every: Vec<Vec<(i64, f64)>> = pods.iter().map(|p| pick(p).clone()).collect();
    std::iter::once(Measurement {
        kind: kind.to_owned(),
        labels: None,
        values: samples(&whole(&every, mean), scale),
    })
    .chain(pods.iter().map(|p| Measurement {
        kind: kind.to_owned(),
        labels: Some(BTreeMap::from([("pod".to_owned(), p.pod.clone())])),
        values: samples(pick(p), scale),
    }))
    .collect()
}

/// A workload's GPU use over time (Run:ai's workload metrics).
#[utoipa::path(get, path = "/api/v1/workloads/{id}/metrics", tag = "workloads",
    params(("id" = String, Path, description = "The workload's id"),
        ("metricType" = Vec<String>, Query, description = "GPU_UTILIZATION and/or GPU_MEMORY_USAGE_BYTES; repeat the parameter for both"),
        ("start" = Option<String>, Query, description = "RFC 3339; 30 minutes before end when left out"),
        ("end" = Option<String>, Query, description = "RFC 3339; now when left out"),
        ("numberOfSamples" = Option<u32>, Query, description = "1 to 1000 (default 20)")),
    responses((status = 200, body = MetricsAnswer),
        BadRequest, Unauthorized, NotFound,
        (status = 503, description = "No Prometheus is configured, or it did not answer", body = super::ErrorBody)))]
pub async fn workload_metrics(
    State(services): State<Services>,
    Acting(principal): Acting,
    Path(id): Path<String>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<Json<MetricsAnswer>, ApiError> {
    let asked = parse(&pairs, Utc::now())?;
    let figures = services
        .workloads()
        .gpu_use_over(&principal, &id, Some(asked.span))
        .await?;
    if let Some(why) = figures.unavailable {
        return Err(AppError::Unavailable(why).into());
    }
    Ok(Json(MetricsAnswer {
        measurements: asked
            .kinds
            .into_iter()
            .flat_map(|kind| measurements(kind, &figures.pods))
            .collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn the_query_is_runais_with_a_default_range() {
        let now = DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let asked = parse(
            &pairs(&[("metricType", UTILISATION), ("metricType", MEMORY)]),
            now,
        )
        .unwrap();
        assert_eq!(asked.kinds, [UTILISATION, MEMORY]);
        assert_eq!(asked.span.end - asked.span.start, 1800.0);
        assert_eq!(asked.span.samples, 20.0);
        let e = parse(
            &pairs(&[
                ("metricType", "CPU_UTILIZATION"),
                ("start", "yesterday"),
                ("numberOfSamples", "0"),
            ]),
            now,
        )
        .unwrap_err();
        let fields: Vec<String> = e.field_errors().into_iter().map(|f| f.path).collect();
        assert_eq!(fields, ["metricType", "start", "numberOfSamples"]);
        let e = parse(&pairs(&[("numberOfSamples", "5")]), now).unwrap_err();
        let errors = e.field_errors();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].path, "metricType");
        assert!(
            errors[0].message.contains("name at least one"),
            "{errors:?}"
        );
    }

    #[test]
    fn the_whole_workload_is_the_pods_mean_use_and_total_memory() {
        let pods = [
            PodGpuUse {
                pod: "j-0".into(),
                utilisation: vec![(100, 40.0), (110, 60.0)],
                memory_mib: vec![(100, 1024.0)],
                memory_total_mib: Some(81_920.0),
            },
            PodGpuUse {
                pod: "j-1".into(),
                utilisation: vec![(100, 80.0)],
                memory_mib: vec![(100, 2048.0)],
                memory_total_mib: None,
            },
        ];
        let u = measurements(UTILISATION, &pods);
        assert_eq!(u.len(), 3);
        assert!(u[0].labels.is_none());
        assert_eq!(u[0].values[0].value, "60");
        assert_eq!(u[0].values[0].timestamp, "1970-01-01T00:01:40Z");
        assert_eq!(u[1].labels.as_ref().unwrap()["pod"], "j-0");
        let m = measurements(MEMORY, &pods);
        assert_eq!(m[0].values[0].value, (3072.0 * 1024.0 * 1024.0).to_string());
    }
}
