//! Two Tephra processes on one PostgreSQL serve the same users: either answers any request, the
//! holder of the leader Lease reconciles, and when it is killed during a stream of submissions the
//! other takes over: every accepted training gets exactly one Job, and a client following the
//! survivor's event stream keeps seeing the trainings change.

use crate::api::{TRAININGS, Tephra, WAIT, launch, prefix_for, training};
use anyhow::{Context, bail, ensure};
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tephra_tests::browser::Browser;
use tephra_tests::postgres::TempPostgres;
use tephra_tests::sse::SseStream;
use tephra_tests::testbed::Testbed;

const SUBMISSIONS: usize = 100;
const LEASE_SECONDS: u64 = 3;

pub async fn two_replicas_serve_alike_and_the_follower_takes_over_when_the_leader_is_killed(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let (_pg, prefix, first, second) = two_replicas(&tb, &ns, LEASE_SECONDS).await?;
    let result = async {
        let (leader, follower) = leader_and_follower([&first, &second]).await?;
        // A client of the follower, following every workload, and a browser on the follower.
        let mut events = SseStream::open(&follower.url("/api/v1/workloads/events")).await?;
        let browser = Browser::start().await?;
        let mut watched = None;

        let mut accepted: BTreeSet<String> = BTreeSet::new();
        let mut killed_at = None;
        for i in 0..SUBMISSIONS {
            if i == SUBMISSIONS / 2 {
                // SIGKILL: no release of the Lease, no graceful anything.
                let pid = leader.server.process.id();
                std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status()?;
                killed_at = Some(Instant::now());
            }
            let body = training(&format!("r{i}"), 0);
            // Alternate replicas, as a load balancer would; once the leader is dead, a refused
            // connection is retried on the survivor (as the balancer would after its probe).
            let (status, answer) = match (i % 2 == 0 && killed_at.is_none(), leader) {
                (true, leader) => leader.post(TRAININGS, &body).await?,
                _ => follower.post(TRAININGS, &body).await?,
            };
            ensure!(status == 202, "submission {i}: {status} {answer}");
            let id = crate::api::id_of(&answer)?;
            if watched.is_none() && killed_at.is_some() {
                // Submitted while nobody leads: the browser on the follower shows its page.
                browser
                    .open(&follower.url(&format!("/trainings/{id}")))
                    .await?;
                browser.hydrated().await?;
                watched = Some(id.clone());
            }
            accepted.insert(id);
        }
        let killed_at = killed_at.context("the leader was killed")?;

        // The survivor takes the Lease within its duration (plus a renewal period).
        tephra_tests::wait_for("the follower to lead", WAIT, || async {
            (leads(follower).await == Some(true)).then_some(())
        })
        .await?;
        let takeover = killed_at.elapsed();
        eprintln!(
            "takeover {:.1} s after the leader was killed",
            takeover.as_secs_f64()
        );
        let lease = leases(follower).get(&format!("{prefix}reconciler")).await?;
        let spec = lease.spec.context("the Lease has a spec")?;
        ensure!(
            spec.lease_transitions.unwrap_or(0) >= 1 && spec.holder_identity.is_some(),
            "the Lease changed hands: {spec:?}"
        );

        // Every accepted training runs, with exactly one Job each.
        tephra_tests::wait_for("every training to have its Job", WAIT * 2, || async {
            let jobs = jobs_by_workload(follower).await.ok()?;
            (jobs.len() == accepted.len()).then_some(())
        })
        .await?;
        let jobs = jobs_by_workload(follower).await?;
        let duplicates: Vec<_> = jobs.iter().filter(|(_, n)| **n != 1).collect();
        ensure!(duplicates.is_empty(), "duplicate Jobs: {duplicates:?}");
        let unknown: Vec<_> = jobs.keys().filter(|id| !accepted.contains(*id)).collect();
        ensure!(
            unknown.is_empty(),
            "Jobs of no accepted training: {unknown:?}"
        );

        // The follower's client saw trainings go Running, live, after the takeover too.
        let mut running_after = 0;
        let deadline = Instant::now() + WAIT;
        while running_after == 0 && Instant::now() < deadline {
            let event = events.next(WAIT).await?;
            if event.event != "workload" {
                continue;
            }
            let value: Value = serde_json::from_str(&event.data)?;
            if value["actualPhase"] == "Running" && killed_at.elapsed() > takeover {
                running_after += 1;
            }
        }
        ensure!(
            running_after > 0,
            "no live update reached the follower's client"
        );

        // The page opened on the follower follows the training without a reload: it runs, and
        // once suspended (by the new leader) it shows Stopped.
        let watched = watched.context("a training was watched in the browser")?;
        browser
            .wait_for("[data-testid=training-detail][data-phase=Running]", WAIT)
            .await?;
        let (status, answer) = follower
            .post(
                &format!("{TRAININGS}/{watched}/suspend"),
                &serde_json::json!({}),
            )
            .await?;
        ensure!(status == 202, "suspend: {status} {answer}");
        browser
            .wait_for("[data-testid=training-detail][data-phase=Stopped]", WAIT)
            .await?;
        browser.screenshot("replicas-follower-live").await?;
        browser.close().await?;
        Ok(())
    }
    .await;
    // Both servers stop; the survivor cleans the namespace and queues, and the Lease goes.
    drop(first.server);
    second.cleanup().await;
    let lease = format!("{prefix}reconciler");
    let _ = leases(&second).delete(&lease, &Default::default()).await;
    result
}

