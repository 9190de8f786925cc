//! The rules of one container's spec that every kind of training shares, in the order a client
//! sees their errors, and how the job finishes. The container itself, compute, storage,
//! security and scheduling have files of their own.

use super::container::{container, environment, exposed_urls, name_values, ports, probe};
use super::{compute, pod, scheduling, security, storage};
use crate::model::training::checked::Spec;
use crate::model::training::request::TrainingSpec;
use crate::model::training::values::{ObjectName, int32};
use crate::model::validation::{self as v, Errors, all, index, join};

/// One container's spec. Every spec names its own image: a distributed master's spec replaces the
/// worker's and inherits nothing from it.
pub(super) fn spec(errors: &mut Errors, s: &TrainingSpec, path: &str) -> Option<Spec> {
    let at = |field: &str| join(path, field);
    let container = container(errors, s, path);
    let pull_secrets = pod::pull_secrets(
        errors,
        listed(&s.image_pull_secrets),
        &at("imagePullSecrets"),
    );
    let readiness = optional(s.probes.as_ref().and_then(|p| p.readiness.as_ref()), |r| {
        probe(errors, r, &join(&at("probes"), "readiness"))
    });
    let placement = scheduling::placement(errors, s, path);
    let environment = environment(
        errors,
        listed(&s.environment_variables),
        &at("environmentVariables"),
    );
    let annotations = name_values(errors, listed(&s.annotations), &at("annotations"), false);
    let labels = name_values(errors, listed(&s.labels), &at("labels"), true);
    let tolerations = all(listed(&s.tolerations)
        .iter()
        .enumerate()
        .map(|(i, t)| scheduling::toleration(errors, t, &index(&at("tolerations"), i)))
        .collect());
    let finishing = finishing(errors, s, path);
    let ports = ports(errors, listed(&s.ports), &at("ports"));
    let exposed_urls = exposed_urls(errors, listed(&s.exposed_urls), &at("exposedUrls"));
    let priority_class = errors.take_some(
        at("priorityClass"),
        s.priority_class.as_deref(),
        ObjectName::new,
    );
    let compute = optional(s.compute.as_ref(), |c| {
        compute::compute(errors, c, &at("compute"))
    });
    let storage = match &s.storage {
        None => Some(Default::default()),
        Some(storage) => storage::storage_rules(errors, storage, &at("storage")),
    };
    let security = optional(s.security.as_ref(), |security| {
        security::security_rules(errors, security, &at("security"))
    });
    let pod = pod::settings(errors, s, path);
    let (image, command, args, working_dir) = container?;
    let (node_type, node_pools, pod_affinity) = placement?;
    let (environment, excluded_environment) = environment?;
    let (auto_deletion_seconds, backoff_limit) = finishing?;
    Some(Spec {
        image,
        image_pull_policy: s.image_pull_policy,
        image_pull_secrets: pull_secrets?,
        command,
        args,
        working_dir,
        create_home_dir: s.create_home_dir == Some(true),
        tty: s.tty == Some(true),
        stdin: s.stdin == Some(true),
        readiness: readiness?,
        node_type,
        node_pools,
        pod_affinity,
        environment,
        excluded_environment,
        labels: labels?,
        annotations: annotations?,
        tolerations: tolerations?,
        terminate_after_preemption: s.terminate_after_preemption == Some(true),
        auto_deletion_seconds,
        backoff_limit,
        ports: ports?,
        exposed_urls: exposed_urls?,
        priority_class: priority_class?,
        compute: compute?,
        storage: storage?,
        security: security?,
        pod: pod?,
    })
}

/// A section left out checks as nothing (`Some(None)`); one given as what `check` makes of it,
/// `None` when it is wrong.
fn optional<T, U>(given: Option<&T>, check: impl FnOnce(&T) -> Option<U>) -> Option<Option<U>> {
    match given {
        None => Some(None),
        Some(value) => check(value).map(Some),
    }
}

/// A list left out holds nothing, like an empty one.
pub(super) fn listed<T>(items: &Option<Vec<T>>) -> &[T] {
    items.as_deref().unwrap_or_default()
}

/// What happens once the job's pods end: when the job is deleted and how often it is retried.
fn finishing(
    errors: &mut Errors,
    s: &TrainingSpec,
    path: &str,
) -> Option<(Option<i32>, Option<i32>)> {
    let at = |field: &str| join(path, field);
    // The Job's ttlSecondsAfterFinished is an int32.
    let ttl = errors.take_some(
        at("autoDeletionTimeAfterCompletionSeconds"),
        s.auto_deletion_time_after_completion_seconds,
        |seconds| int32(seconds, 0),
    );
    let backoff = match s.backoff_limit {
        None => Some(None),
        Some(limit) => {
            errors.check(at("backoffLimit"), v::at_least(limit, 0));
            if limit > 100 {
                errors.add(
                    at("backoffLimit"),
                    format!("must be at most 100 (got {limit})"),
                );
            }
            // Within 0..=100 when nothing was refused.
            i32::try_from(limit)
                .ok()
                .filter(|n| (0..=100).contains(n))
                .map(Some)
        }
    };
    Some((ttl?, backoff?))
}

/// How many pods a single-task training runs at a time and how many must succeed:
/// `parallelism` (1 when not set) and `completions`, as in Run:ai (completions may exceed
/// parallelism). Distributed and generic requests size their tasks in their own fields and
/// refuse these.
pub(super) fn job_size(errors: &mut Errors, s: &TrainingSpec) -> Option<(i32, Option<i32>)> {
    // Both are int32 in the Volcano Job (minAvailable, replicas, minSuccess); how many pods
    // this Tephra allows is the server's limit, checked on submit.
    let parallelism = errors.take_some("spec.parallelism", s.parallelism, |n| int32(n, 1));
    let completions = errors.take_some("spec.completions", s.completions, |n| int32(n, 1));
    Some((parallelism?.unwrap_or(1), completions?))
}

#[cfg(test)]
mod tests;
