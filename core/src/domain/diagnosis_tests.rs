//! Shapes as the kubelet reports them (container statuses and events copied from real clusters'
//! `kubectl get pod -o yaml` and `kubectl get events`).

use super::*;
use crate::model::diagnosis::Termination;
use crate::model::live::EventType;

fn container(name: &str) -> ContainerState {
    ContainerState {
        name: name.into(),
        image: "ghcr.io/acme/train:v3".into(),
        ..ContainerState::default()
    }
}

fn one(pod: PodState) -> BTreeMap<String, PodState> {
    BTreeMap::from([("train-worker-0".to_owned(), pod)])
}

fn with(containers: Vec<ContainerState>) -> PodState {
    PodState {
        containers,
        ..PodState::default()
    }
}

fn ended(reason: &str, exit_code: i32) -> Option<Termination> {
    Some(Termination {
        reason: reason.into(),
        exit_code,
        message: None,
    })
}

#[test]
fn an_image_that_cannot_be_pulled_names_the_image_and_the_secret() {
    let mut c = container("trainer");
    c.waiting = Some((
        "ImagePullBackOff".into(),
        "Back-off pulling image \"ghcr.io/acme/train:v3\"".into(),
    ));
    let mut pod = with(vec![c]);
    let found = diagnose(&one(pod.clone()), &[]).unwrap();
    assert!(
        found.summary.starts_with(
            "cannot pull image \"ghcr.io/acme/train:v3\" for container trainer of pod \
             train-worker-0: Back-off pulling image"
        ),
        "{}",
        found.summary
    );
    assert!(found.summary.contains("names no pull secret"));
    assert_eq!(
        found.fix,
        Some(Fix::Image {
            image: "ghcr.io/acme/train:v3".into()
        })
    );
    pod.pull_secrets = vec!["ghcr-creds".into()];
    let found = diagnose(&one(pod), &[]).unwrap();
    assert!(
        found
            .summary
            .ends_with("its pull secret \"ghcr-creds\" may read it")
    );
}

#[test]
fn a_missing_secret_or_claim_is_named() {
    let mut c = container("trainer");
    c.waiting = Some((
        "CreateContainerConfigError".into(),
        "secret \"wandb\" not found".into(),
    ));
    let found = diagnose(&one(with(vec![c])), &[]).unwrap();
    assert_eq!(
        found.summary,
        "container trainer of pod train-worker-0 cannot start: secret \"wandb\" not found; \
         create it in the project's namespace, or take it out of the request"
    );
    let mut root = container("trainer");
    root.waiting = Some((
        "CreateContainerConfigError".into(),
        "container has runAsNonRoot and image will run as root (pod: \"train-worker-0_ns\", \
         container: trainer)"
            .into(),
    ));
    let found = diagnose(&one(with(vec![root])), &[]).unwrap();
    assert!(
        found.summary.ends_with(
            "name one in the request (security.uidGidSource custom with a runAsUid above 0), \
             or use an image whose USER is a numeric uid other than 0"
        ),
        "{}",
        found.summary
    );
    let event = EventInfo {
        at: None,
        kind: EventType::Warning,
        reason: "FailedMount".into(),
        message: "MountVolume.SetUp failed for volume \"data\" : persistentvolumeclaim \
                  \"imagenet\" not found"
            .into(),
        object: "Pod/train-worker-0".into(),
        count: 3,
    };
    let mut mounting = container("trainer");
    mounting.waiting = Some(("ContainerCreating".into(), String::new()));
    let found = diagnose(&one(with(vec![mounting])), std::slice::from_ref(&event)).unwrap();
    assert!(found.summary.starts_with(
        "pod train-worker-0 cannot mount a volume: MountVolume.SetUp failed for volume \"data\" \
         : persistentvolumeclaim \"imagenet\" not found"
    ));
    // Once the claim exists and the container runs, the event left behind says nothing more.
    assert_eq!(
        diagnose(&one(with(vec![container("trainer")])), &[event]),
        None
    );
}

