//! What a training request may contain. Each rule names the field's JSON path and what is allowed;
//! all problems are collected, so a form or a script sees every mistake at once.

use super::distributed::{DistributedRequest, Framework};
use super::generic::{GenericRequest, validate_spec};
use super::request::*;
use super::{NAME_MAX, PREFIX_MAX};
use crate::model::validation::{self as v, Errors, FieldError, index, join};
use std::collections::BTreeSet;

pub fn training(req: &TrainingRequest) -> Result<(), Vec<FieldError>> {
    let mut errors = Errors::default();
    header(
        &mut errors,
        &req.name,
        req.use_given_name_as_prefix,
        &req.project_id,
        &req.cluster_id,
    );
    spec(&mut errors, &req.spec, "spec", true);
    let s = &req.spec;
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
    errors.into_result()
}

pub fn distributed(req: &DistributedRequest) -> Result<(), Vec<FieldError>> {
    let mut errors = Errors::default();
    header(
        &mut errors,
        &req.name,
        req.use_given_name_as_prefix,
        &req.project_id,
        &req.cluster_id,
    );
    let d = &req.spec;
    spec(&mut errors, &d.worker, "spec", true);
    for field in ["completions", "parallelism"] {
        let set = match field {
            "completions" => d.worker.completions.is_some(),
            _ => d.worker.parallelism.is_some(),
        };
        if set {
            errors.add(
                join("spec", field),
                "is not used by distributed trainings; set numWorkers (and minReplicas for the gang size)",
            );
        }
    }
    errors.check("spec.numWorkers", v::at_least(d.num_workers, 1));
    if d.num_workers > 9999 {
        errors.add(
            "spec.numWorkers",
            format!("must be at most 9999 (got {})", d.num_workers),
        );
    }
    let pods = d.num_workers.saturating_add(1);
    if let Some(min) = d.min_replicas
        && !(1..=pods).contains(&min)
    {
        errors.add(
            "spec.minReplicas",
            format!("must be from 1 to the number of pods, numWorkers + 1 = {pods} (got {min})"),
        );
    }
    if let Some(max) = d.max_replicas
        && max < pods
    {
        errors.add(
            "spec.maxReplicas",
            format!("must be at least the number of pods, numWorkers + 1 = {pods} (got {max})"),
        );
    }
    match (&d.master, d.master_spec_same_as_worker) {
        (Some(_), Some(true)) => errors.add(
            "spec.master",
            "must not be set when masterSpecSameAsWorker is true; remove one of them",
        ),
        (Some(master), _) => {
            spec(&mut errors, master, "spec.master", false);
            for (field, set) in [
                ("completions", master.completions.is_some()),
                ("parallelism", master.parallelism.is_some()),
            ] {
                if set {
                    errors.add(
                        join("spec.master", field),
                        "is not used by distributed trainings",
                    );
                }
            }
        }
        (None, Some(false)) => errors.add(
            "spec.master",
            "is required when masterSpecSameAsWorker is false",
        ),
        (None, _) => {}
    }
    if d.distributed_framework == Framework::Mpi && d.master_spec().command.is_none() {
        errors.add(
            if d.master.is_some() {
                "spec.master.command"
            } else {
                "spec.command"
            },
            "is required for MPI: the launcher runs mpirun (the workers only run sshd)",
        );
    }
    errors.into_result()
}

pub fn generic(req: &GenericRequest) -> Result<(), Vec<FieldError>> {
    let mut errors = Errors::default();
    header(
        &mut errors,
        &req.name,
        req.use_given_name_as_prefix,
        &req.project_id,
        &req.cluster_id,
    );
    for (i, replica) in req.spec.replica_specs.iter().enumerate() {
        spec(
            &mut errors,
            &replica.spec,
            &format!("spec.replicaSpecs[{i}].spec"),
            true,
        );
    }
    validate_spec(&mut errors, &req.spec);
    errors.into_result()
}