/// A leader that shuts down lets the Lease go: the other replica leads long before the Lease
/// would have run out.
pub async fn a_leader_that_shuts_down_hands_over_at_once(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    const LONG_LEASE: u64 = 60;
    let (_pg, prefix, first, second) = two_replicas(&tb, &ns, LONG_LEASE).await?;
    let result = async {
        let (leader, follower) = leader_and_follower([&first, &second]).await?;
        let stopped = Instant::now();
        tephra_tests::process::signal_term(leader.server.process.id());
        tephra_tests::wait_for("the follower to lead", WAIT, || async {
            (leads(follower).await == Some(true)).then_some(())
        })
        .await?;
        let took = stopped.elapsed();
        ensure!(
            took < Duration::from_secs(LONG_LEASE / 2),
            "the follower led {took:?} after the leader stopped, as if the Lease had run out"
        );
        Ok(())
    }
    .await;
    first.cleanup().await;
    second.cleanup().await;
    let _ = leases(&second)
        .delete(&format!("{prefix}reconciler"), &Default::default())
        .await;
    result
}

/// A PostgreSQL database and two replicas on it with a Lease of `lease` seconds, and their prefix.
async fn two_replicas(
    tb: &Testbed,
    ns: &str,
    lease: u64,
) -> anyhow::Result<(TempPostgres, String, Tephra, Tephra)> {
    let pg = TempPostgres::start()?;
    let url = pg.create_database("replicas").await?;
    let prefix = prefix_for(ns);
    let replica = || {
        launch(crate::tephra_kubeconfig(), &prefix)
            .arg(format!("--database-url={url}"))
            .arg(format!("--lease-seconds={lease}"))
            .api_only()
    };
    let first = Tephra::start_with(tb, replica(), prefix.clone()).await?;
    let second = Tephra::start_with(tb, replica(), prefix.clone()).await?;
    Ok((pg, prefix, first, second))
}

/// The replica that leads and the other, once exactly one leads.
async fn leader_and_follower(replicas: [&Tephra; 2]) -> anyhow::Result<(&Tephra, &Tephra)> {
    let leader = wait_for_one_leader(replicas).await?;
    Ok((replicas[leader], replicas[1 - leader]))
}

/// Which replica reports itself as the reconciler, once exactly one does.
async fn wait_for_one_leader(replicas: [&Tephra; 2]) -> anyhow::Result<usize> {
    let deadline = Instant::now() + WAIT;
    loop {
        let mut leading = Vec::new();
        for (i, replica) in replicas.iter().enumerate() {
            if leads(replica).await == Some(true) {
                leading.push(i);
            }
        }
        match leading[..] {
            [one] => return Ok(one),
            [_, _] => bail!("both replicas lead"),
            _ if Instant::now() > deadline => bail!("no replica leads"),
            _ => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Whether `/metrics` says this replica reconciles; `None` when it does not answer.
async fn leads(replica: &Tephra) -> Option<bool> {
    let text = reqwest::get(replica.url("/metrics"))
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("tephra_reconciler_leader "))
        .map(|v| v.trim() == "1")
}

/// The leader Leases, in the namespace Tephra runs in (`--lease-namespace`: the chart's release
/// namespace, where its Role lets it keep them).
fn leases(t: &Tephra) -> Api<Lease> {
    Api::namespaced(t.kube.clone(), &crate::account().namespace)
}

/// How many Jobs each workload has in the project's namespace.
async fn jobs_by_workload(t: &Tephra) -> anyhow::Result<BTreeMap<String, usize>> {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for job in t.jobs().list(&Default::default()).await?.items {
        if let Some(id) = job
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("tephra.dev/workload-id"))
        {
            *by.entry(id.clone()).or_default() += 1;
        }
    }
    Ok(by)
}
