//! One task's pod template: the container (image, command, env, resources, probes, security) and
//! the pod around it (scheduling, tolerations, affinity, volumes).

use super::{SCHEDULER_NAME, int32, storage};
use crate::domain::cluster::ClusterProfile;
use crate::domain::labels::{Owner, WORKLOAD_ID};
use app::model::training::distributed::Framework;
use app::model::training::request::{
    self as r, AffinityType, Compute, GpuRequestType, HttpScheme, NameValue, SeccompProfileType,
    Security, TaintEffect, TolerationOperator, TrainingSpec, UidGidSource,
};
use app::model::training::validate::{extended_quantity, supplemental_groups};
use app::model::validation::{Errors, index, join, quantity, shell_words};
use k8s_openapi::api::core::v1::*;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

pub(super) struct PodContext<'a> {
    pub workload: &'a Owner,
    pub profile: &'a ClusterProfile,
    /// The task's name; also the container's.
    pub task: &'a str,
    /// Where the task's spec is in the request (`spec` or `spec.master`).
    pub path: &'a str,
    pub framework: Option<Framework>,
    /// Every task of the job with its replicas, for the framework's environment.
    pub tasks: &'a [(&'a str, i32)],
}

impl PodContext<'_> {
    pub fn at(&self, field: &str) -> String {
        join(self.path, field)
    }
}

pub(super) fn template(
    spec: &TrainingSpec,
    ctx: &PodContext<'_>,
    claims: &mut Vec<PersistentVolumeClaim>,
    errors: &mut Errors,
) -> PodTemplateSpec {
    let storage = storage::render(spec, ctx, claims, errors);
    let mut container = container(spec, ctx, errors);
    container.volume_mounts = non_empty(storage.mounts);
    let security = spec.security.clone().unwrap_or_default();
    let host_network = security.host_network == Some(true);

    let mut labels = ctx.workload.labels();
    for (k, v) in user_pairs(spec.labels.as_deref()) {
        labels.entry(k).or_insert(v);
    }
    let mut annotations = BTreeMap::new();
    for (k, v) in user_pairs(spec.annotations.as_deref()) {
        annotations.entry(k).or_insert(v);
    }

    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(labels),
            annotations: non_empty_map(annotations),
            ..ObjectMeta::default()
        }),
        spec: Some(PodSpec {
            scheduler_name: Some(SCHEDULER_NAME.into()),
            // Volcano restarts through its policies (RestartJob and maxRetry), not the kubelet.
            restart_policy: Some("Never".into()),
            containers: vec![container],
            init_containers: non_empty(storage.init_containers),
            volumes: non_empty(storage.volumes),
            tolerations: spec
                .tolerations
                .as_ref()
                .map(|t| t.iter().map(toleration).collect()),
            node_selector: spec.node_type.as_ref().map(|node_type| {
                BTreeMap::from([(ctx.profile.node_type_label.clone(), node_type.clone())])
            }),
            affinity: affinity(spec, ctx),
            security_context: pod_security(&security, ctx, errors),
            host_ipc: security.host_ipc.filter(|on| *on),
            host_network: security.host_network.filter(|on| *on),
            // What the webhook sets: pods on the host network still resolve cluster names.
            dns_policy: host_network.then(|| "ClusterFirstWithHostNet".into()),
            ..PodSpec::default()
        }),
    }
}

fn container(spec: &TrainingSpec, ctx: &PodContext<'_>, errors: &mut Errors) -> Container {
    let words = |value: &Option<String>| {
        value
            .as_deref()
            .and_then(|s| shell_words(s).ok())
            .filter(|w| !w.is_empty())
    };
    let security = spec.security.as_ref();
    Container {
        name: ctx.task.to_owned(),
        image: spec.image.clone(),
        image_pull_policy: spec.image_pull_policy.map(|p| p.as_str().to_owned()),
        command: words(&spec.command),
        args: words(&spec.args),
        working_dir: spec.working_dir.clone(),
        tty: spec.tty.filter(|on| *on),
        stdin: spec.stdin.filter(|on| *on),
        env: non_empty(env(spec, ctx)),
        ports: spec.ports.as_ref().map(|ports| {
            ports
                .iter()
                .enumerate()
                .map(|(i, p)| ContainerPort {
                    container_port: int32(
                        errors,
                        &join(&index(&ctx.at("ports"), i), "container"),
                        p.container,
                    ),
                    name: p.name.clone(),
                    protocol: Some("TCP".into()),
                    ..ContainerPort::default()
                })
                .collect()
        }),
        resources: spec.compute.as_ref().map(|c| resources(c, ctx, errors)),
        readiness_probe: spec
            .probes
            .as_ref()
            .and_then(|p| p.readiness.as_ref())
            .map(|p| probe(p, &ctx.at("probes.readiness"), errors)),
        security_context: security.map(|s| container_security(s, ctx, errors)),
        ..Container::default()
    }
}

