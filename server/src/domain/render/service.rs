//! Services for the ports a training exposes: one per service type, selecting the task's pods.

use crate::domain::labels::{WORKLOAD_ID, Workload};
use app::model::training::request::{ServiceType, TrainingSpec};
use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

/// The label Volcano puts on every pod with its task's name.
const TASK_LABEL: &str = "volcano.sh/task-spec";

pub(super) fn for_ports(spec: &TrainingSpec, task: &str, workload: &Workload) -> Vec<Service> {
    let mut by_type: BTreeMap<&'static str, Vec<ServicePort>> = BTreeMap::new();
    for (i, port) in spec.ports.iter().flatten().enumerate() {
        let Some(kind) = port.service_type else {
            continue;
        };
        let node_port = (kind == ServiceType::NodePort)
            .then_some(port.external)
            .flatten();
        let exposed = match kind {
            ServiceType::NodePort => port.container,
            _ => port.external.unwrap_or(port.container),
        };
        by_type.entry(kind.as_str()).or_default().push(ServicePort {
            name: Some(port.name.clone().unwrap_or_else(|| format!("port-{i}"))),
            port: exposed as i32,
            target_port: Some(IntOrString::Int(port.container as i32)),
            node_port: node_port.map(|n| n as i32),
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