fn header(
    errors: &mut Errors,
    name: &str,
    prefix: Option<bool>,
    project: &ProjectId,
    cluster: &Option<String>,
) {
    let max = if prefix == Some(true) {
        PREFIX_MAX
    } else {
        NAME_MAX
    };
    if let Err(message) = v::dns1123_label(name, max) {
        let why = if prefix == Some(true) {
            " (a random suffix of 6 characters is added)"
        } else {
            " (pod names <name>-<task>-<index> must stay within 63)"
        };
        errors.add("name", format!("{message}{why}"));
    }
    match project {
        ProjectId::Text(s) if s.trim().is_empty() => errors.add("projectId", "is required"),
        _ => {}
    }
    if let Some(cluster) = cluster
        && !is_uuid(cluster)
    {
        errors.add("clusterId", format!("must be a UUID (got {cluster:?})"));
    }
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// One container's spec. `needs_image`: the master of a distributed training inherits nothing, so
/// every spec needs its own image.
fn spec(errors: &mut Errors, s: &TrainingSpec, path: &str, needs_image: bool) {
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
    if let Some(probes) = &s.probes
        && let Some(readiness) = &probes.readiness
    {
        probe(errors, readiness, &join(&at("probes"), "readiness"));
    }
    if let Some(node_type) = &s.node_type {
        errors.check(at("nodeType"), non_empty_label_value(node_type));
    }
    if let Some(pools) = &s.node_pools {
        let mut seen = BTreeSet::new();
        for (i, pool) in pools.iter().enumerate() {
            errors.check(index(&at("nodePools"), i), non_empty_label_value(pool));
            if !seen.insert(pool) {
                errors.add(index(&at("nodePools"), i), format!("lists {pool:?} twice"));
            }
        }
    }
    if let Some(affinity) = &s.pod_affinity {
        errors.check(
            join(&at("podAffinity"), "key"),
            v::qualified_name(&affinity.key),
        );
    }
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
            toleration(errors, t, &index(&at("tolerations"), i));
        }
    }
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
        compute(errors, c, &at("compute"));
    }
    if let Some(storage) = &s.storage {
        storage_rules(errors, storage, &at("storage"));
    }
    if let Some(security) = &s.security {
        security_rules(errors, security, &at("security"));
    }
}

