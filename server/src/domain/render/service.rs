//! Services for the ports a training exposes: one per service type, selecting the task's pods.

use crate::domain::labels::{Owner, WORKLOAD_ID};
use app::model::training::checked::Spec;
use app::model::training::request::ServiceType;
use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

/// The label Volcano puts on every pod with its task's name.
const TASK_LABEL: &str = "volcano.sh/task-spec";

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
        .map(|(kind, ports)| Service {
            metadata: ObjectMeta {
                name: Some(format!(
                    "{}-{task}-{}",
                    workload.job_name,
                    kind.to_lowercase()
                )),
                namespace: Some(workload.namespace.clone()),
                labels: Some(workload.labels()),
                annotations: Some(workload.annotations()),
                ..ObjectMeta::default()
            },
            spec: Some(ServiceSpec {
                type_: Some(kind.to_owned()),
                selector: Some(BTreeMap::from([
                    (WORKLOAD_ID.to_owned(), workload.id.clone()),
                    (TASK_LABEL.to_owned(), task.to_owned()),
                ])),
                ports: Some(ports),
                ..ServiceSpec::default()
            }),
            ..Service::default()
        })
        .collect()
}
