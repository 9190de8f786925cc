//! The pod settings of Run:ai's current schema: registry secrets, category, required node
//! affinity, preemptibility, related links, restart policy and the grace period.

use super::spec::listed;
use crate::model::training::checked::{
    MAX_RUN_TIME_SECONDS, NodeRequirement, NodeTerm, PodSettings, RelatedLink,
};
use crate::model::training::request::{
    ImagePullSecret, MatchExpression, MatchOperator, NodeAffinityRequired, RelatedUrl,
    RestartPolicy, TrainingSpec,
};
use crate::model::training::values::ObjectName;
use crate::model::validation::{self as v, Errors, all, index, join};
use std::collections::BTreeSet;

/// Secrets the kubelet pulls the image with: object names, each once; excluded ones left out.
pub(super) fn pull_secrets(
    errors: &mut Errors,
    secrets: &[ImagePullSecret],
    path: &str,
) -> Option<Vec<ObjectName>> {
    let mut seen = BTreeSet::new();
    let checked = secrets.iter().enumerate().map(|(i, secret)| {
        let at = index(path, i);
        if let ImagePullSecret::Secret(s) = secret {
            if s.exclude == Some(true) {
                return Some(None);
            }
            if s.user_credential == Some(true) {
                errors.add(
                    join(&at, "userCredential"),
                    "Tephra has no per-user credentials: name a Kubernetes secret in the \
                     project's namespace and leave userCredential out or false",
                );
                return None;
            }
        }
        let Some(name) = secret.name() else {
            errors.add(join(&at, "name"), "is required: the secret's name");
            return None;
        };
        let name_path = match secret {
            ImagePullSecret::Name(_) => at.clone(),
            ImagePullSecret::Secret(_) => join(&at, "name"),
        };
        let name = errors.take(name_path.clone(), ObjectName::new(name))?;
        if !seen.insert(name.clone()) {
            errors.add(name_path, format!("lists {:?} twice", name.as_str()));
            return None;
        }
        Some(Some(name))
    });
    all(checked.collect()).map(|names| names.into_iter().flatten().collect())
}

pub(super) fn settings(errors: &mut Errors, s: &TrainingSpec, path: &str) -> Option<PodSettings> {
    let at = |field: &str| join(path, field);
    let category = errors.take_some(at("category"), s.category.as_deref(), |c| {
        // Rendered as a label value, so it must be one.
        v::label_value(c).map(|()| c.to_owned())
    });
    let node_affinity = match &s.node_affinity_required {
        None => Some(Vec::new()),
        Some(affinity) => node_affinity(errors, affinity, &at("nodeAffinityRequired")),
    };
    let related_urls = all(listed(&s.related_urls)
        .iter()
        .enumerate()
        .map(|(i, u)| related_url(errors, u, &index(&at("relatedUrls"), i)))
        .collect());
    if s.restart_policy == Some(RestartPolicy::Always) {
        errors.warn(
            at("restartPolicy"),
            "Always restarts the container even when it exits successfully, so the training \
             only ends when it is suspended or deleted; OnFailure restarts it only on failure",
        );
    }
    let grace = errors.take_some(
        at("terminationGracePeriodSeconds"),
        s.termination_grace_period_seconds,
        |seconds| v::at_least(seconds, 0).map(|()| seconds),
    );
    let limit = errors.take_some(at("maxRunTimeSeconds"), s.max_run_time_seconds, |seconds| {
        if MAX_RUN_TIME_SECONDS.contains(&seconds) {
            Ok(seconds)
        } else {
            Err(format!(
                "must be from {} to {} seconds (a minute to a year), or left out for no \
                     limit (got {seconds})",
                MAX_RUN_TIME_SECONDS.start(),
                MAX_RUN_TIME_SECONDS.end()
            ))
        }
    });
    Some(PodSettings {
        category: category?,
        node_affinity: node_affinity?,
        preemptibility: s.preemptibility,
        related_urls: related_urls?.into_iter().flatten().collect(),
        restart_policy: s.restart_policy,
        termination_grace_period_seconds: grace?,
        max_run_time_seconds: limit?,
    })
}

