//! A generic job's success and failure rules (seeds/004) judged from its pods. A rule lists
//! replicas by type and index; it holds when every replica it lists succeeded (or failed).
//! Volcano's policies fire per pod or per task, so they cannot say "worker 0 and worker 1 both
//! failed": the controller asks [`judge`] whenever the pods change and records the verdict on the
//! Job ([`VERDICT_ANNOTATION`]), where the status derivation reads it.

use crate::domain::pods::Pods;
use crate::model::training::checked::Generic;
use crate::model::training::generic::FinishRule;
use std::collections::BTreeMap;

/// `Succeeded` or `Failed`, set once by Tephra on a generic job's Volcano Job.
pub const VERDICT_ANNOTATION: &str = "tephra.dev/verdict";
/// Which rule decided, in plain words.
pub const VERDICT_REASON_ANNOTATION: &str = "tephra.dev/verdict-reason";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Succeeded,
    Failed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Succeeded => "Succeeded",
            Outcome::Failed => "Failed",
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        [Outcome::Succeeded, Outcome::Failed]
            .into_iter()
            .find(|o| o.as_str() == s)
    }
}

/// What decided a generic job, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub outcome: Outcome,
    pub reason: String,
}

/// Where one replica stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    Succeeded,
    Failed,
    /// Not created yet, waiting, running, or restarting within its type's limit.
    Open,
}

/// One replica type as the judge needs it.
struct ReplicaType<'a> {
    kind: &'a str,
    count: i32,
    /// The restarts its pods may make (0 when they do not restart in place).
    limit: i32,
}

/// The verdict on a generic job named `job` with `pods` (by name), if a rule holds. Failure
/// rules are judged first: a job that met both at once has failed.
pub fn judge(request: &Generic, job: &str, pods: &Pods) -> Option<Verdict> {
    let types: Vec<ReplicaType<'_>> = request
        .replicas()
        .map(|r| ReplicaType {
            kind: &r.kind,
            count: r.count,
            limit: if r.restarts_in_place() { r.restarts } else { 0 },
        })
        .collect();
    let standing = standings(&types, job, pods);
    let spec = &request.request().spec;
    let failure = match spec.failure_rules.as_deref() {
        Some(rules) if !rules.is_empty() => first_holding(rules, &standing, Standing::Failed)
            .map(|(i, replicas)| format!("failure rule {} holds: {replicas} failed", i + 1)),
        _ => standing
            .iter()
            .find(|(_, s)| **s == Standing::Failed)
            .map(|((kind, i), _)| format!("{kind} {i} failed (the job has no failure rules, so any failed replica fails it)")),
    };
    if let Some(reason) = failure {
        return Some(Verdict {
            outcome: Outcome::Failed,
            reason,
        });
    }
    let success = match spec.success_rules.as_deref() {
        Some(rules) if !rules.is_empty() => first_holding(rules, &standing, Standing::Succeeded)
            .map(|(i, replicas)| format!("success rule {} holds: {replicas} succeeded", i + 1)),
        _ => standing
            .values()
            .all(|s| *s == Standing::Succeeded)
            .then(|| "every replica succeeded".to_owned()),
    };
    success.map(|reason| Verdict {
        outcome: Outcome::Succeeded,
        reason,
    })
}