#[test]
fn out_of_memory_suggests_half_as_much_again() {
    let mut c = container("trainer");
    c.terminated = ended("OOMKilled", 137);
    c.memory_limit_mib = Some(4096);
    let found = diagnose(&one(with(vec![c.clone()])), &[]).unwrap();
    assert_eq!(
        found.summary,
        "container trainer of pod train-worker-0 ran out of memory and was killed (OOMKilled) \
         at its limit of 4096 MiB; give it more, e.g. 6144 MiB (compute.cpuMemoryLimit)"
    );
    assert_eq!(
        found.fix,
        Some(Fix::Memory {
            container: "trainer".into(),
            mib: 6144
        })
    );
    assert_eq!(more_memory(1000), 1536);
    c.memory_limit_mib = None;
    let found = diagnose(&one(with(vec![c])), &[]).unwrap();
    assert!(found.summary.contains("with no limit of its own"));
    assert_eq!(found.fix, None);
}

#[test]
fn exit_codes_say_what_they_usually_mean() {
    let mut c = container("trainer");
    c.terminated = ended("Error", 127);
    let found = diagnose(&one(with(vec![c])), &[]).unwrap();
    assert_eq!(
        found.summary,
        "container trainer of pod train-worker-0 exited with code 127 (the command was not \
         found in the image); its log shows why"
    );
    assert_eq!(exit_meaning(139), "a segmentation fault (SIGSEGV)");
    assert_eq!(exit_meaning(130), "killed by a signal");
    assert_eq!(exit_meaning(3), "the program's own code");
    // A container that succeeded says nothing.
    let mut done = container("trainer");
    done.terminated = ended("Completed", 0);
    assert_eq!(diagnose(&one(with(vec![done])), &[]), None);
}

#[test]
fn a_crash_loop_counts_its_restarts() {
    let mut c = container("trainer");
    c.restarts = 5;
    c.waiting = Some(("CrashLoopBackOff".into(), "back-off 2m40s".into()));
    c.terminated = ended("Error", 1);
    let found = diagnose(&one(with(vec![c])), &[]).unwrap();
    assert_eq!(
        found.summary,
        "container trainer of pod train-worker-0 keeps failing: restarted 5 time(s); it last \
         exited with code 1 (a general error: the program failed); its log (with Previous) \
         shows why"
    );
}

#[test]
fn evicted_and_lost_pods_are_told_apart() {
    let evicted = PodState {
        reason: Some("Evicted".into()),
        message: Some("The node was low on resource: ephemeral-storage.".into()),
        ..PodState::default()
    };
    let found = diagnose(&one(evicted), &[]).unwrap();
    assert!(found.summary.starts_with(
        "pod train-worker-0 was evicted by its node (The node was low on resource: \
         ephemeral-storage.)"
    ));
    let lost = PodState {
        reason: Some("NodeLost".into()),
        ..PodState::default()
    };
    let found = diagnose(&one(lost), &[]).unwrap();
    assert!(
        found
            .summary
            .starts_with("pod train-worker-0 lost its node (NodeLost); the gang lost a member")
    );
}

#[test]
fn the_most_specific_finding_wins_and_healthy_pods_say_nothing() {
    let mut pulling = container("sidecar");
    pulling.waiting = Some(("ErrImagePull".into(), "not found".into()));
    let mut failed = container("trainer");
    failed.terminated = ended("Error", 1);
    let found = diagnose(&one(with(vec![failed, pulling])), &[]).unwrap();
    assert!(found.summary.starts_with("cannot pull image"));
    let mut running = container("trainer");
    running.waiting = None;
    assert_eq!(diagnose(&one(with(vec![running])), &[]), None);
    assert_eq!(diagnose(&BTreeMap::new(), &[]), None);
}

#[test]
fn tephras_own_verdict_and_a_preemption_explain_themselves() {
    use crate::domain::finish::{Outcome, Verdict};
    use crate::domain::status::{JobObservation, Observed};
    let mut c = container("worker");
    c.terminated = ended("Error", 1);
    let pod = crate::model::live::PodInfo {
        name: "rules-worker-0".into(),
        kubelet: with(vec![c]),
        ..Default::default()
    };
    let mut observed = Observed {
        pods: [pod].into_iter().collect(),
        ..Observed::default()
    };
    assert!(in_phase(Phase::Failed, &observed, &[]).is_some());
    assert_eq!(in_phase(Phase::Completed, &observed, &[]), None);
    observed.job = Some(JobObservation {
        verdict: Some(Verdict {
            outcome: Outcome::Failed,
            reason: "failure rule 1 holds: worker 0, worker 1 failed".into(),
        }),
        ..JobObservation::default()
    });
    assert_eq!(in_phase(Phase::Failed, &observed, &[]), None);
}
