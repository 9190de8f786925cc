//! The rules of one container's spec that every kind of training shares: the container itself,
//! its probe, environment, labels and annotations, ports, and how the job finishes. Compute,
//! storage, security and scheduling have files of their own.

use super::{compute, scheduling, security, storage};
use crate::model::training::request::{
    EnvironmentVariable, NameValue, Port, Probe, ServiceType, TrainingSpec,
};
use crate::model::validation::{self as v, Errors, index, join};
use std::collections::BTreeSet;

/// One container's spec. `needs_image`: the master of a distributed training inherits nothing, so
/// every spec needs its own image.
pub(super) fn spec(errors: &mut Errors, s: &TrainingSpec, path: &str, needs_image: bool) {
    let at = |field: &str| join(path, field);
    container(errors, s, path, needs_image);
    if let Some(probes) = &s.probes
        && let Some(readiness) = &probes.readiness
    {
        probe(errors, readiness, &join(&at("probes"), "readiness"));
    }
    scheduling::placement(errors, s, path);
    if let Some(env) = &s.environment_variables {
        environment(errors, env, &at("environmentVariables"));
    }
    if let Some(annotations) = &s.annotations {
        name_values(errors, annotations, &at("annotations"), false);
    }
    if let Some(labels) = &s.labels {
        name_values(errors, labels, &at("labels"), true);
    }
    if let Some(tolerations) = &s.tolerations {
        for (i, t) in tolerations.iter().enumerate() {
            scheduling::toleration(errors, t, &index(&at("tolerations"), i));
        }
    }
    finishing(errors, s, path);
    if let Some(ports) = &s.ports {
        ports_rules(errors, ports, &at("ports"));
    }
    if let Some(urls) = &s.exposed_urls {
        for (i, url) in urls.iter().enumerate() {
            errors.check(
                join(&index(&at("exposedUrls"), i), "container"),
                v::port(url.container),
            );
        }
    }
    if let Some(class) = &s.priority_class {
        errors.check(at("priorityClass"), v::dns1123_subdomain(class));
    }
    if let Some(c) = &s.compute {
        compute::compute(errors, c, &at("compute"));
    }
    if let Some(storage) = &s.storage {
        storage::storage_rules(errors, storage, &at("storage"));
    }
    if let Some(security) = &s.security {
        security::security_rules(errors, security, &at("security"));
    }
}

fn container(errors: &mut Errors, s: &TrainingSpec, path: &str, needs_image: bool) {
    let at = |field: &str| join(path, field);
    match s.image.as_deref().map(str::trim) {
        None | Some("") if needs_image || s.image.is_some() => {
            errors.add(at("image"), "is required: the container image to run, e.g. pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime")
        }
        Some(image) if image.contains(char::is_whitespace) => {
            errors.add(at("image"), format!("must not contain spaces (got {image:?})"))
        }
        _ => {}
    }
    for field in ["command", "args"] {
        let value = if field == "command" {
            &s.command
        } else {
            &s.args
        };
        if let Some(value) = value
            && let Err(message) = v::shell_words(value)
        {
            errors.add(
                at(field),
                format!("{message}; it is split into words like a shell does"),
            );
        }
    }
    if let Some(dir) = &s.working_dir {
        errors.check(at("workingDir"), v::absolute_path(dir));
    }
}

fn probe(errors: &mut Errors, p: &Probe, path: &str) {
    for (field, value, min) in [
        ("initialDelaySeconds", p.initial_delay_seconds, 0),
        ("periodSeconds", p.period_seconds, 1),
        ("timeoutSeconds", p.timeout_seconds, 1),
        ("successThreshold", p.success_threshold, 1),
        ("failureThreshold", p.failure_threshold, 1),
    ] {
        // Every probe field is an int32 in the pod.
        if let Some(value) = value {
            errors.check(join(path, field), v::between(value, min, v::I32_MAX));
        }
    }
    let handler = join(path, "handler");
    match p.handler.as_ref().and_then(|h| h.http_get.as_ref()) {
        None => errors.add(
            join(&handler, "httpGet"),
            "is required: the readiness probe needs an HTTP GET to make",
        ),
        Some(get) => {
            let get_path = join(&handler, "httpGet");
            match get.port {
                Some(port) => errors.check(join(&get_path, "port"), v::port(port)),
                None => errors.add(join(&get_path, "port"), "is required"),
            }
            if let Some(p) = &get.path
                && !p.starts_with('/')
            {
                errors.add(
                    join(&get_path, "path"),
                    format!("must start with '/' (got {p:?})"),
                );
            }
            if let Some(host) = &get.host
                && v::dns1123_subdomain(host).is_err()
                && host.parse::<std::net::IpAddr>().is_err()
            {
                errors.add(
                    join(&get_path, "host"),
                    format!("must be a host name or IP address (got {host:?})"),
                );
            }
        }
    }
}

