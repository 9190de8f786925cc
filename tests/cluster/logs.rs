//! Pod logs through Tephra's API, read for real: the testbed's nodes serve their pods' logs to the
//! API server as kubelets do (`testbed pod-logs`), and Tephra reads them with the Kubernetes logs
//! API, as the chart's service account.

use crate::api::{TRAININGS, Tephra, id_of, training};
use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tephra_tests::process::rss_mib;
use tephra_tests::sse::SseStream;
use tephra_tests::testbed::Testbed;

/// What the testbed writes after a pod's first line instead of its training steps.
const LINES: &str = "testbed/log-lines";

/// The workload's first pod and its first container, from the workload's own status.
async fn first_pod(t: &Tephra, id: &str) -> anyhow::Result<(String, String)> {
    let body = t
        .wait_until(TRAININGS, id, "a pod with its containers", |b| {
            b["status"]["pods"][0]["containers"][0].is_string()
        })
        .await?;
    let pod = &body["status"]["pods"][0];
    Ok((
        pod["name"].as_str().context("a pod name")?.to_owned(),
        pod["containers"][0]
            .as_str()
            .context("a container")?
            .to_owned(),
    ))
}

async fn text(t: &Tephra, path: &str) -> anyhow::Result<(u16, reqwest::header::HeaderMap, String)> {
    let response = t.http.get(t.url(path)).send().await?;
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    Ok((status, headers, response.text().await?))
}