/// Every replica's standing, by type and index. A pod that failed has failed; one that restarts
/// in place has failed once its type spent its restarts (Volcano's TaskFailed counts the
/// restarts of the type's running and pending pods against the task's maxRetry).
fn standings(
    types: &[ReplicaType<'_>],
    job: &str,
    pods: &Pods,
) -> BTreeMap<(String, i32), Standing> {
    let mut standing = BTreeMap::new();
    for t in types {
        let pod = |i: i32| pods.get(&format!("{job}-{}-{i}", t.kind));
        let restarted: i32 = (0..t.count)
            .filter_map(pod)
            .filter(|p| matches!(p.phase.as_str(), "Running" | "Pending"))
            .map(|p| p.restarts)
            .sum();
        let spent = t.limit > 0 && restarted >= t.limit;
        for i in 0..t.count {
            let s = match pod(i) {
                Some(p) if p.phase == "Succeeded" => Standing::Succeeded,
                Some(p) if p.phase == "Failed" => Standing::Failed,
                Some(p) if spent && p.restarts > 0 => Standing::Failed,
                _ => Standing::Open,
            };
            standing.insert((t.kind.to_owned(), i), s);
        }
    }
    standing
}

/// The first rule whose replicas all stand at `wanted`, with its index and the replicas in
/// words ("worker 0, worker 1").
fn first_holding(
    rules: &[FinishRule],
    standing: &BTreeMap<(String, i32), Standing>,
    wanted: Standing,
) -> Option<(usize, String)> {
    rules.iter().enumerate().find_map(|(i, rule)| {
        let listed: Vec<(String, i32)> = rule
            .iter()
            .flat_map(|(kind, indexes)| {
                indexes
                    .iter()
                    .filter_map(|&n| i32::try_from(n).ok())
                    .map(move |n| (kind.clone(), n))
            })
            .collect();
        let holds = !listed.is_empty()
            && listed
                .iter()
                .all(|replica| standing.get(replica) == Some(&wanted));
        holds.then(|| {
            let words: Vec<String> = listed.iter().map(|(k, n)| format!("{k} {n}")).collect();
            (i, words.join(", "))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::training::parse;
    use crate::model::workload::PodInfo;
    use serde_json::{Value, json};

    /// A generic job `j` with `ps` (1 replica) and `worker` (3 replicas, restarting up to twice),
    /// and the given rules.
    fn request(rules: Value) -> Generic {
        let mut spec = json!({ "replicaSpecs": [
            { "type": "ps", "spec": { "image": "x" } },
            { "type": "worker", "replicas": 3, "spec": { "image": "x" },
              "restartPolicy": { "policy": "OnFailure", "limit": 2 } }] });
        if let (Value::Object(spec), Value::Object(rules)) = (&mut spec, rules) {
            spec.extend(rules);
        }
        parse::generic(&json!({ "name": "j", "projectId": "p", "spec": spec }))
            .expect("a valid generic job")
    }

    /// Pods of job `j` from `(type, index, phase, restarts)`.
    fn pods(list: &[(&str, i32, &str, i32)]) -> Pods {
        list.iter()
            .map(|&(task, i, phase, restarts)| {
                let name = format!("j-{task}-{i}");
                PodInfo {
                    name,
                    task: task.into(),
                    node: None,
                    phase: phase.into(),
                    restarts,
                    created_at: None,
                    gpus: 0,
                    containers: Vec::new(),
                    kubelet: Default::default(),
                }
            })
            .collect()
    }

    fn outcome(rules: Value, list: &[(&str, i32, &str, i32)]) -> Option<(Outcome, String)> {
        judge(&request(rules), "j", &pods(list)).map(|v| (v.outcome, v.reason))
    }

    const RUNNING: [(&str, i32, &str, i32); 4] = [
        ("ps", 0, "Running", 0),
        ("worker", 0, "Running", 0),
        ("worker", 1, "Running", 0),
        ("worker", 2, "Running", 0),
    ];

    fn with(changes: &[(&str, i32, &str, i32)]) -> Vec<(&'static str, i32, String, i32)> {
        RUNNING
            .iter()
            .map(|&(t, i, p, r)| {
                changes
                    .iter()
                    .find(|c| c.0 == t && c.1 == i)
                    .map_or((t, i, p.to_owned(), r), |c| (t, i, c.2.to_owned(), c.3))
            })
            .collect()
    }

    fn judged(rules: Value, changes: &[(&str, i32, &str, i32)]) -> Option<(Outcome, String)> {
        let owned = with(changes);
        let list: Vec<(&str, i32, &str, i32)> = owned
            .iter()
            .map(|(t, i, p, r)| (*t, *i, p.as_str(), *r))
            .collect();
        outcome(rules, &list)
    }

    #[test]
    fn nothing_is_decided_while_every_replica_runs() {
        assert_eq!(judged(json!({}), &[]), None);
        assert_eq!(
            judged(json!({ "failureRules": [{ "worker": [0, 1] }] }), &[]),
            None
        );
    }

    #[test]
    fn a_failure_rule_holds_only_when_every_replica_it_lists_failed() {
        let rules = json!({ "failureRules": [{ "worker": [0, 1] }] });
        assert_eq!(judged(rules.clone(), &[("worker", 0, "Failed", 0)]), None);
        assert_eq!(
            judged(
                rules,
                &[("worker", 0, "Failed", 0), ("worker", 1, "Failed", 0)]
            ),
            Some((
                Outcome::Failed,
                "failure rule 1 holds: worker 0, worker 1 failed".into()
            ))
        );
    }

    #[test]
    fn without_failure_rules_any_failed_replica_fails_the_job() {
        let (outcome, reason) = judged(json!({}), &[("ps", 0, "Failed", 0)]).expect("decided");
        assert_eq!(outcome, Outcome::Failed);
        assert!(reason.starts_with("ps 0 failed"), "{reason}");
    }

    #[test]
    fn a_success_rule_holds_when_its_replicas_succeeded_whatever_the_others_do() {
        let rules = json!({ "successRules": [{ "ps": [0] }, { "worker": [0, 1, 2] }] });
        assert_eq!(
            judged(rules.clone(), &[("ps", 0, "Succeeded", 0)]),
            Some((
                Outcome::Succeeded,
                "success rule 1 holds: ps 0 succeeded".into()
            ))
        );
        assert_eq!(
            judged(
                rules,
                &[("worker", 0, "Succeeded", 0), ("worker", 1, "Succeeded", 0)]
            ),
            None
        );
    }

    #[test]
    fn without_success_rules_every_replica_must_succeed() {
        let all: Vec<(&str, i32, &str, i32)> = RUNNING
            .iter()
            .map(|&(t, i, _, r)| (t, i, "Succeeded", r))
            .collect();
        assert_eq!(
            outcome(json!({}), &all),
            Some((Outcome::Succeeded, "every replica succeeded".into()))
        );
        assert_eq!(
            outcome(json!({}), &all[..3]),
            None,
            "worker 2 has no pod yet"
        );
    }

    #[test]
    fn a_restarting_replica_fails_once_its_type_spent_its_restarts() {
        let rules = json!({ "failureRules": [{ "worker": [1] }] });
        assert_eq!(judged(rules.clone(), &[("worker", 1, "Running", 1)]), None);
        assert_eq!(
            judged(rules.clone(), &[("worker", 1, "Running", 2)]),
            Some((
                Outcome::Failed,
                "failure rule 1 holds: worker 1 failed".into()
            ))
        );
        // The limit is the type's: restarts of two pods add up.
        assert_eq!(
            judged(
                rules.clone(),
                &[("worker", 0, "Running", 1), ("worker", 1, "Running", 1)]
            )
            .map(|v| v.0),
            Some(Outcome::Failed)
        );
        // A type without restarts does not restart in place: only a failed pod has failed.
        assert_eq!(
            judged(
                json!({ "failureRules": [{ "ps": [0] }] }),
                &[("ps", 0, "Running", 5)]
            ),
            None
        );
    }

    #[test]
    fn failure_is_judged_before_success() {
        let rules = json!({ "successRules": [{ "ps": [0] }], "failureRules": [{ "worker": [2] }] });
        assert_eq!(
            judged(
                rules,
                &[("ps", 0, "Succeeded", 0), ("worker", 2, "Failed", 0)]
            )
            .map(|v| v.0),
            Some(Outcome::Failed)
        );
    }
}
