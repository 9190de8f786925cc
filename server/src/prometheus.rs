//! Asking Prometheus (`--prometheus-url`) for GPU use: its HTTP query API, instant and range
//! queries. What to ask and what the answers mean is `tephra_core::domain::gpu_use`.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;
use tephra_core::domain::gpu_use::Sample;

/// A page waits no longer than this for Prometheus; the figures are extras, the page is not.
const TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Prometheus at {url} did not answer: {source}")]
    Unreachable {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("Prometheus refused the query: {0}")]
    Refused(String),
}

/// A series' labels.
pub type Labels = BTreeMap<String, String>;

#[derive(Debug, Clone)]
pub struct Prometheus {
    http: reqwest::Client,
    /// The base URL without a trailing slash.
    base: String,
}

#[derive(Deserialize)]
struct Answer<T> {
    status: String,
    data: Option<Data<T>>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Data<T> {
    result: Vec<T>,
}

#[derive(Deserialize)]
struct Vector {
    metric: Labels,
    value: (f64, String),
}

#[derive(Deserialize)]
struct Matrix {
    metric: Labels,
    values: Vec<(f64, String)>,
}

/// Prometheus writes values as strings (they may be `NaN` or `+Inf`); those are no figure.
fn number(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

impl Prometheus {
    pub fn new(url: &str) -> Result<Self, String> {
        let base = url.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!(
                "{url:?} is not an http:// or https:// URL (e.g. http://prometheus-server.monitoring:9090)"
            ));
        }
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(Prometheus { http, base })
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        form: &[(&str, String)],
    ) -> Result<Vec<T>, Error> {
        let url = format!("{}{path}", self.base);
        let unreachable = |source| Error::Unreachable {
            url: self.base.clone(),
            source,
        };
        let answer: Answer<T> = self
            .http
            .post(&url)
            .form(form)
            .send()
            .await
            .map_err(unreachable)?
            .json()
            .await
            .map_err(unreachable)?;
        match (answer.status.as_str(), answer.data) {
            ("success", Some(data)) => Ok(data.result),
            _ => Err(Error::Refused(
                answer.error.unwrap_or_else(|| "no reason given".into()),
            )),
        }
    }

    /// Each series' value now.
    pub async fn instant(&self, query: &str) -> Result<Vec<(Labels, f64)>, Error> {
        let found: Vec<Vector> = self
            .ask("/api/v1/query", &[("query", query.to_owned())])
            .await?;
        Ok(found
            .into_iter()
            .filter_map(|v| number(&v.value.1).map(|n| (v.metric, n)))
            .collect())
    }

    /// Each series' samples from `start` to `end` (seconds since the epoch), every `step`.
    pub async fn range(
        &self,
        query: &str,
        start: f64,
        end: f64,
        step: f64,
    ) -> Result<Vec<(Labels, Vec<Sample>)>, Error> {
        let found: Vec<Matrix> = self
            .ask(
                "/api/v1/query_range",
                &[
                    ("query", query.to_owned()),
                    ("start", format!("{start:.3}")),
                    ("end", format!("{end:.3}")),
                    ("step", format!("{step:.3}")),
                ],
            )
            .await?;
        Ok(found
            .into_iter()
            .map(|m| {
                let samples = m
                    .values
                    .iter()
                    .filter_map(|(at, v)| number(v).map(|n| (*at, n)))
                    .collect();
                (m.metric, samples)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_urls_are_taken_and_the_slash_is_trimmed() {
        assert_eq!(
            Prometheus::new("http://prom:9090/").unwrap().url(),
            "http://prom:9090"
        );
        assert!(
            Prometheus::new("prom:9090")
                .unwrap_err()
                .contains("http://")
        );
    }

    #[test]
    fn answers_parse_and_non_figures_are_dropped() {
        let body = r#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"pod":"j-0"},"values":[[1000,"12"],[1030,"NaN"],[1060,"0"]]}]}}"#;
        let answer: Answer<Matrix> = serde_json::from_str(body).unwrap();
        let m = &answer.data.unwrap().result[0];
        let samples: Vec<Sample> = m
            .values
            .iter()
            .filter_map(|(at, v)| number(v).map(|n| (*at, n)))
            .collect();
        assert_eq!(samples, [(1000.0, 12.0), (1060.0, 0.0)]);
        assert_eq!(m.metric["pod"], "j-0");
    }
}
