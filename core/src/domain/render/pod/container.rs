//! The task's container: image, command, environment, ports, resources and readiness probe.

use super::{PodContext, non_empty, resources, security};
use crate::model::training::checked::{EnvVar, Probe, Spec};
use crate::model::training::distributed::Framework;
use crate::model::training::request::HttpScheme;
use k8s_openapi::api::core::v1::{
    Container, ContainerPort, EnvVar as KubeEnvVar, EnvVarSource, HTTPGetAction,
    Probe as KubeProbe, SecretKeySelector,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

pub(super) fn container(spec: &Spec, ctx: &PodContext<'_>) -> Container {
    Container {
        name: ctx.task.to_owned(),
        image: Some(spec.image.clone()),
        image_pull_policy: spec.image_pull_policy.map(|p| p.as_str().to_owned()),
        command: spec.command.as_ref().and_then(|w| w.to_list()),
        args: spec.args.as_ref().and_then(|w| w.to_list()),
        working_dir: spec.working_dir.as_ref().map(|d| d.as_str().to_owned()),
        tty: spec.tty.then_some(true),
        stdin: spec.stdin.then_some(true),
        env: non_empty(env(spec, ctx)),
        ports: non_empty(
            spec.ports
                .iter()
                .map(|p| ContainerPort {
                    container_port: p.container,
                    name: p.name.clone(),
                    protocol: Some("TCP".into()),
                    ..ContainerPort::default()
                })
                .collect(),
        ),
        resources: spec
            .compute
            .as_ref()
            .map(|c| resources::resources(c, ctx.target.profile.gpu_memory_mib)),
        readiness_probe: spec.readiness.as_ref().map(probe),
        security_context: spec.security.as_ref().map(security::container),
        ..Container::default()
    }
}

fn env(spec: &Spec, ctx: &PodContext<'_>) -> Vec<KubeEnvVar> {
    let mut vars: Vec<KubeEnvVar> = Vec::new();
    if spec.create_home_dir {
        vars.push(plain("HOME", &ctx.target.profile.home_dir));
    }
    vars.extend(framework_env(ctx));
    for e in &spec.environment {
        let var = match e {
            EnvVar::Secret { name, secret, key } => KubeEnvVar {
                name: name.clone(),
                value_from: Some(EnvVarSource {
                    secret_key_ref: Some(SecretKeySelector {
                        name: secret.to_string(),
                        key: key.clone(),
                        optional: Some(false),
                    }),
                    ..EnvVarSource::default()
                }),
                ..KubeEnvVar::default()
            },
            EnvVar::Value { name, value } => plain(name, value),
        };
        // The user's value replaces a default of the same name.
        vars.retain(|v| v.name != var.name);
        vars.push(var);
    }
    vars.retain(|v| !spec.excluded_environment.contains(&v.name));
    vars
}

/// XGBoost has no Volcano plugin; its Rabit tracker runs in the master, and the workers find it
/// by the master pod's DNS name (from the svc plugin).
fn framework_env(ctx: &PodContext<'_>) -> Vec<KubeEnvVar> {
    if ctx.framework != Some(Framework::XGBoost) {
        return Vec::new();
    }
    let (master, worker) = Framework::XGBoost.task_names();
    let workers = ctx
        .tasks
        .iter()
        .find(|(name, _)| *name == worker)
        .map_or(0, |(_, n)| *n);
    let job = &ctx.target.workload.job_name;
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

/// A variable with a literal value.
pub(in crate::domain::render) fn plain(name: &str, value: &str) -> KubeEnvVar {
    KubeEnvVar {
        name: name.into(),
        value: Some(value.into()),
        ..KubeEnvVar::default()
    }
}

fn probe(p: &Probe) -> KubeProbe {
    KubeProbe {
        initial_delay_seconds: p.initial_delay_seconds,
        period_seconds: p.period_seconds,
        timeout_seconds: p.timeout_seconds,
        success_threshold: p.success_threshold,
        failure_threshold: p.failure_threshold,
        http_get: Some(HTTPGetAction {
            path: p.path.clone(),
            port: IntOrString::Int(p.port),
            host: p.host.clone(),
            scheme: p.scheme.map(|s| match s {
                HttpScheme::Http => "HTTP".into(),
                HttpScheme::Https => "HTTPS".into(),
            }),
            ..HTTPGetAction::default()
        }),
        ..KubeProbe::default()
    }
}
