//! Two release servers on one PostgreSQL and the testbed (docs/OPERATIONS.md, "Several replicas"): submit
//! latency through either replica (POST until its 202), status latency through either (POST on
//! one until the other's event stream says Running), and failover (SIGKILL the leader: until the
//! follower leads, and until a training submitted to it right after the kill runs).
//! `BENCH_SAMPLES` (default 100) sets the submissions per replica, `BENCH_LEASE_SECONDS` (default
//! 15, Tephra's own default) the Lease.

use serde_json::Value;
use std::time::{Duration, Instant};
use tephra_tests::bench::{env_usize, percentiles, small_training};
use tephra_tests::postgres::TempPostgres;
use tephra_tests::sse::SseStream;
use tephra_tests::tephra::{Launch, TephraServer};
use tephra_tests::testbed::Testbed;

const WAIT: Duration = Duration::from_secs(120);

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

async fn submit(
    http: &reqwest::Client,
    server: &TephraServer,
    name: &str,
) -> anyhow::Result<String> {
    let answer = http
        .post(format!("{}/api/v1/workloads/trainings", server.base_url()))
        .json(&small_training(name))
        .send()
        .await?;
    anyhow::ensure!(answer.status() == 202, "{}", answer.status());
    let body: Value = answer.json().await?;
    Ok(body["workloadId"].as_str().unwrap_or_default().to_owned())
}

async fn leads(server: &TephraServer) -> bool {
    let Ok(answer) = reqwest::get(format!("{}/metrics", server.base_url())).await else {
        return false;
    };
    answer
        .text()
        .await
        .unwrap_or_default()
        .lines()
        .any(|l| l == "tephra_reconciler_leader 1")
}

/// How many workloads run, as `/metrics` counts them.
async fn running(server: &TephraServer) -> usize {
    let Ok(answer) = reqwest::get(format!("{}/metrics", server.base_url())).await else {
        return 0;
    };
    let text = answer.text().await.unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("tephra_workloads{") && l.contains("phase=\"Running\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<usize>().ok())
        .sum()
}

/// Reads `events` until `id` is Running.
async fn until_running(events: &mut SseStream, id: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        let event = events.next(WAIT).await?;
        if event.event == "workload" {
            let value: Value = serde_json::from_str(&event.data)?;
            if value["workloadId"] == id && value["actualPhase"] == "Running" {
                return Ok(());
            }
        }
    }
    anyhow::bail!("{id} did not run within {WAIT:?}")
}

fn main() -> anyhow::Result<()> {
    let samples = env_usize("BENCH_SAMPLES", 100);
    let lease = env_usize("BENCH_LEASE_SECONDS", 15);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let testbed = Testbed::start()?;
        let pg = TempPostgres::start()?;
        let url = pg.create_database("bench").await?;
        let launch = Launch::default()
            .arg(format!("--kubeconfig={}", testbed.kubeconfig.display()))
            .arg(format!("--database-url={url}"))
            .arg(format!("--lease-seconds={lease}"))
            .arg("--namespace-prefix=bench-")
            .api_only();
        let servers = [launch.start()?, launch.start()?];
        let deadline = Instant::now() + WAIT;
        let leader = loop {
            if leads(&servers[0]).await {
                break 0;
            }
            if leads(&servers[1]).await {
                break 1;
            }
            anyhow::ensure!(Instant::now() < deadline, "no replica leads");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let follower = 1 - leader;
        let http = reqwest::Client::new();
        println!(
            "# Two replicas on one PostgreSQL, testbed, release build ({samples} per replica)\n"
        );

        let names = ["leader", "follower"];
        for (role, i) in [(names[0], leader), (names[1], follower)] {
            let mut took = Vec::new();
            for n in 0..samples {
                let started = Instant::now();
                submit(&http, &servers[i], &format!("s-{role}-{n}")).await?;
                took.push(started.elapsed());
            }
            let (p50, p99) = percentiles(&mut took);
            println!(
                "submit through the {role}: p50 {}, p99 {}",
                ms(p50),
                ms(p99)
            );
        }

        // The submissions above run first, so the status figures do not wait behind them.
        let all = 2 * samples;
        let deadline = Instant::now() + WAIT * 2;
        while running(&servers[leader]).await < all {
            anyhow::ensure!(Instant::now() < deadline, "the submissions did not all run");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }

        // Status: submitted on one replica, Running seen on the other's event stream.
        let rounds = (samples / 5).max(5);
        for (from, to) in [(leader, follower), (follower, leader)] {
            let mut events = SseStream::open(&format!(
                "{}/api/v1/workloads/events",
                servers[to].base_url()
            ))
            .await?;
            let mut took = Vec::new();
            for n in 0..rounds {
                let started = Instant::now();
                let id = submit(&http, &servers[from], &format!("t-{from}-{n}")).await?;
                until_running(&mut events, &id).await?;
                took.push(started.elapsed());
            }
            let (p50, p99) = percentiles(&mut took);
            println!(
                "submit on the {} until the {}'s stream says Running: p50 {}, p99 {}",
                names[usize::from(from != leader)],
                names[usize::from(to != leader)],
                ms(p50),
                ms(p99)
            );
        }

        // Failover.
        let mut events = SseStream::open(&format!(
            "{}/api/v1/workloads/events",
            servers[follower].base_url()
        ))
        .await?;
        let [first, second] = servers;
        let (mut dead, survivor) = if leader == 0 {
            (first, second)
        } else {
            (second, first)
        };
        let killed = Instant::now();
        dead.process.kill();
        let id = submit(&http, &survivor, "after-the-kill").await?;
        let mut leading_after = None;
        while leading_after.is_none() {
            if leads(&survivor).await {
                leading_after = Some(killed.elapsed());
            }
            anyhow::ensure!(killed.elapsed() < WAIT, "the follower never led");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        until_running(&mut events, &id).await?;
        let running_after = killed.elapsed();
        println!(
            "failover (lease {lease} s): the follower leads {:.1} s after the SIGKILL (target: at \
             most the lease and 2 s, {} s); a training submitted to it at the kill runs after \
             {:.1} s",
            leading_after.unwrap_or_default().as_secs_f64(),
            lease + 2,
            running_after.as_secs_f64()
        );
        drop(survivor);
        Ok(())
    })
}
