//! The rules of the container itself: its image and command, readiness probe, environment,
//! labels and annotations, and ports.

use crate::model::training::checked::{EnvVar, ExposedUrl, Port, Probe};
use crate::model::training::request::{
    EnvironmentVariable, NameValue, Probe as RequestProbe, ServiceType, TrainingSpec,
};
use crate::model::training::values::{AbsolutePath, ObjectName, Words, int32};
use crate::model::validation::{self as v, Errors, all, index, join};
use std::collections::BTreeSet;

pub(super) type Container = (String, Option<Words>, Option<Words>, Option<AbsolutePath>);

pub(super) fn container(errors: &mut Errors, s: &TrainingSpec, path: &str) -> Option<Container> {
    let at = |field: &str| join(path, field);
    let image = match s.image.as_deref().map(str::trim) {
        None | Some("") => {
            errors.add(at("image"), "is required: the container image to run, e.g. pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime");
            None
        }
        Some(image) if image.contains(char::is_whitespace) => {
            errors.add(
                at("image"),
                format!("must not contain spaces (got {image:?})"),
            );
            None
        }
        Some(image) => Some(image.to_owned()),
    };
    let words = |errors: &mut Errors, field: &str, value: &Option<String>| {
        errors.take_some(at(field), value.as_deref(), |value| {
            Words::split(value)
                .map_err(|message| format!("{message}; it is split into words like a shell does"))
        })
    };
    let command = words(errors, "command", &s.command);
    let args = words(errors, "args", &s.args);
    let working_dir = errors.take_some(
        at("workingDir"),
        s.working_dir.as_deref(),
        AbsolutePath::new,
    );
    Some((image?, command?, args?, working_dir?))
}

pub(super) fn probe(errors: &mut Errors, p: &RequestProbe, path: &str) -> Option<Probe> {
    // Every probe field is an int32 in the pod.
    let [
        initial_delay_seconds,
        period_seconds,
        timeout_seconds,
        success_threshold,
        failure_threshold,
    ] = [
        ("initialDelaySeconds", p.initial_delay_seconds, 0),
        ("periodSeconds", p.period_seconds, 1),
        ("timeoutSeconds", p.timeout_seconds, 1),
        ("successThreshold", p.success_threshold, 1),
        ("failureThreshold", p.failure_threshold, 1),
    ]
    .map(|(field, value, min)| errors.take_some(join(path, field), value, |n| int32(n, min)));
    let handler = join(path, "handler");
    let get_path = join(&handler, "httpGet");
    let Some(get) = p.handler.as_ref().and_then(|h| h.http_get.as_ref()) else {
        errors.add(
            get_path,
            "is required: the readiness probe needs an HTTP GET to make",
        );
        return None;
    };
    let port = match get.port {
        Some(port) => errors.take(join(&get_path, "port"), v::port(port)),
        None => {
            errors.add(join(&get_path, "port"), "is required");
            None
        }
    };
    if let Some(p) = &get.path
        && !p.starts_with('/')
    {
        // Kubernetes accepts it and the kubelet asks for "/" + path; the rendering says so.
        errors.warn(
            join(&get_path, "path"),
            format!("does not start with '/'; the probe requests \"/{p}\""),
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
    Some(Probe {
        initial_delay_seconds: initial_delay_seconds?,
        period_seconds: period_seconds?,
        timeout_seconds: timeout_seconds?,
        success_threshold: success_threshold?,
        failure_threshold: failure_threshold?,
        path: get.path.as_ref().map(|p| {
            if p.starts_with('/') {
                p.clone()
            } else {
                format!("/{p}")
            }
        }),
        port: port?,
        host: get.host.clone(),
        scheme: get.scheme,
    })
}

/// The variables to set, and the names of those to leave out.
pub(super) fn environment(
    errors: &mut Errors,
    env: &[EnvironmentVariable],
    path: &str,
) -> Option<(Vec<EnvVar>, Vec<String>)> {
    let mut seen = BTreeSet::new();
    let mut vars = Vec::new();
    let mut excluded = Vec::new();
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
            excluded.push(var.name.clone());
            continue;
        }
        let name = var.name.clone();
        let checked = match (&var.value, &var.secret) {
            (Some(_), Some(_)) => {
                errors.add(
                    &at,
                    "must have either value or secret, not both (Kubernetes takes one source \
                     per variable): remove value to read it from the secret, or secret to set it",
                );
                None
            }
            (None, None) => {
                errors.add(&at, "must have a value or a secret");
                None
            }
            (None, Some(secret)) => {
                let secret_at = join(&at, "secret");
                let name_ok = errors.take(join(&secret_at, "name"), ObjectName::new(&secret.name));
                let key_ok = errors.take(join(&secret_at, "key"), v::config_key(&secret.key));
                name_ok.zip(key_ok).map(|(secret_name, ())| EnvVar::Secret {
                    name,
                    secret: secret_name,
                    key: secret.key.clone(),
                })
            }
            (Some(value), None) => Some(EnvVar::Value {
                name,
                value: value.clone(),
            }),
        };
        vars.push(checked);
    }
    Some((all(vars)?, excluded))
}

