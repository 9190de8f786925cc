//! Requests and limits: GPUs in the style the request chose, CPU, memory, extended resources.

use super::non_empty_map;
use crate::model::training::checked::{Compute, Gpu};
use k8s_openapi::api::core::v1::ResourceRequirements;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::collections::BTreeMap;

/// `gpu_memory_mib` is the memory of one shared GPU: Run:ai's portion is a share of it.
pub(super) fn resources(c: &Compute, gpu_memory_mib: u32) -> ResourceRequirements {
    let mut requests = BTreeMap::new();
    let mut limits = BTreeMap::new();
    // Extended resources (GPUs included) must have requests equal to limits.
    let mut both = |name: &str, value: String| {
        requests.insert(name.to_owned(), Quantity(value.clone()));
        limits.insert(name.to_owned(), Quantity(value));
    };
    match &c.gpu {
        Gpu::None => {}
        Gpu::Devices(n) => both(crate::domain::quota::GPU_RESOURCE, n.to_string()),
        // Volcano's vGPU device (HAMi) caps each container at the memory it asks for and
        // time-shares the compute, as Run:ai's fractions do; a portion without a memory amount
        // would get the whole card. Its percentage resource is off in Volcano's default device
        // config, so the portion is turned into MiB of the profile's card.
        Gpu::Portion { devices, portion } => {
            both("volcano.sh/vgpu-number", devices.max(&1).to_string());
            both(
                "volcano.sh/vgpu-memory",
                portion.of_mebibytes(gpu_memory_mib).to_string(),
            );
        }
        Gpu::Memory { devices, memory } => {
            both("volcano.sh/vgpu-number", devices.max(&1).to_string());
            both("volcano.sh/vgpu-memory", memory.mebibytes().to_string());
        }
        Gpu::Mig { devices, profile } => {
            both(&profile.resource(), devices.max(&1).to_string());
        }
    }
    for (resource, quantity) in &c.extended {
        both(resource, quantity.get().to_string());
    }
    if let Some(cores) = c.cpu_request {
        requests.insert("cpu".into(), Quantity(cores.quantity()));
    }
    if let Some(cores) = c.cpu_limit {
        limits.insert("cpu".into(), Quantity(cores.quantity()));
    }
    if let Some(memory) = &c.memory_request {
        requests.insert("memory".into(), Quantity(memory.as_str().to_owned()));
    }
    if let Some(memory) = &c.memory_limit {
        limits.insert("memory".into(), Quantity(memory.as_str().to_owned()));
    }
    ResourceRequirements {
        requests: non_empty_map(requests),
        limits: non_empty_map(limits),
        ..ResourceRequirements::default()
    }
}