pub async fn a_pods_log_is_read_tailed_with_timestamps_and_downloaded(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("logs", 0);
        body["spec"]["annotations"] = json!([{ "name": LINES, "value": "alpha\nbeta\ngamma" }]);
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let (pod, container) = first_pod(&t, &id).await?;
        let logs = format!("/api/v1/workloads/{id}/pods/{pod}/logs");
        let namespace = t.namespace();
        let first = format!("tephra-testbed: pod {namespace}/{pod} container {container} started");

        // The testbed writes the lines once the pod is bound: wait for the last one.
        let whole = tephra_tests::wait_for("the pod's log", Duration::from_secs(20), || async {
            let (status, _, text) = text(&t, &logs).await.ok()?;
            (status == 200 && text.ends_with("gamma\n")).then_some(text)
        })
        .await?;
        ensure!(
            whole.lines().collect::<Vec<_>>() == [first.as_str(), "alpha", "beta", "gamma"],
            "the whole log: {whole:?}"
        );
        let (_, headers, tail) = text(&t, &format!("{logs}?tailLines=2")).await?;
        ensure!(tail == "beta\ngamma\n", "the last two lines: {tail:?}");
        ensure!(
            headers["content-type"] == "text/plain; charset=utf-8"
                && headers["cache-control"] == "no-store",
            "plain text, never cached: {headers:?}"
        );
        let (_, _, stamped) = text(&t, &format!("{logs}?tailLines=1&timestamps=true")).await?;
        let (at, line) = stamped
            .trim_end()
            .split_once(' ')
            .context("a stamped line")?;
        ensure!(
            line == "gamma" && chrono::DateTime::parse_from_rfc3339(at).is_ok(),
            "an RFC 3339 time, then the line: {stamped:?}"
        );
        let (status, headers, saved) = text(
            &t,
            &format!("{logs}?container={container}&tailLines=all&download=true"),
        )
        .await?;
        ensure!(
            status == 200 && saved == whole,
            "the download is the whole log"
        );
        ensure!(
            headers["content-disposition"]
                == format!("attachment; filename=\"{pod}-{container}.log\"").as_str(),
            "saved as pod-container.log: {headers:?}"
        );

        // Bad parameters are named with what is allowed; nothing else's pods are readable.
        let (status, answer) = t
            .get(&format!("{logs}?container=sidecar&tailLines=0"))
            .await?;
        let fields: Vec<&str> = answer["details"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["field"].as_str())
            .collect();
        ensure!(
            status == 400 && fields == ["container", "tailLines"],
            "400 naming both: {answer}"
        );
        ensure!(
            answer.to_string().contains(&format!("\\\"{container}\\\"")),
            "the error lists the pod's containers: {answer}"
        );
        for other in ["not-a-pod", "kube-apiserver"] {
            let (status, answer) = t
                .get(&format!("/api/v1/workloads/{id}/pods/{other}/logs"))
                .await?;
            ensure!(status == 404, "{other}: {status} {answer}");
        }
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn a_followed_log_streams_new_lines_and_ends_with_the_container(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let id = id_of(&t.submit(TRAININGS, &training("follow", 0)).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let (pod, _) = first_pod(&t, &id).await?;
        let url = t.url(&format!(
            "/api/v1/workloads/{id}/pods/{pod}/logs?follow=true&tailLines=1"
        ));
        let mut stream = SseStream::open(&url).await?;
        // The testbed writes `step N loss X` every second while the container runs.
        let mut steps = Vec::new();
        while steps.len() < 3 {
            let event = stream.next(Duration::from_secs(15)).await?;
            ensure!(event.event == "line", "only lines while it runs: {event:?}");
            if let Some(step) = event.data.strip_prefix("step ") {
                steps.push(step.split(' ').next().unwrap_or("").parse::<u64>()?);
            }
        }
        ensure!(
            steps.windows(2).all(|w| w[1] == w[0] + 1),
            "new lines arrive in order as they are written: {steps:?}"
        );
        t.finish_pods(&id, None, "Succeeded").await?;
        loop {
            let event = stream.next(Duration::from_secs(20)).await?;
            match event.event.as_str() {
                "line" => continue,
                "end" => break,
                other => anyhow::bail!("the stream ends cleanly, not with {other}: {event:?}"),
            }
        }
        let done: Value = t.wait_phase(TRAININGS, &id, "Completed").await?;
        ensure!(done["actualPhase"] == "Completed");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

/// What the testbed's containers add every second to one line that never ends, in KiB.
const ENDLESS: &str = "testbed/log-endless-kib";
/// How Tephra marks a line it cut (`server::cluster::logs::CUT_MARK`).
const CUT: &str = " [cut: the line is longer than 64 KiB]";
/// How much Tephra's resident memory may grow while it reads such a line: far less than what
/// passes through it (4 MiB every second here).
const GROWTH_MIB: f64 = 24.0;

pub async fn an_endless_line_and_its_follow_keep_tephra_small(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    endless_line(tb, ns, 4096, Duration::from_secs(30)).await
}

/// The drill's version (`scripts/drill`): a follow of ten minutes.
pub async fn an_endless_line_followed_ten_minutes_keeps_tephra_small_long(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    endless_line(tb, ns, 1024, Duration::from_secs(600)).await
}

/// A container prints `kib` KiB a second without a newline; its log is read, then followed for
/// `span`. Tephra passes the line on cut at 64 KiB, keeps the follow open, and its resident
/// memory (read from /proc, the server is this test's child) stays within [`GROWTH_MIB`].
async fn endless_line(
    tb: Arc<Testbed>,
    ns: String,
    kib: u32,
    span: Duration,
) -> anyhow::Result<()> {
    ensure!(kib >= 1024, "a second's output is at least 1 MiB");
    let t = Tephra::start(&tb, &ns).await?;
    let result = async {
        let mut body = training("endless", 0);
        body["spec"]["annotations"] = json!([{ "name": ENDLESS, "value": kib.to_string() }]);
        let id = id_of(&t.submit(TRAININGS, &body).await?)?;
        t.wait_phase(TRAININGS, &id, "Running").await?;
        let (pod, _) = first_pod(&t, &id).await?;
        let logs = format!("/api/v1/workloads/{id}/pods/{pod}/logs");
        let cut = format!("{}{CUT}", "x".repeat(64 * 1024));

        // Every second adds at least 1 MiB without a newline: the read answers with it cut.
        let whole = tephra_tests::wait_for("the endless line", Duration::from_secs(20), || async {
            let (status, _, text) = text(&t, &logs).await.ok()?;
            (status == 200 && text.contains(CUT)).then_some(text)
        })
        .await?;
        let lines: Vec<&str> = whole.lines().collect();
        ensure!(
            lines.len() == 2 && lines[1] == cut,
            "the first line, then the endless one cut at 64 KiB: {} lines, the last {} bytes",
            lines.len(),
            lines.last().map_or(0, |l| l.len())
        );

        let pid = t.server.process.id();
        let before = rss_mib(pid);
        let mut stream = SseStream::open(&t.url(&format!("{logs}?follow=true"))).await?;
        let first = stream.next(Duration::from_secs(15)).await?;
        let second = stream.next(Duration::from_secs(15)).await?;
        ensure!(
            first.event == "line" && second.event == "line" && second.data == cut,
            "the follow passes the endless line on, cut, at once: {first:?}, {} bytes",
            second.data.len()
        );
        let (mut peak, start) = (before, tokio::time::Instant::now());
        while start.elapsed() < span {
            if let Some(event) = stream.within(Duration::from_secs(1)).await? {
                anyhow::bail!("nothing more while the line goes on: {event:?}");
            }
            peak = peak.max(rss_mib(pid));
        }
        let streamed = f64::from(kib) / 1024.0 * span.as_secs_f64();
        println!(
            "endless line: the container wrote {streamed:.0} MiB during a {} s follow; Tephra's RSS {before:.1} MiB before, {peak:.1} MiB at most",
            span.as_secs()
        );
        ensure!(
            peak - before < GROWTH_MIB,
            "RSS grew by {:.1} MiB while {streamed:.0} MiB passed through",
            peak - before
        );
        t.finish_pods(&id, None, "Succeeded").await?;
        let end = stream.next(Duration::from_secs(20)).await?;
        ensure!(end.event == "end", "the follow ends with the container: {end:?}");
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
