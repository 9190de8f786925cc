//! Generic multi-replica requests: every replica type's spec is a training spec under its own
//! path, and the generic form's own rules (replica types, finish rules, run modes, clean-up).

use super::header::header;
use super::spec::spec;
use crate::model::training::checked::{Generic, Override, Replica, Spec};
use crate::model::training::generic::{
    CleanUpPolicy, GenericRequest, GenericSpec, REPLICA_TYPE_MAX, ReplicaOverride,
};
use crate::model::training::request::RestartPolicy;
use crate::model::training::values::{Words, int32};
use crate::model::validation::{self as v, Errors, FieldError, all, index, join};
use std::collections::{BTreeMap, BTreeSet};

/// Checks a generic request; every problem is reported, by path.
pub fn generic(req: GenericRequest) -> Result<Generic, Vec<FieldError>> {
    let mut errors = Errors::default();
    header(
        &mut errors,
        &req.name,
        req.use_given_name_as_prefix,
        &req.project_id,
        &req.cluster_id,
    );
    let specs: Vec<Option<Spec>> = req
        .spec
        .replica_specs
        .iter()
        .enumerate()
        .map(|(i, replica)| {
            spec(
                &mut errors,
                &replica.spec,
                &format!("spec.replicaSpecs[{i}].spec"),
            )
        })
        .collect();
    let ReplicaTypes { sizes, names } = replica_types(&mut errors, &req.spec);
    finish_rules(&mut errors, &req.spec, &names);
    let overrides = run_mode(&mut errors, &req.spec, &names);
    if req.spec.clean_up_policy == Some(CleanUpPolicy::All)
        && req
            .spec
            .replica_specs
            .iter()
            .any(|r| r.spec.auto_deletion_time_after_completion_seconds.is_some())
    {
        errors.add(
            "spec.cleanUpPolicy",
            "All deletes the job as soon as it finishes; remove autoDeletionTimeAfterCompletionSeconds or choose another policy",
        );
    }
    let replicas = all(specs)
        .zip(sizes)
        .zip(overrides)
        .map(|((specs, sizes), overrides)| replicas(&req.spec, specs, sizes, &overrides));
    errors
        .finish_warned(replicas.and_then(|replicas| Generic::new(req, replicas)))
        .map(|(generic, warnings)| generic.warned(warnings))
}

/// Each replica type's replicas and restarts, and the replicas of each type by name.
struct ReplicaTypes<'a> {
    /// `(replicas, restarts)` per replica type, if every one was valid.
    sizes: Option<Vec<(i32, Restarts)>>,
    /// The replicas of each type (1 where the count was invalid, so rules are still checked).
    names: BTreeMap<&'a str, i32>,
}

/// How a replica type's pods restart: the pod's restart policy, and how many restarts of the
/// type's pods Volcano allows before the type has failed (0: none).
#[derive(Debug, Clone, Copy)]
struct Restarts(RestartPolicy, i32);

fn replica_types<'a>(errors: &mut Errors, spec: &'a GenericSpec) -> ReplicaTypes<'a> {
    let mut types = BTreeMap::new();
    if spec.replica_specs.is_empty() {
        errors.add("spec.replicaSpecs", "must list at least one replica type");
    }
    let mut sizes = Vec::new();
    for (i, replica) in spec.replica_specs.iter().enumerate() {
        let at = index("spec.replicaSpecs", i);
        let count = errors.take(join(&at, "replicas"), {
            let n = replica.replicas.unwrap_or(1);
            i32::try_from(n)
                .ok()
                .filter(|n| (1..=9999).contains(n))
                .ok_or_else(|| format!("must be from 1 to 9999 (got {n})"))
        });
        match v::dns1123_label(&replica.kind, REPLICA_TYPE_MAX) {
            Err(message) => errors.add(join(&at, "type"), message),
            Ok(()) if types.contains_key(replica.kind.as_str()) => errors.add(
                join(&at, "type"),
                format!("{:?} is used twice", replica.kind),
            ),
            Ok(()) => {
                types.insert(replica.kind.as_str(), count.unwrap_or(1));
            }
        }
        let restart = replica.restart_policy.clone().unwrap_or_default();
        let policy = restart.policy.unwrap_or(RestartPolicy::OnFailure);
        // The task's maxRetry is an int32.
        let limit = errors.take_some(
            join(&join(&at, "restartPolicy"), "limit"),
            restart.limit,
            |n| int32(n, 0),
        );
        let inner = join(&at, "spec");
        for (field, set) in [
            ("completions", replica.spec.completions.is_some()),
            ("parallelism", replica.spec.parallelism.is_some()),
        ] {
            if set {
                errors.add(join(&inner, field), "is not used here; set replicas");
            }
        }
        if replica.spec.restart_policy.is_some() {
            errors.add(
                join(&inner, "restartPolicy"),
                format!(
                    "is set by {at}.restartPolicy in a generic job (policy OnFailure, Never or \
                     Always, and a limit); remove it here"
                ),
            );
        }
        if policy == RestartPolicy::Never && restart.limit.is_some_and(|n| n > 0) {
            errors.warn(
                join(&join(&at, "restartPolicy"), "limit"),
                "has no effect with policy Never: the pods never restart",
            );
        }
        let restarts = limit.map(|limit| Restarts(policy, limit.unwrap_or(0)));
        sizes.push(count.zip(restarts));
    }
    ReplicaTypes {
        sizes: all(sizes),
        names: types,
    }
}

