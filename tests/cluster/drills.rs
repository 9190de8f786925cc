//! Reliability drills (issue 12): the server killed at random points, and the API server stopped,
//! while users keep submitting and acting. Each ends by checking that nothing accepted was lost,
//! nothing runs twice, and every workload converges to what was asked; each prints its figures
//! (docs/RELIABILITY.md records them). The short forms run in `scripts/test`, the long ones in
//! `scripts/drill`.

use crate::api::{TRAININGS, Tephra, id_of, launch, prefix_for, training};
use anyhow::{Context, bail, ensure};
use kube::api::ListParams;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tephra_tests::testbed::Testbed;

/// A small deterministic generator, seeded and printed so a failing run can be replayed.
struct Dice(u64);

impl Dice {
    fn seeded() -> Self {
        let seed = std::env::var("TEPHRA_DRILL_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        eprintln!("drill seed {seed} (set TEPHRA_DRILL_SEED to replay)");
        Dice(seed | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// What the drill asked of one workload, from the answers it got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Running,
    Stopped,
    Deleted,
}

#[derive(Default)]
struct Ledger {
    asked: BTreeMap<String, Asked>,
    /// Workloads an action was sent to that got no answer (the server died): either outcome is
    /// right, so only convergence is checked.
    uncertain: std::collections::BTreeSet<String>,
    accepted: usize,
    refused_5xx: usize,
}

impl Ledger {
    fn pick(&self, dice: &mut Dice, want: Asked) -> Option<String> {
        let ids: Vec<&String> = self
            .asked
            .iter()
            .filter(|(id, a)| **a == want && !self.uncertain.contains(*id))
            .map(|(id, _)| id)
            .collect();
        (!ids.is_empty()).then(|| ids[dice.below(ids.len() as u64) as usize].clone())
    }
}

/// One user operation against `t`, recorded in `ledger`. Errors talking to the server (it was
/// killed) mark the target uncertain.
async fn operate(
    t: &Tephra,
    ledger: &mut Ledger,
    dice: &mut Dice,
    n: &mut usize,
) -> anyhow::Result<()> {
    let roll = dice.below(10);
    if roll < 7 {
        *n += 1;
        let name = format!("d{n}");
        return match t.post(TRAININGS, &training(&name, 0)).await {
            Ok((202, answer)) => {
                ledger.asked.insert(id_of(&answer)?, Asked::Running);
                ledger.accepted += 1;
                Ok(())
            }
            Ok((status, answer)) if status >= 500 => {
                ledger.refused_5xx += 1;
                bail!("submit answered {status}: {answer}")
            }
            Ok((status, answer)) => bail!("submit answered {status}: {answer}"),
            Err(_) => Ok(()),
        };
    }
    // The action, the states of the workloads it is tried on, and the state it asks for.
    let (action, on, then): (&str, &[Asked], Asked) = match roll {
        7 => ("suspend", &[Asked::Running], Asked::Stopped),
        8 => ("resume", &[Asked::Stopped], Asked::Running),
        _ => ("delete", &[Asked::Running, Asked::Stopped], Asked::Deleted),
    };
    let Some(target) = on.iter().find_map(|want| ledger.pick(dice, *want)) else {
        return Ok(());
    };
    let path = match action {
        "delete" => format!("{TRAININGS}/{target}"),
        _ => format!("{TRAININGS}/{target}/{action}"),
    };
    let answer = if action == "delete" {
        t.delete(&path).await
    } else {
        t.post(&path, &json!({})).await
    };
    match answer {
        Ok((202, _)) => {
            ledger.asked.insert(target, then);
        }
        // Refused for the phase it is in (e.g. suspend while it is still being created): fine.
        Ok((409, _)) => {}
        Ok((status, body)) if status >= 500 => {
            ledger.refused_5xx += 1;
            bail!("{action} answered {status}: {body}");
        }
        Ok((status, body)) => bail!("{action} answered {status}: {body}"),
        Err(_) => {
            ledger.uncertain.insert(target);
        }
    }
    Ok(())
}

/// Waits until every workload is where it was asked to be, with exactly one Job when running and
/// none otherwise, and no Job in the namespace belongs to anything else. Returns how long it took.
async fn converged(t: &Tephra, ledger: &Ledger, within: Duration) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let mut last = String::new();
    while started.elapsed() < within {
        match check_converged(t, ledger).await {
            Ok(()) => return Ok(started.elapsed()),
            Err(why) => last = format!("{why:#}"),
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    bail!("not converged after {within:?}: {last}")
}

async fn check_converged(t: &Tephra, ledger: &Ledger) -> anyhow::Result<()> {
    let jobs = t.jobs().list(&ListParams::default()).await?;
    let mut jobs_by_workload: BTreeMap<String, usize> = BTreeMap::new();
    for job in &jobs.items {
        let id = job
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("tephra.dev/workload-id"))
            .context("every Job is labelled")?;
        *jobs_by_workload.entry(id.clone()).or_default() += 1;
    }
    let (_, list) = t.get(&format!("{TRAININGS}?limit=500")).await?;
    let rows: BTreeMap<String, Value> = list["trainings"]
        .as_array()
        .or_else(|| list["workloads"].as_array())
        .context("a list")?
        .iter()
        .map(|w| {
            (
                w["workloadId"].as_str().unwrap_or_default().to_owned(),
                w.clone(),
            )
        })
        .collect();
    for (id, asked) in &ledger.asked {
        let row = rows.get(id);
        let jobs = jobs_by_workload.get(id).copied().unwrap_or(0);
        ensure!(jobs <= 1, "workload {id} has {jobs} Jobs");
        if ledger.uncertain.contains(id) {
            // Whatever the last action did, the workload must be where its row says.
            if let Some(row) = row {
                check_row(id, row, jobs)?;
            } else {
                ensure!(jobs == 0, "deleted workload {id} left a Job");
            }
            continue;
        }
        match asked {
            Asked::Deleted => {
                ensure!(row.is_none(), "deleted workload {id} is still listed");
                ensure!(jobs == 0, "deleted workload {id} left a Job");
            }
            Asked::Running | Asked::Stopped => {
                let row = row.with_context(|| format!("accepted workload {id} was lost"))?;
                let want = if *asked == Asked::Running {
                    "Running"
                } else {
                    "Stopped"
                };
                ensure!(
                    row["desiredPhase"] == want,
                    "{id} desired {} not {want}",
                    row["desiredPhase"]
                );
                check_row(id, row, jobs)?;
            }
        }
    }
    for id in jobs_by_workload.keys() {
        ensure!(
            rows.contains_key(id),
            "a Job of {id}, which is no live workload"
        );
    }
    Ok(())
}

fn check_row(id: &str, row: &Value, jobs: usize) -> anyhow::Result<()> {
    match row["desiredPhase"].as_str() {
        Some("Running") => ensure!(
            row["actualPhase"] == "Running" && jobs == 1,
            "{id} is {} with {jobs} Jobs, wants Running",
            row["actualPhase"]
        ),
        Some("Stopped") => ensure!(
            row["actualPhase"] == "Stopped" && jobs == 0,
            "{id} is {} with {jobs} Jobs, wants Stopped",
            row["actualPhase"]
        ),
        other => bail!("{id} is still {other:?}"),
    }
    Ok(())
}

/// Submissions and actions against a server that is SIGKILLed at random points and restarted on
/// the same database.
async fn crash(tb: &Testbed, ns: &str, submissions: usize) -> anyhow::Result<()> {
    let prefix = prefix_for(ns);
    let data = tempfile::Builder::new().prefix("tephra-crash-").tempdir()?;
    let launch = launch(crate::tephra_kubeconfig(), &prefix).data_dir(data.path());
    let mut dice = Dice::seeded();
    let mut ledger = Ledger::default();
    let mut n = 0;
    let mut kills = 0;
    while n < submissions {
        let mut t = Tephra::start_with(tb, launch.clone(), prefix.clone()).await?;
        let operations = 3 + dice.below(15);
        // The kill lands while requests are in flight, at a random moment.
        let kill_after = Duration::from_millis(dice.below(400));
        let pid = t.server.process.id();
        let killer = tokio::spawn(async move {
            tokio::time::sleep(kill_after).await;
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        });
        for _ in 0..operations {
            if n >= submissions {
                break;
            }
            operate(&t, &mut ledger, &mut dice, &mut n).await?;
        }
        killer.await?;
        t.server.process.kill();
        kills += 1;
    }
    let t = Tephra::start_with(tb, launch, prefix).await?;
    let result = converged(&t, &ledger, Duration::from_secs(120)).await;
    let outcome = match &result {
        Ok(took) => format!(
            "0 lost, 0 duplicate Jobs, converged in {:.1} s after the last restart",
            took.as_secs_f64()
        ),
        Err(why) => format!("NOT converged: {why:#}"),
    };
    eprintln!(
        "crash drill: {n} submissions sent, {} accepted, {kills} SIGKILLs, {} actions without an \
         answer; {outcome}",
        ledger.accepted,
        ledger.uncertain.len(),
    );
    t.cleanup().await;
    result.map(|_| ())
}

pub async fn crash_drill_short(tb: Arc<Testbed>, ns: String) -> anyhow::Result<()> {
    crash(&tb, &ns, 40).await
}

pub async fn crash_drill_long(tb: Arc<Testbed>, ns: String) -> anyhow::Result<()> {
    crash(&tb, &ns, 200).await
}

/// The kube-apiserver process of the testbed.
fn api_server_pid(tb: &Testbed) -> anyhow::Result<u32> {
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(tb.dir.join("testbed.json"))?)?;
    let pid = state["components"]
        .as_array()
        .context("components")?
        .iter()
        .find(|c| c["name"] == "kube-apiserver")
        .and_then(|c| c["pid"].as_u64())
        .context("the testbed runs a kube-apiserver")?;
    Ok(pid as u32)
}

/// Stops the API server with SIGSTOP (it accepts connections and answers nothing, the harder
/// kind of outage) and always lets it go on again, even when the drill fails.
struct Stopped(u32);

impl Stopped {
    fn new(pid: u32) -> anyhow::Result<Self> {
        ensure!(
            std::process::Command::new("kill")
                .args(["-STOP", &pid.to_string()])
                .status()?
                .success()
        );
        Ok(Stopped(pid))
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-CONT", &self.0.to_string()])
            .status();
    }
}

async fn api_server_outage(tb: &Testbed, ns: &str, outage: Duration) -> anyhow::Result<()> {
    let t = Tephra::start(tb, ns).await?;
    let result = async {
        let mut ledger = Ledger::default();
        let mut dice = Dice::seeded();
        let mut n = 0;
        for _ in 0..6 {
            n += 1;
            let id = id_of(&t.submit(TRAININGS, &training(&format!("d{n}"), 0)).await?)?;
            ledger.asked.insert(id, Asked::Running);
        }
        converged(&t, &ledger, Duration::from_secs(60)).await?;
        let pid = api_server_pid(tb)?;
        let stopped = Stopped::new(pid)?;
        let began = Instant::now();
        let mut readyz_said = None;
        let mut slowest = Duration::ZERO;
        while began.elapsed() < outage {
            let asked = Instant::now();
            operate(&t, &mut ledger, &mut dice, &mut n).await?;
            slowest = slowest.max(asked.elapsed());
            let (status, body) = t.get("/readyz").await?;
            if status == 503 && readyz_said.is_none() {
                readyz_said = Some((
                    began.elapsed(),
                    body["reason"].as_str().unwrap_or_default().to_owned(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        drop(stopped);
        let back = converged(&t, &ledger, Duration::from_secs(60)).await?;
        let (said_at, said) =
            readyz_said.context("/readyz never said the cluster is unreachable")?;
        ensure!(
            said.contains("cluster") || said.contains("did not answer"),
            "{said}"
        );
        // The probe asks the API server every 5 s, and a reconcile that failed during the outage
        // may report its error after the probe's last answer: ready within two of its rounds.
        tephra_tests::wait_for(
            "/readyz ready again once the cluster is back",
            Duration::from_secs(12),
            || async { (t.get("/readyz").await.ok()?.0 == 200).then_some(()) },
        )
        .await?;
        eprintln!(
            "API server outage drill: {:.0} s outage, {} requests accepted during it, 0 answered \
             5xx, slowest answer {:.0} ms, /readyz said {said:?} after {:.1} s, converged {:.1} s \
             after the API server came back",
            outage.as_secs_f64(),
            ledger.accepted,
            slowest.as_secs_f64() * 1000.0,
            said_at.as_secs_f64(),
            back.as_secs_f64()
        );
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}

pub async fn api_server_outage_drill_short(tb: Arc<Testbed>, ns: String) -> anyhow::Result<()> {
    api_server_outage(&tb, &ns, Duration::from_secs(15)).await
}

pub async fn api_server_outage_drill_long(tb: Arc<Testbed>, ns: String) -> anyhow::Result<()> {
    api_server_outage(&tb, &ns, Duration::from_secs(60)).await
}