/// The pairs to set, without the excluded ones.
/// The key prefixes other systems act on, with what acting on them would do: a request's labels
/// and annotations never carry them (a domain's subdomains included), only Tephra sets them.
const RESERVED_DOMAINS: &[(&str, &str)] = &[
    ("tephra.dev", "Tephra's own keys"),
    (
        "volcano.sh",
        "Volcano schedules by them (queue, preemptability, gang)",
    ),
    ("k8s.io", "Kubernetes components act on them"),
    ("kubernetes.io", "Kubernetes components act on them"),
    (
        "x-k8s.io",
        "Kubernetes SIG projects act on them (Kueue's queues, co-scheduling's pod groups)",
    ),
    ("cni.cncf.io", "the network plugins attach networks by them"),
    (
        "projectcalico.org",
        "Calico assigns addresses and networks by them",
    ),
    ("cilium.io", "Cilium acts on them"),
    ("io.cilium", "Cilium acts on them"),
    ("istio.io", "the service mesh acts on them"),
    ("linkerd.io", "the service mesh acts on them"),
    ("kuma.io", "the service mesh acts on them"),
    (
        "hashicorp.com",
        "Consul and Vault inject sidecars and secrets by them",
    ),
    ("dapr.io", "Dapr injects its sidecar by them"),
    ("karpenter.sh", "Karpenter keeps or removes nodes by them"),
    (
        "nvidia.com",
        "NVIDIA's GPU operator and device plugin act on them",
    ),
    ("openshift.io", "OpenShift acts on them"),
];

/// Why `key` (a label or annotation name) is not the request's to set, if it is not.
pub(crate) fn reserved_key(key: &str) -> Option<String> {
    let (prefix, _) = key.split_once('/')?;
    let prefix = prefix.to_ascii_lowercase();
    RESERVED_DOMAINS
        .iter()
        .find(|(domain, _)| {
            prefix == *domain
                || prefix
                    .strip_suffix(domain)
                    .is_some_and(|sub| sub.ends_with('.'))
        })
        .map(|(domain, why)| {
            format!("{key:?} is under {domain}/, which is reserved: {why}, so only Tephra sets such keys")
        })
}

pub(super) fn name_values(
    errors: &mut Errors,
    items: &[NameValue],
    path: &str,
    is_label: bool,
) -> Option<Vec<(String, String)>> {
    let mut seen = BTreeSet::new();
    let mut pairs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = index(path, i);
        errors.check(join(&at, "name"), v::qualified_name(&item.name));
        if let Some(why) = reserved_key(&item.name) {
            errors.add(join(&at, "name"), why);
        }
        if !seen.insert(item.name.as_str()) {
            errors.add(join(&at, "name"), format!("{:?} is set twice", item.name));
        }
        if item.exclude == Some(true) {
            continue;
        }
        let value = match &item.value {
            None => Err("is required unless exclude is true".to_owned()),
            Some(value) if is_label => v::label_value(value).map(|()| value),
            Some(value) if value.len() > 256 * 1024 => Err("must be at most 256 KiB".to_owned()),
            Some(value) => Ok(value),
        };
        pairs.push(
            errors
                .take(join(&at, "value"), value)
                .map(|value| (item.name.clone(), value.clone())),
        );
    }
    all(pairs)
}

pub(super) fn ports(
    errors: &mut Errors,
    ports: &[crate::model::training::request::Port],
    path: &str,
) -> Option<Vec<Port>> {
    let mut seen_ports = BTreeSet::new();
    let mut seen_names = BTreeSet::new();
    let mut checked = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let at = index(path, i);
        let container = errors.take(join(&at, "container"), v::port(port.container));
        if !seen_ports.insert(port.container) {
            errors.add(
                join(&at, "container"),
                format!("port {} is listed twice", port.container),
            );
        }
        let external =
            errors.take_some(join(&at, "external"), port.external, |external| match port
                .service_type
            {
                Some(ServiceType::NodePort) if !(30000..=32767).contains(&external) => {
                    Err(format!(
                        "must be in the node port range 30000-32767 for NodePort (got {external})"
                    ))
                }
                _ => v::port(external),
            });
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
        checked.push(container.zip(external).map(|(container, external)| Port {
            container,
            external,
            service_type: port.service_type,
            name: port.name.clone(),
        }));
    }
    all(checked)
}

/// The container ports a URL is exposed for, each once, with who may open it (Run:ai's
/// `authorizedUsers` and `authorizedGroups`), which a cluster honours either by serving no
/// ingress or through Tephra's forward auth (see the server's binding).
pub(super) fn exposed_urls(
    errors: &mut Errors,
    urls: &[crate::model::training::request::ExposedUrl],
    path: &str,
) -> Option<Vec<ExposedUrl>> {
    let mut seen = BTreeSet::new();
    let mut checked = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        let at = index(path, i);
        let container = errors.take(join(&at, "container"), v::port(url.container));
        if !seen.insert(url.container) {
            errors.add(
                join(&at, "container"),
                format!("port {} has a URL already", url.container),
            );
        }
        let listed = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|l| !l.is_empty());
        let restricted_by = if listed(&url.authorized_users) {
            Some("authorizedUsers")
        } else if listed(&url.authorized_groups) {
            Some("authorizedGroups")
        } else {
            None
        };
        let names = |l: &Option<Vec<String>>| l.iter().flatten().cloned().collect();
        checked.push(container.map(|container| ExposedUrl {
            container,
            restricted_by,
            authorized_users: names(&url.authorized_users),
            authorized_groups: names(&url.authorized_groups),
        }));
    }
    all(checked)
}
