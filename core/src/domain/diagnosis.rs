//! Why a training failed, restarts or is stuck, in one line, from what its pods and events say:
//! an image that cannot be pulled, a Secret or claim that is missing, a container killed for
//! memory, an exit code and what it usually means, a pod evicted or whose node was lost. Each
//! names the pod and container, and where Tephra can make the change, the fix
//! ([`crate::model::diagnosis::Fix`]) "Edit and resubmit" opens the form with.
//!
//! The first match wins, in the order below (most specific first); pods are read in name order.

use crate::domain::status::Observed;
use crate::model::diagnosis::{ContainerState, Fix, PodState};
use crate::model::live::EventInfo;
use crate::model::phase::Phase;
use std::collections::BTreeMap;

/// What went wrong, and how to fix it where Tephra can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    pub summary: String,
    pub fix: Option<Fix>,
}

/// Waiting reasons of a container whose image cannot be pulled.
const PULL_FAILURES: [&str; 4] = [
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "ErrImageNeverPull",
];

/// Waiting reasons of a container whose pod is still mounting its volumes.
const MOUNTING: [&str; 2] = ["ContainerCreating", "PodInitializing"];

/// What a workload in `phase` shows of its pods' trouble, if anything. A training that completed,
/// stops, was stopped or is being deleted explains itself; so does a preemption or a node lost
/// (its reason says so first) and a generic job's finish (Tephra's own verdict on its rules).
pub fn in_phase(phase: Phase, observed: &Observed, events: &[EventInfo]) -> Option<Diagnosis> {
    let explained = observed.preempted.is_some()
        || observed.lost_node.is_some()
        || observed.job.as_ref().is_some_and(|j| j.verdict.is_some());
    let applies = !explained
        && matches!(
            phase,
            Phase::Pending
                | Phase::Initializing
                | Phase::Running
                | Phase::Resuming
                | Phase::Unknown
                | Phase::Failed
        );
    if !applies {
        return None;
    }
    let states: BTreeMap<String, PodState> = observed
        .pods
        .iter()
        .map(|pod| (pod.name.clone(), pod.kubelet.clone()))
        .collect();
    diagnose(&states, events)
}

/// The diagnosis of a workload's pods (by name) and recent events, if anything is wrong.
pub fn diagnose(pods: &BTreeMap<String, PodState>, events: &[EventInfo]) -> Option<Diagnosis> {
    let each = |check: fn(&str, &PodState) -> Option<Diagnosis>| {
        pods.iter().find_map(|(name, pod)| check(name, pod))
    };
    each(cannot_pull)
        .or_else(|| each(cannot_configure))
        .or_else(|| cannot_mount(pods, events))
        .or_else(|| each(out_of_memory))
        .or_else(|| each(lost_or_evicted))
        .or_else(|| each(crash_looping))
        .or_else(|| each(exited))
}

fn cannot_pull(pod: &str, state: &PodState) -> Option<Diagnosis> {
    let (c, message) = state.containers.iter().find_map(|c| {
        let (reason, message) = c.waiting.as_ref()?;
        PULL_FAILURES
            .contains(&reason.as_str())
            .then_some((c, message))
    })?;
    let secrets = if state.pull_secrets.is_empty() {
        "it names no pull secret (imagePullSecrets), which a private registry needs".to_owned()
    } else {
        format!(
            "and that its pull secret {} may read it",
            quoted(&state.pull_secrets)
        )
    };
    Some(Diagnosis {
        summary: format!(
            "cannot pull image {:?} for container {} of pod {pod}: {}; check the image's name \
             and tag, {secrets}",
            c.image,
            c.name,
            first_line(message)
        ),
        fix: Some(Fix::Image {
            image: c.image.clone(),
        }),
    })
}

fn cannot_configure(pod: &str, state: &PodState) -> Option<Diagnosis> {
    let (c, message) = state.containers.iter().find_map(|c| {
        let (reason, message) = c.waiting.as_ref()?;
        (reason == "CreateContainerConfigError").then_some((c, message))
    })?;
    // The kubelet's words when `runAsNonRoot` meets an image whose user is root or a name.
    let what_to_do = if message.contains("runAsNonRoot") {
        "every container here runs as a user other than root: name one in the request \
         (security.uidGidSource custom with a runAsUid above 0), or use an image whose USER is \
         a numeric uid other than 0"
    } else {
        "create it in the project's namespace, or take it out of the request"
    };
    Some(Diagnosis {
        summary: format!(
            "container {} of pod {pod} cannot start: {}; {what_to_do}",
            c.name,
            first_line(message)
        ),
        fix: None,
    })
}