/// Labels or annotations the user asked for, without the excluded ones.
pub(super) fn user_pairs(items: Option<&[NameValue]>) -> BTreeMap<String, String> {
    items
        .unwrap_or_default()
        .iter()
        .filter(|i| i.exclude != Some(true))
        .map(|i| (i.name.clone(), i.value.clone().unwrap_or_default()))
        .collect()
}

fn env(spec: &TrainingSpec, ctx: &PodContext<'_>) -> Vec<EnvVar> {
    let excluded: Vec<&str> = spec
        .environment_variables
        .iter()
        .flatten()
        .filter(|e| e.exclude == Some(true))
        .map(|e| e.name.as_str())
        .collect();
    let mut vars: Vec<EnvVar> = Vec::new();
    if spec.create_home_dir == Some(true) {
        vars.push(plain("HOME", &ctx.profile.home_dir));
    }
    vars.extend(framework_env(ctx));
    for e in spec
        .environment_variables
        .iter()
        .flatten()
        .filter(|e| e.exclude != Some(true))
    {
        let var = match &e.secret {
            Some(secret) => EnvVar {
                name: e.name.clone(),
                value_from: Some(EnvVarSource {
                    secret_key_ref: Some(SecretKeySelector {
                        name: secret.name.clone(),
                        key: secret.key.clone(),
                        optional: Some(false),
                    }),
                    ..EnvVarSource::default()
                }),
                ..EnvVar::default()
            },
            None => plain(&e.name, e.value.as_deref().unwrap_or_default()),
        };
        // The user's value replaces a default of the same name.
        vars.retain(|v| v.name != var.name);
        vars.push(var);
    }
    vars.retain(|v| !excluded.contains(&v.name.as_str()));
    vars
}

/// XGBoost has no Volcano plugin; its Rabit tracker runs in the master, and the workers find it
/// by the master pod's DNS name (from the svc plugin).
fn framework_env(ctx: &PodContext<'_>) -> Vec<EnvVar> {
    if ctx.framework != Some(Framework::XGBoost) {
        return Vec::new();
    }
    let (master, worker) = Framework::XGBoost.task_names();
    let workers = ctx
        .tasks
        .iter()
        .find(|(name, _)| *name == worker)
        .map_or(0, |(_, n)| *n);
    let job = &ctx.workload.job_name;
    vec![
        plain("DMLC_TRACKER_URI", &format!("{job}-{master}-0.{job}")),
        plain("DMLC_TRACKER_PORT", "9091"),
        plain("DMLC_NUM_WORKER", &workers.to_string()),
        plain(
            "DMLC_ROLE",
            if ctx.task == master {
                "tracker"
            } else {
                "worker"
            },
        ),
    ]
}

fn plain(name: &str, value: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value: Some(value.into()),
        ..EnvVar::default()
    }
}

/// CPU as Kubernetes writes it: whole cores as `2`, fractions in millicores (`500m`).
pub(super) fn cpu(cores: f64) -> Quantity {
    let milli = (cores * 1000.0).round() as i64;
    if milli % 1000 == 0 {
        Quantity((milli / 1000).to_string())
    } else {
        Quantity(format!("{milli}m"))
    }
}