fn node_affinity(
    errors: &mut Errors,
    affinity: &NodeAffinityRequired,
    path: &str,
) -> Option<Vec<NodeTerm>> {
    let terms_path = join(path, "nodeSelectorTerms");
    let terms = listed(&affinity.node_selector_terms);
    if terms.is_empty() {
        errors.add(
            &terms_path,
            "needs at least one term (Kubernetes requires one)",
        );
        return None;
    }
    all(terms
        .iter()
        .enumerate()
        .map(|(i, term)| {
            let term_path = join(&index(&terms_path, i), "matchExpressions");
            let expressions = listed(&term.match_expressions);
            if expressions.is_empty() {
                errors.add(
                    &term_path,
                    "needs at least one expression (an empty term matches no node)",
                );
                return None;
            }
            all(expressions
                .iter()
                .enumerate()
                .map(|(j, e)| requirement(errors, e, &index(&term_path, j)))
                .collect())
            .map(NodeTerm)
        })
        .collect())
}

fn requirement(errors: &mut Errors, e: &MatchExpression, path: &str) -> Option<NodeRequirement> {
    let before = errors.count();
    errors.check(join(path, "key"), v::qualified_name(&e.key));
    let values = listed(&e.values);
    let values_path = join(path, "values");
    let Some(operator) = e.operator else {
        errors.add(
            join(path, "operator"),
            "is required: one of In, NotIn, Exists, DoesNotExist, Gt, Lt",
        );
        return None;
    };
    match operator {
        MatchOperator::In | MatchOperator::NotIn if values.is_empty() => {
            errors.add(
                &values_path,
                format!("needs at least one value with {}", operator.as_str()),
            );
        }
        MatchOperator::Exists | MatchOperator::DoesNotExist if !values.is_empty() => {
            errors.add(
                &values_path,
                format!("must be empty with {}", operator.as_str()),
            );
        }
        MatchOperator::Gt | MatchOperator::Lt
            if values.len() != 1 || values[0].parse::<i64>().is_err() =>
        {
            errors.add(
                &values_path,
                format!(
                    "must be one integer with {} (got {values:?})",
                    operator.as_str()
                ),
            );
        }
        _ => {}
    }
    for (i, value) in values.iter().enumerate() {
        errors.check(index(&values_path, i), v::label_value(value));
    }
    (errors.count() == before).then(|| NodeRequirement {
        key: e.key.clone(),
        operator,
        values: values.to_vec(),
    })
}