fn environment(errors: &mut Errors, env: &[EnvironmentVariable], path: &str) {
    let mut seen = BTreeSet::new();
    for (i, var) in env.iter().enumerate() {
        let at = index(path, i);
        errors.check(join(&at, "name"), v::env_var_name(&var.name));
        if !seen.insert(var.name.as_str()) {
            errors.add(join(&at, "name"), format!("{:?} is set twice", var.name));
        }
        if var.exclude == Some(true) {
            if var.value.is_some() || var.secret.is_some() {
                errors.add(&at, "an excluded variable takes no value or secret");
            }
            continue;
        }
        match (&var.value, &var.secret) {
            (Some(_), Some(_)) => errors.add(&at, "must have either value or secret, not both"),
            (None, None) => errors.add(&at, "must have a value or a secret"),
            (None, Some(secret)) => {
                errors.check(
                    join(&join(&at, "secret"), "name"),
                    v::dns1123_subdomain(&secret.name),
                );
                errors.check(
                    join(&join(&at, "secret"), "key"),
                    v::config_key(&secret.key),
                );
            }
            (Some(_), None) => {}
        }
    }
}

fn name_values(errors: &mut Errors, items: &[NameValue], path: &str, is_label: bool) {
    let mut seen = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        let at = index(path, i);
        errors.check(join(&at, "name"), v::qualified_name(&item.name));
        if item.name.starts_with("tephra.dev/") || item.name.contains(".tephra.dev/") {
            errors.add(
                join(&at, "name"),
                "the tephra.dev/ prefix is reserved for Tephra's own keys",
            );
        }
        if !seen.insert(item.name.as_str()) {
            errors.add(join(&at, "name"), format!("{:?} is set twice", item.name));
        }
        if item.exclude == Some(true) {
            continue;
        }
        match &item.value {
            None => errors.add(join(&at, "value"), "is required unless exclude is true"),
            Some(value) if is_label => errors.check(join(&at, "value"), v::label_value(value)),
            Some(value) if value.len() > 256 * 1024 => {
                errors.add(join(&at, "value"), "must be at most 256 KiB")
            }
            Some(_) => {}
        }
    }
}

/// What happens once the job's pods end: when the job is deleted and how often it is retried.
fn finishing(errors: &mut Errors, s: &TrainingSpec, path: &str) {
    let at = |field: &str| join(path, field);
    if let Some(seconds) = s.auto_deletion_time_after_completion_seconds {
        // The Job's ttlSecondsAfterFinished is an int32.
        errors.check(
            at("autoDeletionTimeAfterCompletionSeconds"),
            v::between(seconds, 0, v::I32_MAX),
        );
    }
    if let Some(limit) = s.backoff_limit {
        errors.check(at("backoffLimit"), v::at_least(limit, 0));
        if limit > 100 {
            errors.add(
                at("backoffLimit"),
                format!("must be at most 100 (got {limit})"),
            );
        }
    }
}