fn non_empty_label_value(s: &str) -> Result<(), String> {
    if s.is_empty() {
        Err("must not be empty".into())
    } else {
        v::label_value(s)
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

fn toleration(errors: &mut Errors, t: &Toleration, path: &str) {
    let exists = t.operator == Some(TolerationOperator::Exists);
    match t.key.as_deref() {
        Some("") | None if !exists => errors.add(
            join(path, "key"),
            "is required with operator Equal; only Exists may leave it empty to match every taint",
        ),
        Some(key) if !key.is_empty() => errors.check(join(path, "key"), v::qualified_name(key)),
        _ => {}
    }
    if exists && t.value.as_deref().is_some_and(|v| !v.is_empty()) {
        errors.add(
            join(path, "value"),
            "must be empty when operator is Exists (Exists matches any value)",
        );
    }
    if let Some(value) = &t.value
        && !exists
    {
        errors.check(join(path, "value"), v::label_value(value));
    }
    if let Some(seconds) = t.seconds {
        if t.effect != Some(TaintEffect::NoExecute) {
            errors.add(join(path, "seconds"), "is only allowed with effect NoExecute (how long to stay on a node after the taint appears)");
        }
        errors.check(join(path, "seconds"), v::at_least(seconds, 0));
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

fn compute(errors: &mut Errors, c: &Compute, path: &str) {
    let at = |field: &str| join(path, field);
    if let Some(n) = c.gpu_devices_request {
        errors.check(at("gpuDevicesRequest"), v::at_least(n, 0));
    }
    // Exactly one way to ask for GPUs: whole devices (gpuDevicesRequest alone), or one of the
    // fractional styles, chosen by gpuRequestType.
    let styles = [
        (
            GpuRequestType::Portion,
            "gpuPortionRequest",
            c.gpu_portion_request.is_some() || c.gpu_portion_limit.is_some(),
        ),
        (
            GpuRequestType::Memory,
            "gpuMemoryRequest",
            c.gpu_memory_request.is_some() || c.gpu_memory_limit.is_some(),
        ),
        (
            GpuRequestType::MigProfile,
            "migProfile",
            c.mig_profile.is_some(),
        ),
    ];
    let used: Vec<_> = styles.iter().filter(|(_, _, set)| *set).collect();
    match c.gpu_request_type {
        None => {
            if let Some((_, field, _)) = used.first() {
                errors.add(
                    at("gpuRequestType"),
                    format!("is required when {field} is set: one of portion, memory, migProfile"),
                );
            }
        }
        Some(kind) => {
            let (_, wanted, _) = styles
                .iter()
                .find(|(k, _, _)| *k == kind)
                .expect("every type is listed");
            if !used.iter().any(|(k, _, _)| *k == kind) {
                errors.add(
                    at(wanted),
                    format!("is required with gpuRequestType {}", type_name(kind)),
                );
            }
            for (other, field, _) in used.iter().filter(|(k, _, _)| *k != kind) {
                errors.add(
                    at(field),
                    format!(
                        "must not be set with gpuRequestType {}: choose one GPU style ({} is for {})",
                        type_name(kind),
                        field,
                        type_name(*other)
                    ),
                );
            }
        }
    }
    if let Some(p) = c.gpu_portion_request
        && !(p > 0.0 && p < 1.0)
    {
        errors.add(at("gpuPortionRequest"), format!("must be between 0 and 1, exclusive, e.g. 0.5 (got {p}); use gpuDevicesRequest for whole GPUs"));
    }
    fractional_limit(
        errors,
        (&at("gpuPortionLimit"), c.gpu_portion_limit),
        ("gpuPortionRequest", c.gpu_portion_request),
        Some(1.0),
    );
    let gpu_mem_request = quantity_field(
        errors,
        c.gpu_memory_request.as_deref(),
        &at("gpuMemoryRequest"),
    );
    let gpu_mem_limit =
        quantity_field(errors, c.gpu_memory_limit.as_deref(), &at("gpuMemoryLimit"));
    limit_at_least_request(
        errors,
        gpu_mem_request,
        gpu_mem_limit,
        &at("gpuMemoryLimit"),
        "gpuMemoryRequest",
    );
    if let Some(profile) = &c.mig_profile
        && !is_mig_profile(profile)
    {
        errors.add(
            at("migProfile"),
            format!("must be a MIG profile like 1g.5gb, 2g.10gb or 3g.20gb (got {profile:?})"),
        );
    }
    if let Some(cpu) = c.cpu_core_request
        && !(cpu > 0.0 && cpu <= CPU_CORES_MAX)
    {
        errors.add(
            at("cpuCoreRequest"),
            format!("must be greater than 0 and at most {CPU_CORES_MAX} (got {cpu})"),
        );
    }
    fractional_limit(
        errors,
        (&at("cpuCoreLimit"), c.cpu_core_limit),
        ("cpuCoreRequest", c.cpu_core_request),
        Some(CPU_CORES_MAX),
    );
    let mem_request = quantity_field(
        errors,
        c.cpu_memory_request.as_deref(),
        &at("cpuMemoryRequest"),
    );
    let mem_limit = quantity_field(errors, c.cpu_memory_limit.as_deref(), &at("cpuMemoryLimit"));
    limit_at_least_request(
        errors,
        mem_request,
        mem_limit,
        &at("cpuMemoryLimit"),
        "cpuMemoryRequest",
    );
    if let Some(resources) = &c.extended_resources {
        let mut seen = BTreeSet::new();
        for (i, r) in resources.iter().enumerate() {
            let item = index(&at("extendedResources"), i);
            match v::qualified_name(&r.resource) {
                Err(message) => errors.add(join(&item, "resource"), message),
                Ok(()) if !r.resource.contains('/') => errors.add(
                    join(&item, "resource"),
                    format!(
                        "must be a vendor resource with a domain, e.g. example.com/foo (got {:?})",
                        r.resource
                    ),
                ),
                Ok(())
                    if r.resource.starts_with("kubernetes.io/")
                        || RESERVED_RESOURCES.contains(&r.resource.as_str()) =>
                {
                    errors.add(
                        join(&item, "resource"),
                        format!("{:?} is set through its own compute field", r.resource),
                    )
                }
                Ok(()) => {}
            }
            if !seen.insert(r.resource.as_str()) {
                errors.add(
                    join(&item, "resource"),
                    format!("{:?} is listed twice", r.resource),
                );
            }
            if r.exclude == Some(true) {
                continue;
            }
            match &r.quantity {
                None => errors.add(
                    join(&item, "quantity"),
                    "is required unless exclude is true",
                ),
                Some(q) => {
                    if let Err(message) = extended_quantity(q) {
                        errors.add(join(&item, "quantity"), message);
                    }
                }
            }
        }
    }
}

/// Most CPU cores one container may ask for. No node comes near it; the bound keeps the
/// millicores the renderer writes (cores × 1000, an int64) exact and far from overflow.
pub const CPU_CORES_MAX: f64 = 1_000_000.0;

/// Resources a request sets through dedicated fields, so they cannot also be extended resources.
const RESERVED_RESOURCES: [&str; 4] = [
    "nvidia.com/gpu",
    "volcano.sh/vgpu-number",
    "volcano.sh/vgpu-cores",
    "volcano.sh/vgpu-memory",
];

/// Extended resources are whole units: a positive integer, as a number or a string, that fits
/// the int64 Kubernetes counts them in.
pub fn extended_quantity(q: &serde_json::Value) -> Result<u64, String> {
    let allowed = format!(
        "must be a whole number from 1 to {} (extended resources cannot be split)",
        i64::MAX
    );
    let n = match q {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if n >= 1 && i64::try_from(n).is_ok() => Ok(n),
        _ => Err(format!("{allowed} (got {q})")),
    }
}

fn type_name(kind: GpuRequestType) -> &'static str {
    match kind {
        GpuRequestType::Portion => "portion",
        GpuRequestType::Memory => "memory",
        GpuRequestType::MigProfile => "migProfile",
    }
}

fn is_mig_profile(s: &str) -> bool {
    // <n>g.<m>gb, optionally with a suffix like +me: NVIDIA's profile names.
    let Some((compute, memory)) = s.split_once('.') else {
        return false;
    };
    let memory = memory.split('+').next().unwrap_or("");
    compute
        .strip_suffix('g')
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && memory
            .strip_suffix("gb")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// A numeric limit: greater than 0, at most `max` when given, and not below its request.
fn fractional_limit(
    errors: &mut Errors,
    (path, limit): (&str, Option<f64>),
    (request_field, request): (&str, Option<f64>),
    max: Option<f64>,
) {
    let Some(limit) = limit else { return };
    if limit <= 0.0 || max.is_some_and(|max| limit > max) {
        let range = match max {
            Some(max) => format!("greater than 0 and at most {max}"),
            None => "greater than 0".to_owned(),
        };
        errors.add(path, format!("must be {range} (got {limit})"));
    } else if let Some(request) = request
        && limit < request
    {
        errors.add(
            path,
            format!("must be at least {request_field} ({request}) (got {limit})"),
        );
    }
}

fn quantity_field(errors: &mut Errors, value: Option<&str>, path: &str) -> Option<f64> {
    let value = value?;
    match v::quantity(value) {
        Ok(q) if q > 0.0 => Some(q),
        Ok(_) => {
            errors.add(path, format!("must be greater than 0 (got {value:?})"));
            None
        }
        Err(message) => {
            errors.add(path, message);
            None
        }
    }
}

fn limit_at_least_request(
    errors: &mut Errors,
    request: Option<f64>,
    limit: Option<f64>,
    path: &str,
    request_field: &str,
) {
    if let (Some(request), Some(limit)) = (request, limit)
        && limit < request
    {
        errors.add(path, format!("must be at least {request_field}"));
    }
}

fn storage_rules(errors: &mut Errors, s: &Storage, path: &str) {
    // Mount paths must be distinct across every kind of storage: the second mount would hide the first.
    let mut mounts: Vec<(String, String)> = Vec::new();
    let at = |field: &str| join(path, field);
    for (i, d) in s.data_volume.iter().flatten().enumerate() {
        let item = index(&at("dataVolume"), i);
        if !is_uuid(&d.id) {
            errors.add(
                join(&item, "id"),
                format!("must be the UUID of a data volume (got {:?})", d.id),
            );
        }
        mounts.push((join(&item, "mountPath"), d.mount_path.clone()));
    }
    for (i, p) in s.pvc.iter().flatten().enumerate() {
        let item = index(&at("pvc"), i);
        mounts.push((join(&item, "path"), p.path.clone()));
        if let Some(claim) = &p.claim_name {
            errors.check(join(&item, "claimName"), v::dns1123_subdomain(claim));
        }
        if p.existing_pvc == Some(true) {
            if p.claim_name.is_none() {
                errors.add(
                    join(&item, "claimName"),
                    "is required with existingPvc: the claim to mount",
                );
            }
            if p.claim_info.is_some() {
                errors.add(
                    join(&item, "claimInfo"),
                    "must not be set with existingPvc: the claim already exists",
                );
            }
            if p.ephemeral == Some(true) {
                errors.add(
                    join(&item, "ephemeral"),
                    "must not be true with existingPvc",
                );
            }
            continue;
        }
        let info_path = join(&item, "claimInfo");
        let Some(info) = &p.claim_info else {
            errors.add(info_path, "is required to create a new claim (size, storageClass, accessModes); or set existingPvc to mount one that exists");
            continue;
        };
        match &info.size {
            None => errors.add(join(&info_path, "size"), "is required, e.g. 10Gi"),
            Some(size) => {
                quantity_field(errors, Some(size), &join(&info_path, "size"));
            }
        }
        if let Some(class) = &info.storage_class {
            errors.check(
                join(&info_path, "storageClass"),
                v::dns1123_subdomain(class),
            );
        }
        let modes = info.access_modes.as_ref();
        let any_mode = modes.is_some_and(|m| {
            [m.read_write_once, m.read_only_many, m.read_write_many].contains(&Some(true))
        });
        if !any_mode {
            errors.add(
                join(&info_path, "accessModes"),
                "must enable at least one of readWriteOnce, readOnlyMany, readWriteMany",
            );
        }
    }
    for (i, g) in s.git.iter().flatten().enumerate() {
        let item = index(&at("git"), i);
        mounts.push((join(&item, "path"), g.path.clone()));
        match g.repository.as_deref() {
            None | Some("") => errors.add(
                join(&item, "repository"),
                "is required: the URL to clone, e.g. https://github.com/org/repo.git",
            ),
            Some(url)
                if !(url.starts_with("https://")
                    || url.starts_with("http://")
                    || url.starts_with("ssh://")
                    || url.starts_with("git@")) =>
            {
                errors.add(
                    join(&item, "repository"),
                    format!("must be an https://, http://, ssh:// or git@ URL (got {url:?})"),
                )
            }
            Some(_) => {}
        }
        for (field, value) in [("branch", &g.branch), ("revision", &g.revision)] {
            if let Some(value) = value
                && (value.is_empty()
                    || value.starts_with('-')
                    || value.contains(char::is_whitespace))
            {
                errors.add(join(&item, field), format!("must be a git ref name without spaces, not starting with '-' (got {value:?})"));
            }
        }
        if let Some(secret) = &g.password_secret {
            secret_with_keys(
                errors,
                &item,
                ("passwordSecret", secret),
                [
                    ("secretKeyOfUser", &g.secret_key_of_user),
                    ("secretKeyOfPassword", &g.secret_key_of_password),
                ],
            );
        }
    }
    for (i, c) in s.config_map_volume.iter().flatten().enumerate() {
        let item = index(&at("configMapVolume"), i);
        errors.check(
            join(&item, "configMap"),
            v::dns1123_subdomain(&c.config_map),
        );
        mounts.push((join(&item, "mountPath"), c.mount_path.clone()));
    }
    for (i, c) in s.secret_volume.iter().flatten().enumerate() {
        let item = index(&at("secretVolume"), i);
        errors.check(join(&item, "secret"), v::dns1123_subdomain(&c.secret));
        mounts.push((join(&item, "mountPath"), c.mount_path.clone()));
    }
    for (i, h) in s.host_path.iter().flatten().enumerate() {
        let item = index(&at("hostPath"), i);
        errors.check(join(&item, "path"), v::absolute_path(&h.path));
        mounts.push((join(&item, "mountPath"), h.mount_path.clone()));
        if h.mount_propagation == Some(MountPropagation::Bidirectional) {
            errors.add(join(&item, "mountPropagation"), "Bidirectional needs a privileged container, which Tephra does not run; use None or HostToContainer");
        }
    }
    for (i, n) in s.nfs.iter().flatten().enumerate() {
        let item = index(&at("nfs"), i);
        errors.check(join(&item, "path"), v::absolute_path(&n.path));
        if n.server.is_empty() || n.server.contains(char::is_whitespace) || n.server.contains('/') {
            errors.add(
                join(&item, "server"),
                format!("must be a host name or IP address (got {:?})", n.server),
            );
        }
        mounts.push((join(&item, "mountPath"), n.mount_path.clone()));
    }
    for (i, b) in s.s3.iter().flatten().enumerate() {
        let item = index(&at("s3"), i);
        if b.bucket.len() < 3 || b.bucket.len() > 63 || v::dns1123_subdomain(&b.bucket).is_err() {
            errors.add(join(&item, "bucket"), format!("must be an S3 bucket name: 3 to 63 lowercase letters, digits, '-' or '.' (got {:?})", b.bucket));
        }
        mounts.push((join(&item, "path"), b.path.clone()));
        if let Some(url) = &b.url
            && !(url.starts_with("https://") || url.starts_with("http://"))
        {
            errors.add(
                join(&item, "url"),
                format!("must be an http:// or https:// URL (got {url:?})"),
            );
        }
        if let Some(secret) = &b.access_key_secret {
            secret_with_keys(
                errors,
                &item,
                ("accessKeySecret", secret),
                [
                    ("secretKeyOfAccessKeyId", &b.secret_key_of_access_key_id),
                    ("secretKeyOfSecretKey", &b.secret_key_of_secret_key),
                ],
            );
        }
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (field, mount) in &mounts {
        match v::absolute_path(mount) {
            Err(message) => errors.add(field, message),
            Ok(()) if mount == "/" || mount == "/dev/shm" => {
                errors.add(field, format!("must not be {mount:?}"))
            }
            Ok(()) if !seen.insert(mount.trim_end_matches('/')) => errors.add(
                field,
                format!("{mount:?} is already used by another volume"),
            ),
            Ok(()) => {}
        }
    }
}

/// A secret reference and the keys read from it, all of which must be named.
fn secret_with_keys(
    errors: &mut Errors,
    item: &str,
    (secret_field, secret): (&str, &str),
    keys: [(&str, &Option<String>); 2],
) {
    errors.check(join(item, secret_field), v::dns1123_subdomain(secret));
    for (field, key) in keys {
        match key {
            Some(key) => errors.check(join(item, field), v::config_key(key)),
            None => errors.add(
                join(item, field),
                format!("is required with {secret_field}"),
            ),
        }
    }
}

fn security_rules(errors: &mut Errors, s: &Security, path: &str) {
    let at = |field: &str| join(path, field);
    let custom = s.uid_gid_source == Some(UidGidSource::Custom);
    for (field, value) in [("runAsUid", s.run_as_uid), ("runAsGid", s.run_as_gid)] {
        if let Some(id) = value {
            if !custom {
                errors.add(at(field), "is only used with uidGidSource custom");
            }
            if !(0..=i64::from(i32::MAX)).contains(&id) {
                errors.add(
                    at(field),
                    format!("must be from 0 to {} (got {id})", i32::MAX),
                );
            }
        }
    }
    if custom && s.run_as_uid.is_none() {
        errors.add(at("runAsUid"), "is required with uidGidSource custom");
    }
    if s.run_as_non_root == Some(true) && custom && s.run_as_uid == Some(0) {
        errors.add(at("runAsUid"), "must not be 0 when runAsNonRoot is true");
    }
    if let Some(caps) = &s.capabilities {
        for (i, cap) in caps.iter().enumerate() {
            let name = cap.strip_prefix("CAP_").unwrap_or(cap);
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                errors.add(
                    index(&at("capabilities"), i),
                    format!(
                        "must be a Linux capability name like CHOWN or NET_ADMIN (got {cap:?})"
                    ),
                );
            }
            if name == "SYS_ADMIN" {
                errors.add(
                    index(&at("capabilities"), i),
                    "SYS_ADMIN is not allowed: it is equivalent to running privileged",
                );
            }
        }
    }
    if let Some(groups) = &s.supplemental_groups
        && let Err(message) = supplemental_groups(groups)
    {
        errors.add(at("supplementalGroups"), message);
    }
}

/// `"2,3,5,8"` as group ids.
pub fn supplemental_groups(s: &str) -> Result<Vec<i64>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|g| {
            g.trim()
                .parse::<i64>()
                .ok()
                .filter(|n| (0..=i64::from(i32::MAX)).contains(n))
                .ok_or_else(|| format!("must be comma-separated group ids from 0 to {}, e.g. \"2,3,5\" (got {s:?})", i32::MAX))
        })
        .collect()
}