/// Each rule lists replicas of this job: types it has, indexes below their replicas.
fn finish_rules(errors: &mut Errors, spec: &GenericSpec, types: &BTreeMap<&str, i32>) {
    for (field, rules) in [
        ("successRules", &spec.success_rules),
        ("failureRules", &spec.failure_rules),
    ] {
        for (i, rule) in rules.iter().flatten().enumerate() {
            let at = index(&join("spec", field), i);
            if rule.is_empty() {
                errors.add(
                    &at,
                    "must list replicas by type and index, e.g. {\"worker\": [0, 1]}",
                );
            }
            for (kind, indexes) in rule {
                let at = join(&at, kind);
                let Some(&replicas) = types.get(kind.as_str()) else {
                    errors.add(&at, format!("{kind:?} is not a replica type of this job"));
                    continue;
                };
                if indexes.is_empty() {
                    errors.add(
                        &at,
                        format!("must list replica indexes, from 0 to {}", replicas - 1),
                    );
                }
                let mut seen = BTreeSet::new();
                for (j, &n) in indexes.iter().enumerate() {
                    if !(0..i64::from(replicas)).contains(&n) {
                        errors.add(
                            index(&at, j),
                            format!(
                                "must be a replica index from 0 to {} ({kind} has {replicas} \
                                 replicas; got {n})",
                                replicas - 1
                            ),
                        );
                    } else if !seen.insert(n) {
                        errors.add(index(&at, j), format!("{n} is listed twice"));
                    }
                }
            }
        }
    }
}

/// The debug and the resume overrides, by replica type, each in the request's order.
type Overrides = (Vec<(String, Override)>, Vec<(String, Override)>);

fn run_mode(
    errors: &mut Errors,
    spec: &GenericSpec,
    types: &BTreeMap<&str, i32>,
) -> Option<Overrides> {
    let Some(mode) = &spec.run_mode else {
        return Some(Default::default());
    };
    if mode.debug.as_ref().is_some_and(|d| d.enabled)
        && mode.pause.as_ref().is_some_and(|p| p.enabled)
    {
        errors.add("spec.runMode", "debug and pause cannot both be enabled");
    }
    let debug = overrides(
        errors,
        "spec.runMode.debug.replicaSpecs",
        mode.debug.as_ref().and_then(|d| d.replica_specs.as_deref()),
        types,
    );
    let resume = overrides(
        errors,
        "spec.runMode.pause.resumeSpecs",
        mode.pause.as_ref().and_then(|p| p.resume_specs.as_deref()),
        types,
    );
    debug.zip(resume)
}

fn overrides(
    errors: &mut Errors,
    path: &str,
    list: Option<&[ReplicaOverride]>,
    types: &BTreeMap<&str, i32>,
) -> Option<Vec<(String, Override)>> {
    let mut checked = Vec::new();
    for (i, o) in list.unwrap_or_default().iter().enumerate() {
        let at = index(path, i);
        let known = types.contains_key(o.kind.as_str());
        if !known {
            errors.add(
                join(&at, "type"),
                format!("{:?} is not a replica type of this job", o.kind),
            );
        }
        let command = errors.take_some(join(&at, "command"), o.command.as_deref(), Words::split);
        let args = errors.take_some(join(&at, "args"), o.args.as_deref(), Words::split);
        checked.push(command.zip(args).filter(|_| known).map(|(command, args)| {
            let skip_init_container = o.skip_init_container == Some(true);
            (
                o.kind.clone(),
                Override {
                    command,
                    args,
                    skip_init_container,
                },
            )
        }));
    }
    all(checked)
}

/// The checked replica types, each with the run mode's override that applies to it.
fn replicas(
    spec: &GenericSpec,
    specs: Vec<Spec>,
    sizes: Vec<(i32, Restarts)>,
    (debug, resume): &Overrides,
) -> Vec<Replica> {
    let find = |list: &[(String, Override)], kind: &str| {
        list.iter().find(|(k, _)| k == kind).map(|(_, o)| o.clone())
    };
    spec.replica_specs
        .iter()
        .zip(specs)
        .zip(sizes)
        .map(
            |((replica, checked), (count, Restarts(policy, limit)))| Replica {
                kind: replica.kind.clone(),
                count,
                restart_policy: policy,
                restarts: limit,
                spec: checked,
                // In debug mode every type runs something else: its override, or a default.
                debug: spec
                    .debug()
                    .map(|_| find(debug, &replica.kind).unwrap_or_default()),
                resume: spec
                    .starts_paused()
                    .then(|| find(resume, &replica.kind))
                    .flatten(),
            },
        )
        .collect()
}

#[cfg(test)]
mod tests;