/// `Some(None)` for an excluded link.
fn related_url(errors: &mut Errors, u: &RelatedUrl, path: &str) -> Option<Option<RelatedLink>> {
    if u.exclude == Some(true) {
        return Some(None);
    }
    let before = errors.count();
    let url = u.url.as_deref().unwrap_or_default();
    if !(url.starts_with("https://") || url.starts_with("http://"))
        || url.len() > 2048
        || url.chars().any(char::is_whitespace)
    {
        errors.add(
            join(path, "url"),
            format!("must be an http or https URL of at most 2048 characters (got {url:?})"),
        );
    }
    let kind = u.kind.as_deref().unwrap_or_default();
    if kind.trim().is_empty() {
        errors.add(
            join(path, "type"),
            "is required: the kind of service, e.g. wandb",
        );
    }
    (errors.count() == before).then(|| {
        Some(RelatedLink {
            name: u.name.clone(),
            kind: kind.to_owned(),
            url: url.to_owned(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepts, paths, refused, refuses, request, warns};
    use crate::model::training::parse;
    use crate::model::training::request::{MatchOperator, Preemptibility, RestartPolicy};
    use serde_json::json;

    #[test]
    fn run_ai_pull_secret_objects_and_plain_names_are_both_accepted() {
        let training = parse::training(&request(json!({ "imagePullSecrets": [
            "plain",
            { "name": "object", "userCredential": false },
            { "name": "left-out", "exclude": true },
        ] })))
        .unwrap();
        let names: Vec<&str> = training
            .spec()
            .image_pull_secrets
            .iter()
            .map(|n| n.as_str())
            .collect();
        assert_eq!(names, ["plain", "object"]);
        refuses(
            json!({ "imagePullSecrets": [{ "name": "mine", "userCredential": true }] }),
            "spec.imagePullSecrets[0].userCredential",
            "Tephra has no per-user credentials",
        );
        refuses(
            json!({ "imagePullSecrets": [{ "userCredential": false }] }),
            "spec.imagePullSecrets[0].name",
            "is required",
        );
        refuses(
            json!({ "imagePullSecrets": ["a", { "name": "a" }] }),
            "spec.imagePullSecrets[1].name",
            "lists \"a\" twice",
        );
        // A misspelt key inside the object is still named.
        let errors = refused(request(json!({ "imagePullSecrets": [{ "nmae": "a" }] })));
        assert_eq!(paths(&errors), ["spec.imagePullSecrets[0].nmae"]);
    }

    #[test]
    fn pod_settings_are_read_with_their_run_ai_meaning() {
        let training = parse::training(&request(json!({
            "category": "Train",
            "preemptibility": "non-preemptible",
            "restartPolicy": "OnFailure",
            "terminationGracePeriodSeconds": 60,
            "maxRunTimeSeconds": 7200,
            "relatedUrls": [
                { "url": "https://wandb.ai/team/run", "type": "wandb", "name": "run" },
                { "url": "https://old.example", "type": "x", "exclude": true },
            ],
            "nodeAffinityRequired": { "nodeSelectorTerms": [{ "matchExpressions": [
                { "key": "gpu.example/model", "operator": "In", "values": ["a100", "h100"] },
                { "key": "gpu.example/count", "operator": "Gt", "values": ["3"] },
            ] }] },
        })))
        .unwrap();
        let pod = &training.spec().pod;
        assert_eq!(pod.category.as_deref(), Some("Train"));
        assert_eq!(pod.preemptibility, Some(Preemptibility::NonPreemptible));
        assert_eq!(pod.restart_policy, Some(RestartPolicy::OnFailure));
        assert_eq!(pod.termination_grace_period_seconds, Some(60));
        assert_eq!(pod.max_run_time_seconds, Some(7200));
        assert_eq!(pod.related_urls.len(), 1);
        assert_eq!(pod.node_affinity[0].0[1].operator, MatchOperator::Gt);
    }

    #[test]
    fn bad_pod_settings_are_named() {
        refuses(
            json!({ "category": "not a label" }),
            "spec.category",
            "must be at most 63",
        );
        refuses(
            json!({ "terminationGracePeriodSeconds": -1 }),
            "spec.terminationGracePeriodSeconds",
            "at least 0",
        );
        refuses(
            json!({ "maxRunTimeSeconds": 59 }),
            "spec.maxRunTimeSeconds",
            "must be from 60 to 31536000 seconds (a minute to a year)",
        );
        refuses(
            json!({ "maxRunTimeSeconds": 31_536_001 }),
            "spec.maxRunTimeSeconds",
            "(got 31536001)",
        );
        refuses(
            json!({ "relatedUrls": [{ "url": "wandb.ai", "type": "wandb" }] }),
            "spec.relatedUrls[0].url",
            "must be an http or https URL",
        );
        refuses(
            json!({ "relatedUrls": [{ "url": "https://wandb.ai" }] }),
            "spec.relatedUrls[0].type",
            "is required",
        );
        refuses(
            json!({ "nodeAffinityRequired": { "nodeSelectorTerms": [] } }),
            "spec.nodeAffinityRequired.nodeSelectorTerms",
            "needs at least one term",
        );
        let term = |e| json!({ "nodeAffinityRequired": { "nodeSelectorTerms": [{ "matchExpressions": [e] }] } });
        let at = "spec.nodeAffinityRequired.nodeSelectorTerms[0].matchExpressions[0]";
        refuses(
            term(json!({ "key": "k", "operator": "In" })),
            &format!("{at}.values"),
            "needs at least one value with In",
        );
        refuses(
            term(json!({ "key": "k", "operator": "Exists", "values": ["v"] })),
            &format!("{at}.values"),
            "must be empty with Exists",
        );
        refuses(
            term(json!({ "key": "k", "operator": "Lt", "values": ["x"] })),
            &format!("{at}.values"),
            "must be one integer with Lt",
        );
        refuses(
            term(json!({ "key": "k/", "operator": "Exists" })),
            &format!("{at}.key"),
            "must be a name",
        );
        accepts(term(json!({ "key": "k", "operator": "DoesNotExist" })));
    }

    #[test]
    fn restart_policy_always_is_accepted_with_a_warning() {
        warns(
            json!({ "restartPolicy": "Always" }),
            "spec.restartPolicy",
            "Always restarts the container even when it exits successfully, so the training \
             only ends when it is suspended or deleted; OnFailure restarts it only on failure",
        );
        accepts(json!({ "restartPolicy": "Never" }));
    }
}