fn resources(c: &Compute, ctx: &PodContext<'_>, errors: &mut Errors) -> ResourceRequirements {
    let mut requests = BTreeMap::new();
    let mut limits = BTreeMap::new();
    // Extended resources (GPUs included) must have requests equal to limits.
    let mut both = |name: &str, value: Quantity| {
        requests.insert(name.to_owned(), value.clone());
        limits.insert(name.to_owned(), value);
    };
    let devices = c.gpu_devices_request.unwrap_or(0);
    match c.gpu_request_type {
        None if devices > 0 => both("nvidia.com/gpu", Quantity(devices.to_string())),
        None => {}
        Some(GpuRequestType::Portion) => {
            let portion = c.gpu_portion_request.unwrap_or(0.0);
            both(
                "volcano.sh/vgpu-number",
                Quantity(devices.max(1).to_string()),
            );
            both(
                "volcano.sh/vgpu-cores",
                Quantity(((portion * 100.0).round() as i64).max(1).to_string()),
            );
        }
        Some(GpuRequestType::Memory) => {
            let bytes = c
                .gpu_memory_request
                .as_deref()
                .and_then(|q| quantity(q).ok())
                .unwrap_or(0.0);
            let mib = (bytes / (1024.0 * 1024.0)).ceil() as i64;
            both(
                "volcano.sh/vgpu-number",
                Quantity(devices.max(1).to_string()),
            );
            both("volcano.sh/vgpu-memory", Quantity(mib.max(1).to_string()));
        }
        Some(GpuRequestType::MigProfile) => {
            let profile = c.mig_profile.clone().unwrap_or_default();
            both(
                &format!("nvidia.com/mig-{profile}"),
                Quantity(devices.max(1).to_string()),
            );
        }
    }
    for r in c
        .extended_resources
        .iter()
        .flatten()
        .filter(|r| r.exclude != Some(true))
    {
        match r.quantity.as_ref().map(extended_quantity) {
            Some(Ok(n)) => both(&r.resource, Quantity(n.to_string())),
            _ => errors.add(
                ctx.at("compute.extendedResources"),
                "has an invalid quantity",
            ),
        }
    }
    if let Some(cores) = c.cpu_core_request {
        requests.insert("cpu".into(), cpu(cores));
    }
    if let Some(cores) = c.cpu_core_limit {
        limits.insert("cpu".into(), cpu(cores));
    }
    if let Some(mem) = &c.cpu_memory_request {
        requests.insert("memory".into(), Quantity(mem.trim().to_owned()));
    }
    if let Some(mem) = &c.cpu_memory_limit {
        limits.insert("memory".into(), Quantity(mem.trim().to_owned()));
    }
    ResourceRequirements {
        requests: non_empty_map(requests),
        limits: non_empty_map(limits),
        ..ResourceRequirements::default()
    }
}

/// `path`: where the probe is in the request, for error paths.
fn probe(p: &r::Probe, path: &str, errors: &mut Errors) -> Probe {
    let get = p.handler.as_ref().and_then(|h| h.http_get.as_ref());
    let mut field =
        |name: &str, value: Option<i64>| value.map(|n| int32(errors, &join(path, name), n));
    Probe {
        initial_delay_seconds: field("initialDelaySeconds", p.initial_delay_seconds),
        period_seconds: field("periodSeconds", p.period_seconds),
        timeout_seconds: field("timeoutSeconds", p.timeout_seconds),
        success_threshold: field("successThreshold", p.success_threshold),
        failure_threshold: field("failureThreshold", p.failure_threshold),
        http_get: get.map(|g| HTTPGetAction {
            path: g.path.clone(),
            port: IntOrString::Int(field("handler.httpGet.port", g.port).unwrap_or(0)),
            host: g.host.clone(),
            scheme: g.scheme.map(|s| match s {
                HttpScheme::Http => "HTTP".into(),
                HttpScheme::Https => "HTTPS".into(),
            }),
            ..HTTPGetAction::default()
        }),
        ..Probe::default()
    }
}

fn toleration(t: &r::Toleration) -> Toleration {
    let exists = t.operator == Some(TolerationOperator::Exists);
    Toleration {
        key: t.key.clone().filter(|k| !k.is_empty()),
        operator: Some(if exists { "Exists" } else { "Equal" }.into()),
        value: if exists { None } else { t.value.clone() },
        effect: match t.effect {
            None | Some(TaintEffect::Any) => None,
            Some(TaintEffect::NoSchedule) => Some("NoSchedule".into()),
            Some(TaintEffect::PreferNoSchedule) => Some("PreferNoSchedule".into()),
            Some(TaintEffect::NoExecute) => Some("NoExecute".into()),
        },
        toleration_seconds: t.seconds,
    }
}

