//! Services for the ports a training exposes: one per service type, selecting the task's pods.

use super::int32;
use crate::domain::labels::{Owner, WORKLOAD_ID};
use app::model::training::request::{ServiceType, TrainingSpec};
use app::model::validation::{Errors, index, join};
use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

/// The label Volcano puts on every pod with its task's name.
const TASK_LABEL: &str = "volcano.sh/task-spec";

/// `path`: where `spec` is in the request, for error paths.
pub(super) fn for_ports(
    spec: &TrainingSpec,
    task: &str,
    workload: &Owner,
    path: &str,
    errors: &mut Errors,
) -> Vec<Service> {
    let mut by_type: BTreeMap<&'static str, Vec<ServicePort>> = BTreeMap::new();
    for (i, port) in spec.ports.iter().flatten().enumerate() {
        let at = |field: &str| join(&index(&join(path, "ports"), i), field);
        let Some(kind) = port.service_type else {
            continue;
        };
        let node_port = (kind == ServiceType::NodePort)
            .then_some(port.external)
            .flatten();
        let (exposed_field, exposed) = match (kind, port.external) {
            (ServiceType::NodePort, _) | (_, None) => ("container", port.container),
            (_, Some(external)) => ("external", external),
        };
        by_type.entry(kind.as_str()).or_default().push(ServicePort {
            name: Some(port.name.clone().unwrap_or_else(|| format!("port-{i}"))),
            port: int32(errors, &at(exposed_field), exposed),
            target_port: Some(IntOrString::Int(int32(
                errors,
                &at("container"),
                port.container,
            ))),
            node_port: node_port.map(|n| int32(errors, &at("external"), n)),
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