/// A pod's `FailedMount` event: the volume, and the claim or Secret it lacks. Only while that pod
/// has not started a container: the event outlives the trouble (an hour, on most clusters), and
/// a pod that mounted its volumes once the Secret appeared has nothing wrong with them.
fn cannot_mount(pods: &BTreeMap<String, PodState>, events: &[EventInfo]) -> Option<Diagnosis> {
    let not_started = |pod: &str| {
        pods.get(pod).is_some_and(|state| {
            state.containers.iter().all(|c| {
                c.waiting
                    .as_ref()
                    .is_some_and(|(reason, _)| MOUNTING.contains(&reason.as_str()))
            })
        })
    };
    let event = events.iter().rev().find(|e| {
        e.reason == "FailedMount" && e.object.strip_prefix("Pod/").is_some_and(&not_started)
    })?;
    let pod = event.object.trim_start_matches("Pod/");
    Some(Diagnosis {
        summary: format!(
            "pod {pod} cannot mount a volume: {}; check that the claim, Secret or ConfigMap it \
             names exists in the project's namespace",
            first_line(&event.message)
        ),
        fix: None,
    })
}

fn out_of_memory(pod: &str, state: &PodState) -> Option<Diagnosis> {
    let c = state.containers.iter().find(|c| {
        c.terminated
            .as_ref()
            .is_some_and(|t| t.reason == "OOMKilled")
    })?;
    let (limit, fix) = match c.memory_limit_mib {
        Some(mib) => {
            let more = more_memory(mib);
            (
                format!(
                    "at its limit of {mib} MiB; give it more, e.g. {more} MiB \
                     (compute.cpuMemoryLimit)"
                ),
                Some(Fix::Memory {
                    container: c.name.clone(),
                    mib: more,
                }),
            )
        }
        None => (
            "with no limit of its own, so its node ran short; set compute.cpuMemoryRequest to \
             what it needs so the scheduler finds a node with that much"
                .to_owned(),
            None,
        ),
    };
    Some(Diagnosis {
        summary: format!(
            "container {} of pod {pod} ran out of memory and was killed (OOMKilled) {limit}",
            c.name
        ),
        fix,
    })
}

/// Half as much again, rounded up to a whole 512 MiB.
fn more_memory(mib: u64) -> u64 {
    (mib + mib / 2).div_ceil(512) * 512
}

fn lost_or_evicted(pod: &str, state: &PodState) -> Option<Diagnosis> {
    let reason = state.reason.as_deref()?;
    let message = state.message.as_deref().map(first_line).unwrap_or_default();
    let summary = match reason {
        "Evicted" => format!(
            "pod {pod} was evicted by its node ({message}); the Job's policy decides whether it \
             restarts elsewhere"
        ),
        "NodeLost" | "NodeShutdown" | "Terminated" => format!(
            "pod {pod} lost its node ({reason}{}); the gang lost a member, and the Job's policy \
             decides whether it restarts",
            if message.is_empty() {
                String::new()
            } else {
                format!(": {message}")
            }
        ),
        _ => return None,
    };
    Some(Diagnosis { summary, fix: None })
}

/// Restarts after which a container that keeps exiting with an error is said to keep failing,
/// before the kubelet backs off (one or two are a retry, not a loop).
const CRASH_LOOP_RESTARTS: i32 = 3;

fn crash_looping(pod: &str, state: &PodState) -> Option<Diagnosis> {
    let c = state.containers.iter().find(|c| {
        c.waiting
            .as_ref()
            .is_some_and(|(r, _)| r == "CrashLoopBackOff")
            || (c.restarts >= CRASH_LOOP_RESTARTS
                && c.terminated.as_ref().is_some_and(|t| t.exit_code != 0))
    })?;
    let last = c
        .terminated
        .as_ref()
        .map(|t| {
            format!(
                "; it last exited with code {} ({})",
                t.exit_code,
                exit_meaning(t.exit_code)
            )
        })
        .unwrap_or_default();
    Some(Diagnosis {
        summary: format!(
            "container {} of pod {pod} keeps failing: restarted {} time(s){last}; its log (with \
             Previous) shows why",
            c.name, c.restarts
        ),
        fix: None,
    })
}

fn exited(pod: &str, state: &PodState) -> Option<Diagnosis> {
    let (c, t) = state.containers.iter().find_map(|c: &ContainerState| {
        let t = c.terminated.as_ref()?;
        (t.exit_code != 0).then_some((c, t))
    })?;
    let said = t
        .message
        .as_deref()
        .filter(|m| !m.trim().is_empty())
        .map(|m| format!(": {}", first_line(m)))
        .unwrap_or_default();
    Some(Diagnosis {
        summary: format!(
            "container {} of pod {pod} exited with code {} ({}){said}; its log shows why",
            c.name,
            t.exit_code,
            exit_meaning(t.exit_code)
        ),
        fix: None,
    })
}

/// What an exit code usually means.
pub fn exit_meaning(code: i32) -> &'static str {
    match code {
        1 => "a general error: the program failed",
        2 => "a usage error: a bad argument or shell builtin",
        126 => "the command is not executable",
        127 => "the command was not found in the image",
        134 => "aborted (SIGABRT), e.g. a failed assertion or a CUDA error",
        135 => "a bus error (SIGBUS), e.g. too little shared memory in /dev/shm",
        137 => "killed (SIGKILL): out of memory, or stopped from outside",
        139 => "a segmentation fault (SIGSEGV)",
        143 => "terminated (SIGTERM): asked to stop",
        c if c > 128 => "killed by a signal",
        _ => "the program's own code",
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

fn quoted(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    names.join(", ")
}

#[cfg(test)]
#[path = "diagnosis_tests.rs"]
mod tests;