fn ports_rules(errors: &mut Errors, ports: &[Port], path: &str) {
    let mut seen_ports = BTreeSet::new();
    let mut seen_names = BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let at = index(path, i);
        errors.check(join(&at, "container"), v::port(port.container));
        if !seen_ports.insert(port.container) {
            errors.add(
                join(&at, "container"),
                format!("port {} is listed twice", port.container),
            );
        }
        if let Some(external) = port.external {
            match port.service_type {
                Some(ServiceType::NodePort) if !(30000..=32767).contains(&external) => errors.add(
                    join(&at, "external"),
                    format!(
                        "must be in the node port range 30000-32767 for NodePort (got {external})"
                    ),
                ),
                Some(ServiceType::NodePort) => {}
                _ => errors.check(join(&at, "external"), v::port(external)),
            }
        }
        if let Some(name) = &port.name {
            // Port names are IANA service names: at most 15 characters.
            errors.check(join(&at, "name"), v::dns1123_label(name, 15));
            if !name.chars().any(|c| c.is_ascii_lowercase()) {
                errors.add(join(&at, "name"), "must contain at least one letter");
            }
            if !seen_names.insert(name.as_str()) {
                errors.add(join(&at, "name"), format!("{name:?} is used twice"));
            }
        }
    }
}

/// How many pods a single-task training runs and how many must succeed. Distributed and generic
/// requests size their tasks in their own fields and refuse these.
pub(super) fn job_size(errors: &mut Errors, s: &TrainingSpec) {
    // Both are int32 in the Volcano Job (replicas, minSuccess); how many pods this Tephra allows
    // at once is the server's limit, checked on submit.
    if let Some(n) = s.parallelism {
        errors.check("spec.parallelism", v::between(n, 1, v::I32_MAX));
    }
    if let Some(n) = s.completions {
        errors.check("spec.completions", v::between(n, 1, v::I32_MAX));
        if let Some(p) = s.parallelism
            && n > p
        {
            errors.add(
                "spec.completions",
                format!(
                    "must not exceed parallelism ({p}): the job completes when {n} pods succeed, \
                     and only {p} run"
                ),
            );
        } else if s.parallelism.is_none() && n > 1 {
            errors.add(
                "spec.completions",
                format!(
                    "must not exceed parallelism (1 when not set); set parallelism to at least {n}"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepted, accepts, assert_one, paths, refused, refuses, request};
    use serde_json::json;

    #[test]
    fn every_section_reports_in_the_order_of_the_spec() {
        let errors = refused(request(json!({
            "image": "a b", "command": "'", "args": "\"", "workingDir": "w",
            "probes": { "readiness": {} }, "nodeType": "", "nodePools": [""],
            "podAffinity": { "type": "Required", "key": "" },
            "environmentVariables": [{ "name": "A" }],
            "annotations": [{ "name": "a" }], "labels": [{ "name": "l" }],
            "tolerations": [{}], "autoDeletionTimeAfterCompletionSeconds": -1, "backoffLimit": -1,
            "ports": [{ "container": 0 }], "exposedUrls": [{ "container": 0 }],
            "priorityClass": "P", "compute": { "gpuDevicesRequest": -1 },
            "storage": { "dataVolume": [{ "id": "x", "mountPath": "/d" }] },
            "security": { "runAsUid": 1 }
        })));
        assert_eq!(
            paths(&errors),
            [
                "spec.image",
                "spec.command",
                "spec.args",
                "spec.workingDir",
                "spec.probes.readiness.handler.httpGet",
                "spec.nodeType",
                "spec.nodePools[0]",
                "spec.podAffinity.key",
                "spec.environmentVariables[0]",
                "spec.annotations[0].value",
                "spec.labels[0].value",
                "spec.tolerations[0].key",
                "spec.autoDeletionTimeAfterCompletionSeconds",
                "spec.backoffLimit",
                "spec.ports[0].container",
                "spec.exposedUrls[0].container",
                "spec.priorityClass",
                "spec.compute.gpuDevicesRequest",
                "spec.storage.dataVolume[0].id",
                "spec.security.runAsUid",
            ]
        );
    }

    #[test]
    fn an_image_is_required_and_has_no_spaces() {
        accepts(json!({ "image": " pytorch/pytorch:2.4.0 " }));
        let required = "is required: the container image to run, e.g. pytorch/pytorch";
        let no_image = json!({ "name": "a", "projectId": "p", "spec": {} });
        assert_one(&refused(no_image), "spec.image", required);
        refuses(json!({ "image": "  " }), "spec.image", required);
        refuses(
            json!({ "image": "pytorch /pytorch" }),
            "spec.image",
            "must not contain spaces (got \"pytorch /pytorch\")",
        );
    }

    #[test]
    fn command_and_args_split_into_words() {
        accepts(json!({ "command": "python -c 'print(1)'", "args": "--lr \"0.1\"" }));
        refuses(
            json!({ "command": "echo 'open" }),
            "spec.command",
            "has an unterminated single quote; it is split into words like a shell does",
        );
        refuses(
            json!({ "args": "trailing\\" }),
            "spec.args",
            "ends with a lone backslash; it is split",
        );
    }

    #[test]
    fn the_working_dir_is_absolute() {
        accepts(json!({ "workingDir": "/workspace" }));
        refuses(
            json!({ "workingDir": "workspace" }),
            "spec.workingDir",
            "must be an absolute path",
        );
    }

    #[test]
    fn probe_numbers_fit_int32_and_start_at_their_minimum() {
        let probe = |field: &str, n: i64| {
            json!({ "probes": { "readiness": { field: n,
                "handler": { "httpGet": { "port": 8080 } } } } })
        };
        for (field, min) in [
            ("initialDelaySeconds", 0),
            ("periodSeconds", 1),
            ("timeoutSeconds", 1),
            ("successThreshold", 1),
            ("failureThreshold", 1),
        ] {
            accepts(probe(field, min));
            accepts(probe(field, 2147483647));
            refuses(
                probe(field, min - 1),
                &format!("spec.probes.readiness.{field}"),
                &format!("must be between {min} and 2147483647 (got {})", min - 1),
            );
        }
    }

    #[test]
    fn a_probe_makes_an_http_get_to_a_port() {
        let get = |get: serde_json::Value| json!({ "probes": { "readiness": { "handler": { "httpGet": get } } } });
        let at = "spec.probes.readiness.handler.httpGet";
        accepts(get(
            json!({ "port": 8080, "path": "/ready", "host": "svc.local" }),
        ));
        accepts(get(json!({ "port": 1, "host": "10.0.0.1" })));
        accepts(get(json!({ "port": 65535, "host": "::1" })));
        refuses(
            json!({ "probes": { "readiness": { "handler": {} } } }),
            at,
            "is required: the readiness probe needs an HTTP GET",
        );
        refuses(get(json!({})), &format!("{at}.port"), "is required");
        refuses(
            get(json!({ "port": 65536 })),
            &format!("{at}.port"),
            "must be a port from 1 to 65535 (got 65536)",
        );
        refuses(
            get(json!({ "port": 80, "path": "ready" })),
            &format!("{at}.path"),
            "must start with '/' (got \"ready\")",
        );
        refuses(
            get(json!({ "port": 80, "host": "Not A Host" })),
            &format!("{at}.host"),
            "must be a host name or IP address (got \"Not A Host\")",
        );
    }

    #[test]
    fn environment_variables_have_a_printable_name_once() {
        accepts(json!({ "environmentVariables": [
            { "name": "A.b-1", "value": "" }, { "name": "B", "value": "x" }] }));
        refuses(
            json!({ "environmentVariables": [{ "name": "A=B", "value": "1" }] }),
            "spec.environmentVariables[0].name",
            "must be printable ASCII characters other than '=' and spaces (got \"A=B\")",
        );
        refuses(
            json!({ "environmentVariables": [
                { "name": "A", "value": "1" }, { "name": "A", "value": "2" }] }),
            "spec.environmentVariables[1].name",
            "\"A\" is set twice",
        );
    }

    #[test]
    fn environment_variables_have_a_value_or_a_secret_unless_excluded() {
        let env = |var: serde_json::Value| json!({ "environmentVariables": [var] });
        let at = "spec.environmentVariables[0]";
        accepts(env(json!({ "name": "A", "exclude": true })));
        accepts(env(json!({ "name": "A", "exclude": false, "value": "1" })));
        accepts(env(
            json!({ "name": "A", "secret": { "name": "creds", "key": "token.txt" } }),
        ));
        refuses(
            env(json!({ "name": "A", "exclude": true, "value": "1" })),
            at,
            "an excluded variable takes no value or secret",
        );
        refuses(
            env(json!({ "name": "A", "exclude": true, "secret": { "name": "s", "key": "k" } })),
            at,
            "an excluded variable takes no value or secret",
        );
        refuses(
            env(json!({ "name": "A", "value": "1", "secret": { "name": "s", "key": "k" } })),
            at,
            "must have either value or secret, not both",
        );
        refuses(
            env(json!({ "name": "A" })),
            at,
            "must have a value or a secret",
        );
        refuses(
            env(json!({ "name": "A", "secret": { "name": "Creds", "key": "k" } })),
            &format!("{at}.secret.name"),
            "must be 1 to 253 lowercase letters",
        );
        refuses(
            env(json!({ "name": "A", "secret": { "name": "creds", "key": "a/b" } })),
            &format!("{at}.secret.key"),
            "must be 1 to 253 letters, digits, '-', '_' or '.' (got \"a/b\")",
        );
    }

    #[test]
    fn labels_and_annotations_have_qualified_names_once_outside_tephra_dev() {
        for list in ["labels", "annotations"] {
            let at = format!("spec.{list}");
            accepts(json!({ list: [
                { "name": "example.com/team", "value": "ml" }, { "name": "Stage_1", "value": "a" },
                { "name": "tephra.dev.example.com/x", "value": "a" }] }));
            refuses(
                json!({ list: [{ "name": "a b", "value": "x" }] }),
                &format!("{at}[0].name"),
                "must be a name of at most 63 letters",
            );
            for reserved in ["tephra.dev/owner", "x.tephra.dev/owner"] {
                refuses(
                    json!({ list: [{ "name": reserved, "value": "x" }] }),
                    &format!("{at}[0].name"),
                    "the tephra.dev/ prefix is reserved for Tephra's own keys",
                );
            }
            refuses(
                json!({ list: [{ "name": "a", "value": "1" }, { "name": "a", "value": "2" }] }),
                &format!("{at}[1].name"),
                "\"a\" is set twice",
            );
            accepts(json!({ list: [{ "name": "a", "exclude": true }] }));
            refuses(
                json!({ list: [{ "name": "a" }] }),
                &format!("{at}[0].value"),
                "is required unless exclude is true",
            );
        }
    }

    #[test]
    fn label_values_are_short_and_annotation_values_at_most_256_kib() {
        accepts(json!({ "labels": [{ "name": "a", "value": "" }] }));
        accepts(json!({ "labels": [{ "name": "a", "value": "x".repeat(63) }] }));
        refuses(
            json!({ "labels": [{ "name": "a", "value": "x".repeat(64) }] }),
            "spec.labels[0].value",
            "must be at most 63 letters, digits, '-', '_' or '.'",
        );
        accepts(json!({ "annotations": [{ "name": "a", "value": "has spaces: fine" }] }));
        accepts(json!({ "annotations": [{ "name": "a", "value": "x".repeat(256 * 1024) }] }));
        refuses(
            json!({ "annotations": [{ "name": "a", "value": "x".repeat(256 * 1024 + 1) }] }),
            "spec.annotations[0].value",
            "must be at most 256 KiB",
        );
    }

    #[test]
    fn the_deletion_delay_fits_int32() {
        let field = "autoDeletionTimeAfterCompletionSeconds";
        accepts(json!({ field: 0 }));
        accepts(json!({ field: 2147483647 }));
        refuses(
            json!({ field: -1 }),
            "spec.autoDeletionTimeAfterCompletionSeconds",
            "must be between 0 and 2147483647 (got -1)",
        );
    }

    #[test]
    fn the_backoff_limit_is_from_0_to_100() {
        accepts(json!({ "backoffLimit": 0 }));
        accepts(json!({ "backoffLimit": 100 }));
        refuses(
            json!({ "backoffLimit": -1 }),
            "spec.backoffLimit",
            "must be at least 0 (got -1)",
        );
        refuses(
            json!({ "backoffLimit": 101 }),
            "spec.backoffLimit",
            "must be at most 100 (got 101)",
        );
    }

    #[test]
    fn container_ports_are_ports_listed_once() {
        accepts(json!({ "ports": [{ "container": 8080 }, { "container": 8081 }] }));
        refuses(
            json!({ "ports": [{ "container": 0 }] }),
            "spec.ports[0].container",
            "must be a port from 1 to 65535 (got 0)",
        );
        refuses(
            json!({ "ports": [{ "container": 8080 }, { "container": 8080 }] }),
            "spec.ports[1].container",
            "port 8080 is listed twice",
        );
    }

    #[test]
    fn external_ports_of_node_ports_are_in_the_node_port_range() {
        let port = |service: &str, external: i64| json!({ "ports": [{ "container": 80, "serviceType": service, "external": external }] });
        accepts(port("NodePort", 30000));
        accepts(port("NodePort", 32767));
        refuses(
            port("NodePort", 8080),
            "spec.ports[0].external",
            "must be in the node port range 30000-32767 for NodePort (got 8080)",
        );
        accepts(port("LoadBalancer", 8080));
        accepts(port("ClusterIP", 65535));
        refuses(
            port("LoadBalancer", 65536),
            "spec.ports[0].external",
            "must be a port from 1 to 65535 (got 65536)",
        );
        refuses(
            json!({ "ports": [{ "container": 80, "external": 0 }] }),
            "spec.ports[0].external",
            "must be a port from 1 to 65535 (got 0)",
        );
    }

    #[test]
    fn port_names_are_short_distinct_service_names() {
        accepts(json!({ "ports": [
            { "container": 80, "name": "http" }, { "container": 81, "name": "a23456789012345" }] }));
        refuses(
            json!({ "ports": [{ "container": 80, "name": "a234567890123456" }] }),
            "spec.ports[0].name",
            "must be 1 to 15 lowercase letters",
        );
        refuses(
            json!({ "ports": [{ "container": 80, "name": "8080" }] }),
            "spec.ports[0].name",
            "must contain at least one letter",
        );
        refuses(
            json!({ "ports": [{ "container": 80, "name": "web" }, { "container": 81, "name": "web" }] }),
            "spec.ports[1].name",
            "\"web\" is used twice",
        );
    }

    #[test]
    fn exposed_urls_point_at_a_port() {
        accepts(json!({ "exposedUrls": [{ "container": 8888 }] }));
        refuses(
            json!({ "exposedUrls": [{ "container": 70000 }] }),
            "spec.exposedUrls[0].container",
            "must be a port from 1 to 65535 (got 70000)",
        );
    }

    #[test]
    fn the_priority_class_is_a_kubernetes_name() {
        accepts(json!({ "priorityClass": "high-priority" }));
        refuses(
            json!({ "priorityClass": "High" }),
            "spec.priorityClass",
            "must be 1 to 253 lowercase letters, digits, '-' or '.'",
        );
    }

    #[test]
    fn parallelism_and_completions_fit_int32() {
        accepts(json!({ "parallelism": 2147483647 }));
        refuses(
            json!({ "parallelism": 0 }),
            "spec.parallelism",
            "must be between 1 and 2147483647 (got 0)",
        );
        accepts(json!({ "completions": 1 }));
        refuses(
            json!({ "completions": 0 }),
            "spec.completions",
            "must be between 1 and 2147483647 (got 0)",
        );
    }

    #[test]
    fn completions_do_not_exceed_parallelism() {
        accepts(json!({ "parallelism": 4, "completions": 4 }));
        accepts(json!({ "parallelism": 4, "completions": 2 }));
        refuses(
            json!({ "parallelism": 2, "completions": 3 }),
            "spec.completions",
            "must not exceed parallelism (2): the job completes when 3 pods succeed, and only 2 run",
        );
    }

    #[test]
    fn completions_beyond_1_need_parallelism() {
        accepts(json!({ "completions": 1 }));
        refuses(
            json!({ "completions": 2 }),
            "spec.completions",
            "must not exceed parallelism (1 when not set); set parallelism to at least 2",
        );
    }

    #[test]
    fn a_spec_without_any_optional_field_is_accepted() {
        accepted(request(json!({})));
    }
}
