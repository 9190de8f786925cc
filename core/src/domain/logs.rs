//! What a request for a pod's logs may ask, parsed once (the HTTP query and the dashboard both
//! end here): which container, how much, and whether to follow. The Kubernetes logs API takes
//! the same options; the bounds are Tephra's, so one request cannot pin a replica's memory.

use crate::model::validation::FieldError;

/// Most lines `tailLines` may ask for; `kubectl logs --tail` has no bound, but a browser that
/// asks for millions of lines stops answering.
pub const MAX_TAIL_LINES: i64 = 100_000;
/// What a download or a page gets without `tailLines`: the newest lines, not the whole history.
pub const DEFAULT_TAIL_LINES: i64 = 1_000;
/// Most bytes one answer carries without `follow` (the API server's `limitBytes`).
pub const MAX_BYTES: i64 = 64 * 1024 * 1024;

/// The query as it arrives (`GET …/pods/{pod}/logs?container=&tailLines=&…`).
#[derive(Debug, Default, Clone, serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LogsQuery {
    /// The container; the pod's first (not an init container) when left out.
    pub container: Option<String>,
    /// The newest lines only (1 to 100000; 1000 when left out, `all` for everything).
    pub tail_lines: Option<String>,
    /// Only lines newer than this many seconds.
    pub since_seconds: Option<i64>,
    /// Keep the answer open and send lines as the container writes them.
    #[serde(default)]
    pub follow: bool,
    /// Start each line with its RFC 3339 time, as the container runtime recorded it.
    #[serde(default)]
    pub timestamps: bool,
    /// The logs of the container's previous run (after a restart).
    #[serde(default)]
    pub previous: bool,
    /// Answer as a file to save (`Content-Disposition: attachment`).
    #[serde(default)]
    pub download: bool,
}

/// How many of the newest lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    Lines(i64),
    All,
}

/// A checked request for one container's logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRequest {
    pub container: String,
    pub tail: Tail,
    pub since_seconds: Option<i64>,
    pub follow: bool,
    pub timestamps: bool,
    pub previous: bool,
    pub download: bool,
}

impl LogRequest {
    /// Checks `query` against the pod's containers (`containers`: its own in order, then its
    /// init containers); every error names the parameter and what it allows.
    pub fn parse(query: LogsQuery, containers: &[String]) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let container = match (query.container, containers) {
            (Some(c), _) if containers.contains(&c) => Some(c),
            (Some(c), _) => {
                errors.push(field(
                    "container",
                    format!(
                        "the pod has no container {c:?}; it has {}",
                        list(containers)
                    ),
                ));
                None
            }
            // As `kubectl logs` does: the first of the pod's own containers.
            (None, [first, ..]) => Some(first.clone()),
            (None, []) => {
                errors.push(field("container", "the pod has no containers yet"));
                None
            }
        };
        let tail = match query.tail_lines.as_deref() {
            None | Some("") => Tail::Lines(DEFAULT_TAIL_LINES),
            Some("all") => Tail::All,
            Some(n) => match n.parse::<i64>() {
                Ok(n) if (1..=MAX_TAIL_LINES).contains(&n) => Tail::Lines(n),
                _ => {
                    errors.push(field(
                        "tailLines",
                        format!(
                            "{n:?} is not allowed: a number from 1 to {MAX_TAIL_LINES}, or all"
                        ),
                    ));
                    Tail::All
                }
            },
        };
        if let Some(s) = query.since_seconds
            && s < 1
        {
            errors.push(field(
                "sinceSeconds",
                format!("must be 1 or more (got {s})"),
            ));
        }
        if query.follow && query.previous {
            errors.push(field(
                "follow",
                "cannot follow the previous run: it has ended; leave out follow or previous",
            ));
        }
        match (container, errors.is_empty()) {
            (Some(container), true) => Ok(LogRequest {
                container,
                tail,
                since_seconds: query.since_seconds,
                follow: query.follow,
                timestamps: query.timestamps,
                previous: query.previous,
                download: query.download,
            }),
            _ => Err(errors),
        }
    }

    /// The name a download is saved under.
    pub fn file_name(&self, pod: &str) -> String {
        format!("{pod}-{}.log", self.container)
    }
}

fn field(path: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        path: path.to_owned(),
        message: message.into(),
    }
}

fn list(containers: &[String]) -> String {
    containers
        .iter()
        .map(|c| format!("{c:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn containers(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    fn paths(errors: Vec<FieldError>) -> Vec<String> {
        errors.into_iter().map(|f| f.path).collect()
    }

    #[test]
    fn the_only_container_is_chosen_and_the_newest_thousand_lines_by_default() {
        let r = LogRequest::parse(LogsQuery::default(), &containers(&["train"])).unwrap();
        assert_eq!(r.container, "train");
        assert_eq!(r.tail, Tail::Lines(DEFAULT_TAIL_LINES));
        assert!(!r.follow && !r.timestamps && !r.download);
        assert_eq!(r.file_name("job-worker-0"), "job-worker-0-train.log");
    }

    #[test]
    fn a_pod_with_several_containers_defaults_to_its_first_and_names_them_when_wrong() {
        let both = containers(&["train", "git-clone"]);
        let r = LogRequest::parse(LogsQuery::default(), &both).unwrap();
        assert_eq!(r.container, "train");
        let q = LogsQuery {
            container: Some("git-clone".into()),
            ..LogsQuery::default()
        };
        assert_eq!(LogRequest::parse(q, &both).unwrap().container, "git-clone");
        let q = LogsQuery {
            container: Some("sidecar".into()),
            ..LogsQuery::default()
        };
        let [e] = &LogRequest::parse(q, &both).unwrap_err()[..] else {
            panic!("one error")
        };
        assert!(e.to_string().contains("\"train\", \"git-clone\""), "{e}");
    }

    #[test]
    fn every_bad_parameter_is_named_at_once() {
        let q = LogsQuery {
            container: Some("nope".into()),
            tail_lines: Some("-3".into()),
            since_seconds: Some(0),
            follow: true,
            previous: true,
            ..LogsQuery::default()
        };
        let e = LogRequest::parse(q, &containers(&["train"])).unwrap_err();
        assert_eq!(
            paths(e),
            ["container", "tailLines", "sinceSeconds", "follow"]
        );
    }

    #[test]
    fn tail_lines_takes_a_bounded_number_or_all() {
        for (given, want) in [
            ("1", Some(Tail::Lines(1))),
            ("100000", Some(Tail::Lines(MAX_TAIL_LINES))),
            ("all", Some(Tail::All)),
            ("100001", None),
            ("0", None),
            ("ten", None),
        ] {
            let q = LogsQuery {
                tail_lines: Some(given.into()),
                ..LogsQuery::default()
            };
            let got = LogRequest::parse(q, &containers(&["c"]))
                .ok()
                .map(|r| r.tail);
            assert_eq!(got, want, "tailLines={given}");
        }
    }
}