fn affinity(spec: &TrainingSpec, ctx: &PodContext<'_>) -> Option<Affinity> {
    let node_affinity = spec
        .node_pools
        .as_ref()
        .filter(|p| !p.is_empty())
        .map(|pools| NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![NodeSelectorRequirement {
                        key: ctx.profile.node_pool_label.clone(),
                        operator: "In".into(),
                        values: Some(pools.clone()),
                    }]),
                    ..NodeSelectorTerm::default()
                }],
            }),
            ..NodeAffinity::default()
        });
    let pod_affinity = spec.pod_affinity.as_ref().map(|a| {
        // The job's own pods attract each other within the topology domain `key`.
        let term = PodAffinityTerm {
            label_selector: Some(LabelSelector {
                match_labels: Some(BTreeMap::from([(
                    WORKLOAD_ID.to_owned(),
                    ctx.workload.id.clone(),
                )])),
                ..LabelSelector::default()
            }),
            topology_key: a.key.clone(),
            ..PodAffinityTerm::default()
        };
        match a.kind {
            AffinityType::Required => k8s_openapi::api::core::v1::PodAffinity {
                required_during_scheduling_ignored_during_execution: Some(vec![term]),
                ..Default::default()
            },
            AffinityType::Preferred => k8s_openapi::api::core::v1::PodAffinity {
                preferred_during_scheduling_ignored_during_execution: Some(vec![
                    WeightedPodAffinityTerm {
                        weight: 100,
                        pod_affinity_term: term,
                    },
                ]),
                ..Default::default()
            },
        }
    });
    (node_affinity.is_some() || pod_affinity.is_some()).then(|| Affinity {
        node_affinity,
        pod_affinity,
        ..Affinity::default()
    })
}

fn pod_security(
    s: &Security,
    ctx: &PodContext<'_>,
    errors: &mut Errors,
) -> Option<PodSecurityContext> {
    let groups = s
        .supplemental_groups
        .as_deref()
        .and_then(|g| supplemental_groups(g).ok())
        .filter(|g| !g.is_empty());
    let (uid, gid) = match s.uid_gid_source {
        Some(UidGidSource::Custom) => (s.run_as_uid, s.run_as_gid),
        Some(UidGidSource::FromIdpToken) => match ctx.workload.token_uid_gid {
            Some((uid, gid)) => (Some(uid), Some(gid)),
            None => {
                errors.add(
                    ctx.at("security.uidGidSource"),
                    "fromIdpToken needs uid and gid claims in the signed-in user's token, and it has none; use custom or fromTheImage",
                );
                (None, None)
            }
        },
        Some(UidGidSource::FromTheImage) | None => (None, None),
    };
    let context = PodSecurityContext {
        run_as_user: uid,
        run_as_group: gid,
        supplemental_groups: groups,
        ..PodSecurityContext::default()
    };
    (context != PodSecurityContext::default()).then_some(context)
}

fn container_security(s: &Security, ctx: &PodContext<'_>, errors: &mut Errors) -> SecurityContext {
    if s.seccomp_profile_type == Some(SeccompProfileType::Localhost) {
        errors.add(
            ctx.at("security.seccompProfileType"),
            "Localhost needs a profile file on every node, which this API cannot name; use RuntimeDefault or Unconfined",
        );
    }
    SecurityContext {
        run_as_non_root: s.run_as_non_root,
        read_only_root_filesystem: s.read_only_root_filesystem,
        allow_privilege_escalation: s.allow_privilege_escalation,
        capabilities: s
            .capabilities
            .as_ref()
            .filter(|c| !c.is_empty())
            .map(|caps| Capabilities {
                add: Some(
                    caps.iter()
                        .map(|c| c.strip_prefix("CAP_").unwrap_or(c).to_owned())
                        .collect(),
                ),
                ..Capabilities::default()
            }),
        seccomp_profile: s.seccomp_profile_type.map(|t| SeccompProfile {
            type_: t.as_str().into(),
            ..SeccompProfile::default()
        }),
        ..SecurityContext::default()
    }
}

pub(super) fn non_empty<T>(items: Vec<T>) -> Option<Vec<T>> {
    (!items.is_empty()).then_some(items)
}

fn non_empty_map<K, V>(map: BTreeMap<K, V>) -> Option<BTreeMap<K, V>> {
    (!map.is_empty()).then_some(map)
}
