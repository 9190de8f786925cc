//! Services for the ports a training exposes (one per service type, selecting the task's pods),
//! and for its exposed URLs (a ClusterIP Service, and an Ingress with a host per URL when the
//! cluster has an ingress class and host).

use crate::domain::cluster::ClusterProfile;
use crate::domain::exposed::url_host;
use crate::domain::labels::{Owner, TASK_SPEC, WORKLOAD_ID};
use crate::model::training::checked::Spec;
use crate::model::training::request::ServiceType;
use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use k8s_openapi::api::networking::v1::{
    HTTPIngressPath, HTTPIngressRuleValue, Ingress, IngressBackend, IngressRule,
    IngressServiceBackend, IngressSpec, ServiceBackendPort,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

/// The metadata of an object beside the Job: the workload's labels and annotations.
fn owned(workload: &Owner, name: String) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        namespace: Some(workload.namespace.clone()),
        labels: Some(workload.labels()),
        annotations: Some(workload.annotations()),
        ..ObjectMeta::default()
    }
}

/// A Service of `kind` selecting the task's pods.
fn service(
    workload: &Owner,
    name: String,
    kind: &str,
    task: &str,
    ports: Vec<ServicePort>,
) -> Service {
    Service {
        metadata: owned(workload, name),
        spec: Some(ServiceSpec {
            type_: Some(kind.to_owned()),
            selector: Some(BTreeMap::from([
                (WORKLOAD_ID.to_owned(), workload.id.clone()),
                (TASK_SPEC.to_owned(), task.to_owned()),
            ])),
            ports: Some(ports),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    }
}

/// One Service per service type the spec's ports ask for.
pub(super) fn for_ports(spec: &Spec, task: &str, workload: &Owner) -> Vec<Service> {
    let mut by_type: BTreeMap<&'static str, Vec<ServicePort>> = BTreeMap::new();
    for (i, port) in spec.ports.iter().enumerate() {
        let Some(kind) = port.service_type else {
            continue;
        };
        let node_port = (kind == ServiceType::NodePort)
            .then_some(port.external)
            .flatten();
        let exposed = match (kind, port.external) {
            (ServiceType::NodePort, _) | (_, None) => port.container,
            (_, Some(external)) => external,
        };
        by_type.entry(kind.as_str()).or_default().push(ServicePort {
            name: Some(port.name.clone().unwrap_or_else(|| format!("port-{i}"))),
            port: exposed,
            target_port: Some(IntOrString::Int(port.container)),
            node_port,
            protocol: Some("TCP".into()),
            ..ServicePort::default()
        });
    }
    by_type
        .into_iter()
        .map(|(kind, ports)| {
            let name = format!("{}-{task}-{}", workload.job_name, kind.to_lowercase());
            service(workload, name, kind, task, ports)
        })
        .collect()
}

/// The Service name of a task's exposed URLs.
fn urls_service_name(workload: &Owner, task: &str) -> String {
    format!("{}-{task}-urls", workload.job_name)
}

/// Run:ai's `exposedUrls` of one task: a ClusterIP Service with a port per URL, so the URL works
/// inside the cluster (and through `kubectl port-forward`) wherever the cluster has no ingress.
pub(super) fn for_urls(spec: &Spec, task: &str, workload: &Owner) -> Option<Service> {
    if spec.exposed_urls.is_empty() {
        return None;
    }
    let ports = spec
        .exposed_urls
        .iter()
        .map(|url| ServicePort {
            name: Some(format!("url-{}", url.container)),
            port: url.container,
            target_port: Some(IntOrString::Int(url.container)),
            protocol: Some("TCP".into()),
            ..ServicePort::default()
        })
        .collect();
    Some(service(
        workload,
        urls_service_name(workload, task),
        "ClusterIP",
        task,
        ports,
    ))
}

/// The URL users open for one exposed URL, when the cluster serves exposed URLs through an
/// ingress: `https://<job>-<port>-<hash>.<ingressHost>/`, an origin of its own.
pub fn exposed_url(workload: &Owner, container: i32, profile: &ClusterProfile) -> Option<String> {
    profile.ingress_class.as_ref()?;
    let host = profile.ingress_host.as_deref()?;
    Some(format!(
        "https://{}/",
        url_host(host, &workload.namespace, &workload.job_name, container)
    ))
}

/// The ingress-nginx annotations that send every request to Tephra's forward auth first, and
/// pass the cookie it sets on to the browser (on a 200 too, where ingress-nginx would drop it).
fn forward_auth_annotations(profile: &ClusterProfile) -> BTreeMap<String, String> {
    let Some(auth) = &profile.forward_auth else {
        return BTreeMap::new();
    };
    [
        ("nginx.ingress.kubernetes.io/auth-url", auth.check_url()),
        (
            "nginx.ingress.kubernetes.io/auth-signin",
            auth.sign_in_url(),
        ),
        (
            "nginx.ingress.kubernetes.io/auth-always-set-cookie",
            "true".to_owned(),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// An Ingress for a task's exposed URLs when the cluster names an ingress class and host: one
/// rule per URL, on its own host, path `/`; behind Tephra's forward auth where the profile has it.
pub(super) fn ingress_for_urls(
    spec: &Spec,
    task: &str,
    workload: &Owner,
    profile: &ClusterProfile,
) -> Option<Ingress> {
    let class = profile.ingress_class.as_ref()?;
    let ingress_host = profile.ingress_host.as_deref()?;
    if spec.exposed_urls.is_empty() {
        return None;
    }
    let service = urls_service_name(workload, task);
    let rules = spec
        .exposed_urls
        .iter()
        .map(|url| IngressRule {
            host: Some(url_host(
                ingress_host,
                &workload.namespace,
                &workload.job_name,
                url.container,
            )),
            http: Some(HTTPIngressRuleValue {
                paths: vec![HTTPIngressPath {
                    path: Some("/".into()),
                    path_type: "Prefix".into(),
                    backend: IngressBackend {
                        service: Some(IngressServiceBackend {
                            name: service.clone(),
                            port: Some(ServiceBackendPort {
                                number: Some(url.container),
                                ..ServiceBackendPort::default()
                            }),
                        }),
                        ..IngressBackend::default()
                    },
                }],
            }),
        })
        .collect();
    let mut metadata = owned(workload, format!("{}-urls", workload.job_name));
    metadata
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .extend(forward_auth_annotations(profile));
    Some(Ingress {
        metadata,
        spec: Some(IngressSpec {
            ingress_class_name: Some(class.clone()),
            rules: Some(rules),
            ..IngressSpec::default()
        }),
        ..Ingress::default()
    })
}
